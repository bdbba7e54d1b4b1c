package io.mmx.perf.niccache;

import java.util.List;
import java.util.Locale;

/**
 * Formats the calibration, the sweep and the crossover as markdown, and the sweep as two SVG
 * plots (miss rate and NIC capacity against degree, one line per processes-per-host).
 */
final class ReportWriter
{
    private ReportWriter()
    {
    }

    static String markdown(
        final NicPreset preset, final ProtocolRates rates, final int n, final List<Calibration.Point> calibration,
        final List<SweepRow> rows, final int[] procsPerHost, final int extendedProcsPerHost,
        final List<SweepRow> extended)
    {
        final NicModel m = preset.model();
        final StringBuilder md = new StringBuilder(8192);
        md.append("# NIC QP-context cache model: ").append(m.name()).append(", n = ").append(n).append("\n\n");
        md.append(String.format(Locale.ROOT,
            "NIC: %d entries, %d-way LRU, %.0f M ops/s peak, miss penalty %.0f ns × weight (READ %.3f, " +
            "WRITE %.3f, CAS %.3f).%n%n", m.entries(), m.ways(), m.peakOpsPerSec() / 1e6, m.missPenaltyNs(),
            m.readWeight(), m.writeWeight(), m.casWeight()));
        md.append(String.format(Locale.ROOT,
            "Protocol: %.0f slots/s, heartbeat every %.3f ms, %.1f %% of processes crashed, %.0f catch-up " +
            "reads/s per process. A model, not a measurement.%n%n",
            rates.slotsPerSec(), rates.heartbeatPeriodNs() / 1e6, rates.crashedFraction() * 100,
            rates.catchUpReadsPerSec()));
        md.append("## Calibration\n\n| figure | published | model | error |\n|---|---:|---:|---:|\n");
        for (final Calibration.Point p : calibration)
        {
            md.append(String.format(Locale.ROOT, "| %s | %.3f | %.3f | %.1f %% |%n",
                p.what(), p.published(), p.modelled(), 100 * p.relativeError()));
        }
        md.append("\n## Per NIC against degree\n\n");
        md.append("| procs/host | degree | QPs/NIC | offered Mops/s | miss rate | READ miss rate | " +
            "capacity Mops/s | predicted Mops/s | utilisation |\n");
        md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (final SweepRow r : rows)
        {
            md.append(String.format(Locale.ROOT, "| %d | %s | %.0f | %.3f | %.4f | %.4f | %.2f | %.3f | %.3f |%n",
                r.procsPerHost(), r.degreeLabel(), r.qpsPerNic(), r.offeredOpsPerSec() / 1e6, r.missRate(),
                r.readMissRate(), r.capacityOpsPerSec() / 1e6, r.predictedOpsPerSec() / 1e6, r.utilisation()));
        }
        md.append("\n## Where the plan beats the full mesh\n\n");
        md.append("A degree beats the full mesh when its miss rate is lower and its capacity at least 10 % higher.\n\n");
        for (final int p : procsPerHost)
        {
            md.append("- ").append(p).append(" processes/host: ").append(crossoverSentence(rows, p)).append('\n');
        }
        final SweepRow mesh = fullMesh(rows, extendedProcsPerHost);
        md.append("\n## Beyond the sweep at ").append(extendedProcsPerHost).append(" processes/host\n\n");
        md.append("| degree | QPs/NIC | offered Mops/s | miss rate | capacity Mops/s | utilisation | beats full mesh |\n");
        md.append("|---:|---:|---:|---:|---:|---:|---|\n");
        for (final SweepRow r : extended)
        {
            md.append(String.format(Locale.ROOT, "| %d | %.0f | %.3f | %.4f | %.2f | %.3f | %s |%n", r.degree(),
                r.qpsPerNic(), r.offeredOpsPerSec() / 1e6, r.missRate(), r.capacityOpsPerSec() / 1e6,
                r.utilisation(), r.beats(mesh) ? "yes" : "no"));
        }
        md.append(String.format(Locale.ROOT, "%nFull mesh: utilisation %.2f. %s%n", mesh.utilisation(),
            saturationSentence(rows, extended, extendedProcsPerHost)));
        return md.toString();
    }

