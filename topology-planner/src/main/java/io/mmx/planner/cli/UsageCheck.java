package io.mmx.planner.cli;

import picocli.CommandLine;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Finds help texts that read badly, in a command and all its subcommands: a description
 * paragraph that stops mid-sentence (picocli prints each element of a description on its own
 * line, so a sentence split across elements is broken where the source file was wrapped), and a
 * line wrapped inside a HOST:PORT. The tests of topo and mmx run it over every command.
 */
public final class UsageCheck
{
    // A usage line that ends right after "1.2.3.4:" or "0-3@host1:" was wrapped inside an address.
    private static final Pattern BROKEN_ADDRESS = Pattern.compile(".*[0-9]:$");

    private UsageCheck()
    {
    }

    /** Every problem found, each naming the command; empty if all help texts read well. */
    public static List<String> problems(final CommandLine line)
    {
        final List<String> problems = new ArrayList<>();
        collect(line, problems);
        return problems;
    }

    private static void collect(final CommandLine line, final List<String> problems)
    {
        final String name = line.getCommandSpec().qualifiedName();
        if (!(line.getCommand() instanceof CommandLine.HelpCommand))
        {
            for (final String paragraph : line.getCommandSpec().usageMessage().description())
            {
                final String text = paragraph.strip();
                if (!text.isEmpty() && ".:)!?".indexOf(text.charAt(text.length() - 1)) < 0)
                {
                    problems.add(name + ": description paragraph stops mid-sentence: '" + text + "'");
                }
            }
            for (final String usageLine : line.getUsageMessage().split("\\R"))
            {
                if (BROKEN_ADDRESS.matcher(usageLine.stripTrailing()).matches())
                {
                    problems.add(name + ": help line wrapped inside an address: '" + usageLine.strip() + "'");
                }
            }
        }
        for (final CommandLine sub : line.getSubcommands().values())
        {
            collect(sub, problems);
        }
    }
}
