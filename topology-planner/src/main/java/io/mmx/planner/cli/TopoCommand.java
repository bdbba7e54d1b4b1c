package io.mmx.planner.cli;

import io.mmx.planner.graph.InvalidGraphException;
import io.mmx.planner.io.GraphFileException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * {@code topo}: plans shared-memory graphs for mmx and proves how many crashes they tolerate.
 * Each subcommand is its own class; this one wires them and maps errors to exit codes.
 */
@Command(
    name = "topo",
    mixinStandardHelpOptions = true,
    versionProvider = TopoCommand.Version.class,
    description = {
        "Plans the shared-memory graph of an mmx cluster and proves its crash tolerance.",
        "Consensus stays live while the live set S has |N[S]| > n/2; f_max is the largest number of " +
        "crashed processes that every live set of that size survives."},
    subcommands = {
        PlanCommand.class,
        AnalyzeCommand.class,
        VerifyCommand.class,
        DiffCommand.class,
        GrowCommand.class,
        ShrinkCommand.class,
        ReportCommand.class,
        ExportCommand.class,
        CommandLine.HelpCommand.class},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:success",
        "1:a plan failed verification",
        "2:bad arguments or input file",
        "3:I/O error"})
public final class TopoCommand implements Runnable
{
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run()
    {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a command: plan, analyze, verify, diff, " +
            "grow, shrink, report or export (topo --help lists them)");
    }

    /** Builds the command line with topo's error handling; tests call this too. */
    public static CommandLine commandLine()
    {
        final CommandLine line = new CommandLine(new TopoCommand());
        line.setExecutionExceptionHandler((ex, cmd, parseResult) ->
        {
            final Throwable cause = ex instanceof UncheckedIOException ? ex.getCause() : ex;
            final boolean expected = cause instanceof GraphFileException || cause instanceof InvalidGraphException ||
                cause instanceof IllegalArgumentException || cause instanceof IOException;
            cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": error: " +
                (expected ? cause.getMessage() : unexpected(cause)));
            cmd.getErr().flush();
            if (cause instanceof GraphFileException || cause instanceof InvalidGraphException ||
                cause instanceof IllegalArgumentException)
            {
                return ExitCodes.BAD_INPUT;
            }
            return ExitCodes.IO_ERROR;
        });
        line.setParameterExceptionHandler((ex, args) ->
        {
            final CommandLine cmd = ex.getCommandLine();
            cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": error: " + ex.getMessage());
            cmd.getErr().println("Run '" + cmd.getCommandSpec().qualifiedName() + " --help' for the options.");
            cmd.getErr().flush();
            return ExitCodes.BAD_INPUT;
        });
        return line;
    }

    /**
     * One sentence for a failure no check foresaw: what was thrown and where, and what to do. The
     * heap running out gets its own fix.
     */
    public static String unexpected(final Throwable cause)
    {
        if (cause instanceof OutOfMemoryError)
        {
            return "the JVM ran out of memory (" + cause.getMessage() + "): give it a larger heap, e.g. " +
                "MMX_JAVA_OPTS='-Xmx16g -XX:+UseParallelGC', or work on a smaller graph";
        }
        final StackTraceElement[] trace = cause.getStackTrace();
        return "unexpected " + cause + (trace.length == 0 ? "" : " at " + trace[0]) +
            ": this is a bug; report it with the command line that caused it";
    }

    /** Runs {@code topo} with {@code args} and exits with its code. */
    public static void main(final String[] args)
    {
        System.exit(commandLine().execute(args));
    }

    /** Prints the release version, the same as {@code mmx --version}. */
    static final class Version implements CommandLine.IVersionProvider
    {
        @Override
        public String[] getVersion()
        {
            return new String[] {"topo (mmx) " + ReleaseVersion.get()};
        }
    }
}
