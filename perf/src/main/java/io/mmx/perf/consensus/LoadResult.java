package io.mmx.perf.consensus;

import org.HdrHistogram.Histogram;

/**
 * One closed-loop run of the {@link LoadDriver} against one log at one in-flight bound.
 *
 * @param system         the log's name.
 * @param members        the log's member count.
 * @param inFlight       the bound on commands submitted and not yet committed.
 * @param latencyNs      submit-to-commit latency of commands submitted and committed inside the measured window.
 * @param commits        commits learnt inside the measured window.
 * @param seconds        length of the measured window.
 * @param maxOutstanding the most commands ever outstanding at once (never above {@code inFlight}).
 * @param lost           commands still not committed when the drain after the window gave up.
 * @param unexpected     commits reported for ids not outstanding (duplicates, or lost ones arriving late).
 * @param cpuSeconds     CPU time (utime + stime from /proc) of this JVM and the system's other processes over the
 *                       measured window, client and load driver included; negative if unknown.
 * @param round          which of the benchmark's rounds measured it, from 1.
 */
public record LoadResult(
    String system,
    int members,
    int inFlight,
    Histogram latencyNs,
    long commits,
    double seconds,
    int maxOutstanding,
    long lost,
    long unexpected,
    double cpuSeconds,
    int round)
{
    /** @return this result, measured in {@code round}. */
    public LoadResult inRound(final int round)
    {
        return new LoadResult(system, members, inFlight, latencyNs, commits, seconds, maxOutstanding, lost, unexpected,
            cpuSeconds, round);
    }

    /** @return CPU microseconds per commit over the measured window, or NaN if unknown. */
    public double cpuMicrosPerCommit()
    {
        return cpuSeconds < 0 || commits == 0 ? Double.NaN : cpuSeconds * 1e6 / commits;
    }

    /** @return commits per second over the measured window. */
    public double commitsPerSecond()
    {
        return commits / seconds;
    }
}
