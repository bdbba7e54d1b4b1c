package io.mmx.runtime.cli;

import io.mmx.planner.io.GraphFileException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * {@code mmx}: runs mmx nodes, memory daemons and local clusters, and shows their status.
 */
@Command(
    name = "mmx",
    mixinStandardHelpOptions = true,
    versionProvider = MmxCommand.Version.class,
    description = {
        "Consensus over memory that outlives its process: m&m Paxos along a planned expander.",
        "Try 'mmx demo': a 32-process cluster on this machine that keeps committing after more than half " +
        "of its processes are killed with SIGKILL."},
    subcommands = {
        DemoCommand.class,
        NodeCommand.class,
        io.mmx.rdma.memd.MemdCommandLine.class,
        LocalCommand.class,
        StatusCommand.class,
        ReconfigureCommand.class,
        SimCommand.class,
        SelfcheckCommand.class,
        KeysCommand.class,
        KvCommand.class,
        CommandLine.HelpCommand.class},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:success",
        "1:the cluster did not do what was asked (demo or status found it unhealthy; sim found a failing seed)",
        "2:bad arguments or input file",
        "3:I/O or start-up error"})
public final class MmxCommand implements Runnable
{
    /** Success. */
    static final int OK = 0;
    /** The cluster is unhealthy or the demo failed its claim. */
    static final int UNHEALTHY = 1;
    /** Bad arguments or input. */
    static final int BAD_INPUT = 2;
    /** I/O or start-up failure. */
    static final int IO_ERROR = 3;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run()
    {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "name a command: demo, node, memd, local, status, reconfigure, kv, keys, sim or selfcheck (mmx --help lists them)");
    }

    /** The command line with mmx's error handling. */
    public static CommandLine commandLine()
    {
        final CommandLine line = new CommandLine(new MmxCommand());
        line.setExecutionExceptionHandler((ex, cmd, parseResult) ->
        {
            final Throwable cause = ex instanceof UncheckedIOException ? ex.getCause() : ex;
            // A wrapper written with its own sentence (which address, which fix) says more than its cause.
            final boolean worded = ex instanceof UncheckedIOException && ex.getCause() != null &&
                !ex.getMessage().equals(ex.getCause().toString());
            final boolean expected = cause instanceof GraphFileException || cause instanceof IllegalArgumentException ||
                cause instanceof IOException || cause instanceof IllegalStateException ||
                cause instanceof io.mmx.rdma.verbs.VerbsUnavailableException;
            cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": error: " + (worded ? ex.getMessage() :
                expected ? cause.getMessage() : io.mmx.planner.cli.TopoCommand.unexpected(cause)));
            cmd.getErr().flush();
            if (cause instanceof GraphFileException || cause instanceof IllegalArgumentException)
            {
                return BAD_INPUT;
            }
            return IO_ERROR;
        });
        line.setParameterExceptionHandler((ex, args) ->
        {
            final CommandLine cmd = ex.getCommandLine();
            cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": error: " + ex.getMessage());
            cmd.getErr().println("Run '" + cmd.getCommandSpec().qualifiedName() + " --help' for the options.");
            return BAD_INPUT;
        });
        return line;
    }

    /** Entry point of {@code bin/mmx}. */
    public static void main(final String[] args)
    {
        System.exit(commandLine().execute(args));
    }

    /** Prints the release version, the same as {@code topo --version}. */
    static final class Version implements CommandLine.IVersionProvider
    {
        @Override
        public String[] getVersion()
        {
            return new String[] {"mmx " + io.mmx.planner.cli.ReleaseVersion.get()};
        }
    }
}
