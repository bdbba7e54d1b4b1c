package io.mmx.perf.consensus;

import io.mmx.perf.Median;
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
        final int rounds = results.stream().mapToInt(LoadResult::round).max().orElse(1);
        if (rounds > 1)
        {
            medians(out, results, rounds);
        }
        else
        {
            rows(out, results);
        }
        for (final String note : notes)
        {
            out.append("\n- ").append(note);
        }
        return out.append('\n').toString();
    }

    /** One row per measurement, ratios to the baseline's row at the same in-flight bound. */
    private static void rows(final StringBuilder out, final List<LoadResult> results)
    {
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
    }

    /**
     * Several rounds: one row per system, member count and in-flight bound, each figure the median of
     * its rounds; each ratio is taken within a round (against that round's baseline row at the same
     * in-flight bound), then the median of those ratios with their range, so that drift in the
     * machine's load between rounds does not enter a ratio.
     */
    private static void medians(final StringBuilder out, final List<LoadResult> results, final int rounds)
    {
        out.append("| system | n | in-flight | rounds | p50 µs | p99 µs | commits/s | CPU µs/commit | p50 × | p99 × " +
            "| commits/s × | CPU/commit × |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        final java.util.Map<String, List<LoadResult>> groups = new java.util.LinkedHashMap<>();
        for (final LoadResult r : results)
        {
            groups.computeIfAbsent(r.system() + " " + r.members() + " " + r.inFlight(), k -> new java.util.ArrayList<>())
                .add(r);
        }
        for (final List<LoadResult> group : groups.values())
        {
            final LoadResult first = group.get(0);
            final double[][] ratios = new double[4][group.size()];
            int paired = 0;
            for (final LoadResult r : group)
            {
                final LoadResult base = baselineFor(results, r.inFlight(), r.round());
                if (base != null)
                {
                    ratios[0][paired] = percentile(r.latencyNs(), 50) / percentile(base.latencyNs(), 50);
                    ratios[1][paired] = percentile(r.latencyNs(), 99) / percentile(base.latencyNs(), 99);
                    ratios[2][paired] = r.commitsPerSecond() / base.commitsPerSecond();
                    ratios[3][paired] = r.cpuMicrosPerCommit() / base.cpuMicrosPerCommit();
                    paired++;
                }
            }
            out.append(String.format(Locale.ROOT, "| %s | %d | %d | %d of %d | %s | %s | %.0f | %s | %s | %s | %s | %s |%n",
                first.system(), first.members(), first.inFlight(), group.size(), rounds,
                micros(Median.of(group.stream().mapToDouble(r -> percentile(r.latencyNs(), 50)).toArray())),
                micros(Median.of(group.stream().mapToDouble(r -> percentile(r.latencyNs(), 99)).toArray())),
                Median.of(group.stream().mapToDouble(LoadResult::commitsPerSecond).toArray()),
                decimal(Median.of(group.stream().mapToDouble(LoadResult::cpuMicrosPerCommit).toArray())),
                spread(ratios[0], paired), spread(ratios[1], paired), spread(ratios[2], paired), spread(ratios[3], paired)));
        }
        out.append('\n');
        out.append("Each figure is the median of the rounds the row ran in. Each ratio is taken within a round, ")
            .append("against that round's ").append(ConsensusSystems.BASELINE)
            .append(" row at the same in-flight bound; the table gives the median of those ratios and, in brackets, ")
            .append("their lowest and highest. × above 1 is slower latency, a higher commit rate or more CPU per commit. ")
            .append("CPU is utime + stime from /proc of every process of the system over the measured window, the ")
            .append("client and load driver included.\n");
    }

    /** The median of the first {@code count} ratios and their range, or n/a. */
    static String spread(final double[] ratios, final int count)
    {
        final double[] v = java.util.Arrays.stream(ratios, 0, count).filter(x -> !Double.isNaN(x) &&
            !Double.isInfinite(x)).toArray();
        if (v.length == 0)
        {
            return "n/a";
        }
        java.util.Arrays.sort(v);
        return v.length == 1 ? String.format(Locale.ROOT, "%.2f", v[0]) :
            String.format(Locale.ROOT, "%.2f (%.2f–%.2f)", Median.of(v), v[0], v[v.length - 1]);
    }

    private static String micros(final double ns)
    {
        return Double.isNaN(ns) ? "n/a" : String.format(Locale.ROOT, "%.1f", ns / 1000.0);
    }

    private static String decimal(final double value)
    {
        return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%.1f", value);
    }

    /** @return the baseline's row at this in-flight bound, or null if the baseline did not run. */
    static LoadResult baselineFor(final List<LoadResult> results, final int inFlight)
    {
        return baselineFor(results, inFlight, 1);
    }

    /** @return the baseline's row at this in-flight bound in this round, or null if it did not run then. */
    static LoadResult baselineFor(final List<LoadResult> results, final int inFlight, final int round)
    {
        for (final LoadResult r : results)
        {
            if (r.system().equals(ConsensusSystems.BASELINE) && r.inFlight() == inFlight && r.round() == round)
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
        return micros(percentile(h, percentile));
    }

    private static String ratio(final double value, final double base)
    {
        return Double.isNaN(value) || Double.isNaN(base) || base == 0 ? "n/a" :
            String.format(Locale.ROOT, "%.2f", value / base);
    }
}