    static String crossoverSentence(final List<SweepRow> rows, final int procsPerHost)
    {
        final SweepRow mesh = fullMesh(rows, procsPerHost);
        final StringBuilder beating = new StringBuilder();
        final StringBuilder losing = new StringBuilder();
        for (final SweepRow r : rows)
        {
            if (r.procsPerHost() == procsPerHost && !r.fullMesh())
            {
                final StringBuilder into = r.beats(mesh) ? beating : losing;
                into.append(into.length() == 0 ? "" : ", ").append(r.degree());
            }
        }
        final String verdict = losing.length() == 0 ? "beats the full mesh at every swept degree (" + beating + ")" :
            beating.length() == 0 ? "beats the full mesh at no swept degree" :
            "beats the full mesh at degree " + beating + ", not at " + losing;
        return String.format(Locale.ROOT, "%s; full mesh: %.0f QPs/NIC, miss rate %.3f, capacity %.2f Mops/s",
            verdict, mesh.qpsPerNic(), mesh.missRate(), mesh.capacityOpsPerSec() / 1e6);
    }

    /** A section comparing a plan file with the full mesh on the plan's own placement. */
    static String planSection(final String source, final List<SweepRow> planAndMesh)
    {
        final SweepRow plan = planAndMesh.get(0);
        final SweepRow mesh = planAndMesh.get(1);
        final StringBuilder md = new StringBuilder();
        md.append("\n## The plan ").append(source).append("\n\n");
        md.append("| graph | procs/host | QPs/NIC | offered Mops/s | miss rate | capacity Mops/s | utilisation |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|\n");
        for (final SweepRow r : planAndMesh)
        {
            md.append(String.format(Locale.ROOT, "| %s | %d | %.0f | %.3f | %.4f | %.2f | %.3f |%n",
                r.fullMesh() ? "full mesh" : "plan, degree " + r.degree(), r.procsPerHost(), r.qpsPerNic(),
                r.offeredOpsPerSec() / 1e6, r.missRate(), r.capacityOpsPerSec() / 1e6, r.utilisation()));
        }
        md.append("\nThe plan ").append(plan.beats(mesh) ? "beats" : "does not beat").append(" the full mesh.\n");
        return md.toString();
    }

    /** Names the smallest plan degree whose offered load saturates the NIC (utilisation at least 1). */
    static String saturationSentence(final List<SweepRow> rows, final List<SweepRow> extended, final int procsPerHost)
    {
        int largestUnsaturated = -1;
        int smallestSaturated = -1;
        for (final List<SweepRow> list : List.of(rows, extended))
        {
            for (final SweepRow r : list)
            {
                if (r.procsPerHost() != procsPerHost || r.fullMesh())
                {
                    continue;
                }
                if (r.utilisation() < 1)
                {
                    largestUnsaturated = Math.max(largestUnsaturated, r.degree());
                }
                else if (smallestSaturated < 0 || r.degree() < smallestSaturated)
                {
                    smallestSaturated = r.degree();
                }
            }
        }
        return smallestSaturated < 0 ?
            "No plan degree tried saturates the NIC (largest tried: " + largestUnsaturated + ")." :
            "The NIC keeps up with the protocol up to degree " + largestUnsaturated + " and saturates from degree " +
            smallestSaturated + ", as the full mesh does.";
    }

    static SweepRow fullMesh(final List<SweepRow> rows, final int procsPerHost)
    {
        for (final SweepRow r : rows)
        {
            if (r.fullMesh() && r.procsPerHost() == procsPerHost)
            {
                return r;
            }
        }
        throw new IllegalArgumentException("no full-mesh row for " + procsPerHost + " processes per host");
    }

    static String plot(final List<SweepRow> rows, final int[] procsPerHost, final int[] degrees, final int n,
        final boolean missRate, final String nicName)
    {
        final SvgPlot plot = new SvgPlot(
            (missRate ? "QP-context miss rate" : "NIC capacity for the m&m mix") + " vs degree (" + nicName +
                ", n = " + n + ")",
            "plan degree (log scale; rightmost: full mesh, degree " + (n - 1) + ")",
            missRate ? "miss rate" : "capacity, M one-sided ops/s");
        for (final int d : degrees)
        {
            plot.xTick(d, Integer.toString(d));
        }
        plot.xTick(n - 1, "full");
        for (final int p : procsPerHost)
        {
            final double[] xs = new double[degrees.length + 1];
            final double[] ys = new double[degrees.length + 1];
            int i = 0;
            for (final SweepRow r : rows)
            {
                if (r.procsPerHost() == p)
                {
                    xs[i] = r.degree();
                    ys[i] = missRate ? r.missRate() : r.capacityOpsPerSec() / 1e6;
                    i++;
                }
            }
            plot.series(p + " procs/host", xs, ys);
        }
        return plot.render();
    }
}
