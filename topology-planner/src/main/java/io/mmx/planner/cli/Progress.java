package io.mmx.planner.cli;

import io.mmx.planner.plan.ProgressListener;
import picocli.CommandLine;

import java.io.PrintWriter;

/** Progress lines on stderr for long work, so that a plan of a million processes is not silent. */
final class Progress
{
    /** Below this many processes every stage takes well under a second: stay quiet. */
    private static final int QUIET_BELOW_N = 100_000;

    private Progress()
    {
    }

    static ProgressListener toStderr(final CommandLine.Model.CommandSpec spec, final int n)
    {
        if (n < QUIET_BELOW_N && System.getenv("TOPO_PROGRESS") == null)
        {
            return ProgressListener.NONE;
        }
        final PrintWriter err = spec.commandLine().getErr();
        final long startNs = System.nanoTime();
        return stage ->
        {
            err.printf("topo: %6.1f s  %s%n", (System.nanoTime() - startNs) / 1e9, stage);
            err.flush();
        };
    }
}
