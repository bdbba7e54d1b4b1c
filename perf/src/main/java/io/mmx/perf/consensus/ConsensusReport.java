package io.mmx.perf.consensus;

import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.Locale;

/**
 * The benchmark's markdown section: one table row per system, member count and in-flight bound, with
 * ratios to the baseline's row at the same in-flight bound, then notes on health and failures.
 */
final class ConsensusReport
{
    private ConsensusReport()
    {
    }

    /**
     * @param header  one line saying when, where and with which settings.
     * @param results every measured row, in run order.
     * @param notes   one line each: start times, diagnostics, failures.
     * @return the markdown section, starting with its heading.
     */
    static String markdown(final String header, final List<LoadResult> results, final List<String> notes)
    {
        final StringBuilder out = new StringBuilder();
        out.append("## Consensus: commit latency and throughput against Aeron Cluster\n\n");
        out.append(header).append("\n\n");
        out.append("| system | n | in-flight | p50 µs | p90 µs | p99 µs | p99.9 µs | max µs | commits/s " +
            "| CPU µs/commit | p50 × | p99 × | commits/s × | CPU/commit × |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (final LoadResult r : results)
        {
            final Histogram h = r.latencyNs();
            final LoadResult base = baselineFor(results, r.inFlight());
            out.append(String.format(Locale.ROOT,
                "| %s | %d | %d | %s | %s | %s | %s | %s | %.0f | %s | %s | %s | %s | %s |%n",
                r.system(), r.members(), r.inFlight(),
                us(h, 50), us(h, 90), us(h, 99), us(h, 99.9), us(h, 100), r.commitsPerSecond(),
                Double.isNaN(r.cpuMicrosPerCommit()) ? "n/a" : String.format(Locale.ROOT, "%.1f", r.cpuMicrosPerCommit()),
                base == null ? "n/a" : ratio(percentile(h, 50), percentile(base.latencyNs(), 50)),
                base == null ? "n/a" : ratio(percentile(h, 99), percentile(base.latencyNs(), 99)),
                base == null ? "n/a" : ratio(r.commitsPerSecond(), base.commitsPerSecond()),
                base == null || Double.isNaN(r.cpuMicrosPerCommit()) || Double.isNaN(base.cpuMicrosPerCommit()) ? "n/a" :
                ratio(r.cpuMicrosPerCommit(), base.cpuMicrosPerCommit())));
        }
        out.append('\n');
        out.append("Ratios are to ").append(ConsensusSystems.BASELINE)
            .append(" at the same in-flight bound: × above 1 is slower latency, a higher commit rate or more CPU ")
            .append("per commit. CPU is utime + stime from /proc of every process of the system over the measured ")
            .append("window, the client and load driver included: on a shared machine it is steadier than the rates, ")
            .append("which depend on how much of the cores the system got.\n");
        for (final String note : notes)
        {
            out.append("\n- ").append(note);
        }
        return out.append('\n').toString();
    }

    /** @return the baseline's row at this in-flight bound, or null if the baseline did not run. */
    static LoadResult baselineFor(final List<LoadResult> results, final int inFlight)
    {
        for (final LoadResult r : results)
        {
            if (r.system().equals(ConsensusSystems.BASELINE) && r.inFlight() == inFlight)
            {
                return r;
            }
        }
        return null;
    }

    private static double percentile(final Histogram h, final double percentile)
    {
        return h.getTotalCount() == 0 ? Double.NaN :
            percentile >= 100 ? h.getMaxValue() : h.getValueAtPercentile(percentile);
    }

    private static String us(final Histogram h, final double percentile)
    {
        final double ns = percentile(h, percentile);
        return Double.isNaN(ns) ? "n/a" : String.format(Locale.ROOT, "%.1f", ns / 1000.0);
    }

    private static String ratio(final double value, final double base)
    {
        return Double.isNaN(value) || Double.isNaN(base) || base == 0 ? "n/a" :
            String.format(Locale.ROOT, "%.2f", value / base);
    }
}
