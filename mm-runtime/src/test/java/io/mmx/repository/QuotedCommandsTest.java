package io.mmx.repository;

import io.mmx.planner.cli.TopoCommand;
import io.mmx.runtime.cli.MmxCommand;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The commands README.md and docs/*.md quote still exist: for every {@code mmx}, {@code topo} or
 * {@code ops/SCRIPT} command line in inline code or a code block, each subcommand it names is a
 * subcommand, and each {@code --option} is an option of that command (picocli's model for the two
 * CLIs; the script's own text for ops scripts). Values and placeholders are not checked; code blocks
 * tagged with a language other than a shell (text, json) are file contents or output, not commands.
 */
class QuotedCommandsTest
{
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern SHELL_BLOCK = Pattern.compile("|bash|sh|shell|console");
    private static final Pattern INLINE_CODE = Pattern.compile("`([^`\\n]+)`");
    private static final Pattern COMMAND =
        Pattern.compile("(?:^|[\\s(;&])((?:bin/)?(?:mmx|topo))\\s(.*)|^\\s*(ops/[a-z-]+)\\s(.*)");

    @Test
    void everyQuotedCommandAndOptionExists() throws IOException
    {
        final List<String> problems = new ArrayList<>();
        int checked = 0;
        for (final Path page : pages())
        {
            for (final String line : codeLines(Files.readString(page)))
            {
                final Matcher m = COMMAND.matcher(line.replace("\\|", "|"));
                if (!m.find())
                {
                    continue;
                }
                checked++;
                final String problem = m.group(1) != null ? problem(m.group(1), m.group(2)) :
                    problem(m.group(3), m.group(4));
                if (problem != null)
                {
                    problems.add(ROOT.relativize(page) + ": `" + line.strip() + "`: " + problem);
                }
            }
        }
        assertTrue(checked > 50, "found only " + checked + " quoted commands: is the pattern still right?");
        assertEquals(List.of(), problems, "quoted commands that do not exist");
    }

    @Test
    void theCheckFindsAMissingSubcommandAndAMissingOption()
    {
        assertEquals(null, problem("bin/mmx", "memd probe --address H:P --key K --as 3"));
        assertEquals(null, problem("topo", "analyze|verify PLAN"));
        assertTrue(problem("topo", "analyze|verify PLAN [--json]").contains("'topo verify' has no option --json"));
        assertTrue(problem("mmx", "memd --no-such-option").contains("--no-such-option"));
        assertTrue(problem("bin/topo", "plan --n 8 --degre 4").contains("--degre"));
        assertTrue(problem("topo", "analyse PLAN").contains("analyse"));
        assertTrue(problem("ops/health", "--bundle D --no-such-flag").contains("--no-such-flag"));
        assertTrue(problem("ops/no-such-script", "--x").contains("no-such-script"));
    }

    /** Null when the quoted command exists, else what is wrong with it. */
    private static String problem(final String program, final String rest)
    {
        final List<String> tokens = tokens(rest);
        if (program.startsWith("ops/"))
        {
            return scriptProblem(program, tokens);
        }
        final CommandSpec root = (program.endsWith("topo") ? TopoCommand.commandLine() : MmxCommand.commandLine())
            .getCommandSpec();
        return optionProblems(List.of(root), tokens, program);
    }

    /** Resolves subcommands (a token "a|b" names alternatives), then checks options against each command reached. */
    private static String optionProblems(final List<CommandSpec> commands, final List<String> tokens, final String name)
    {
        if (tokens.isEmpty())
        {
            return null;
        }
        final String first = tokens.get(0);
        if (!first.startsWith("-"))
        {
            final String[] alternatives = first.split("\\|");
            final List<CommandSpec> next = new ArrayList<>();
            for (final String alternative : alternatives)
            {
                for (final CommandSpec command : commands)
                {
                    final CommandLine sub = command.subcommands().get(alternative);
                    if (sub != null)
                    {
                        next.add(sub.getCommandSpec());
                    }
                }
            }
            final boolean allSubcommands = next.size() == alternatives.length * commands.size();
            final boolean commandExpected = commands.stream().allMatch(c -> c.positionalParameters().isEmpty() &&
                !c.subcommands().isEmpty());
            if (allSubcommands)
            {
                return optionProblems(next, tokens.subList(1, tokens.size()), name + " " + first);
            }
            if (commandExpected && first.matches("[a-z][a-z-]*(\\|[a-z][a-z-]*)*"))
            {
                return "'" + name + " " + first + "' is not a command";
            }
        }
        for (final String token : tokens)
        {
            if (!token.startsWith("--") || token.equals("--"))
            {
                continue;
            }
            final String option = token.contains("=") ? token.substring(0, token.indexOf('=')) : token;
            for (final CommandSpec command : commands)
            {
                if (command.findOption(option) == null)
                {
                    return "'" + command.qualifiedName() + "' has no option " + option;
                }
            }
        }
        return null;
    }

    private static String scriptProblem(final String program, final List<String> tokens)
    {
        final Path script = ROOT.resolve(program);
        if (!Files.isRegularFile(script))
        {
            return program + " does not exist";
        }
        final String text;
        try
        {
            // Options every script shares (--bundle and the like) are parsed in the common library.
            text = Files.readString(script) + Files.readString(ROOT.resolve("ops/lib/common.sh"));
        }
        catch (final IOException ex)
        {
            return "cannot read " + program + ": " + ex.getMessage();
        }
        for (final String token : tokens)
        {
            if (token.startsWith("--") && token.length() > 2)
            {
                final String option = token.contains("=") ? token.substring(0, token.indexOf('=')) : token;
                if (!Pattern.compile("(^|[\\s|(])" + Pattern.quote(option) + "[)|]", Pattern.MULTILINE)
                    .matcher(text).find())
                {
                    return program + " takes no option " + option;
                }
            }
        }
        return null;
    }

    /** Words up to a shell operator; brackets and alternative bars of a synopsis are dropped. */
    private static List<String> tokens(final String rest)
    {
        final List<String> tokens = new ArrayList<>();
        for (final String raw : rest.trim().split("\\s+"))
        {
            if (raw.equals("&&") || raw.equals(";") || raw.startsWith(">") || raw.startsWith("2>") || raw.equals("#"))
            {
                break;
            }
            final String word = raw.replaceAll("^[\\[(]+|[\\])]+$", "").replaceAll("[\\[\\]]", "");
            if (!word.isEmpty() && !word.equals("|") && !word.equals("…") && !word.equals("..."))
            {
                tokens.add(word);
            }
        }
        return tokens;
    }

    /** Lines of fenced code blocks, and each inline code span outside them. */
    private static List<String> codeLines(final String markdown)
    {
        final List<String> lines = new ArrayList<>();
        boolean fenced = false;
        boolean shell = false;
        for (final String line : markdown.split("\n"))
        {
            if (line.strip().startsWith("```"))
            {
                fenced = !fenced;
                // Blocks tagged with another language (text, json, ...) show files and output, not commands.
                shell = fenced && SHELL_BLOCK.matcher(line.strip().substring(3).strip()).matches();
                continue;
            }
            if (fenced)
            {
                if (!shell)
                {
                    continue;
                }
                lines.add(line.startsWith("$ ") ? line.substring(2) : line);
                continue;
            }
            final Matcher m = INLINE_CODE.matcher(line);
            while (m.find())
            {
                lines.add(m.group(1));
            }
        }
        return lines;
    }

    private static List<Path> pages() throws IOException
    {
        final List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs")))
        {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }
}
