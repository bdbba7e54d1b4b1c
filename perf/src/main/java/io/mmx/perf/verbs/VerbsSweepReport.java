package io.mmx.perf.verbs;

import io.mmx.perf.niccache.SweepRow;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Writes the hardware run in the layout of the NIC cache model's report ("Per NIC against
 * degree"), with the model's cell for the same processes per host and degree beside each
 * measured row, so model and measurement can be read side by side.
 */
public final class VerbsSweepReport
{
    private VerbsSweepReport()
    {
    }

    /**
     * @param title  what ran (NIC, host, date).
     * @param rows   measured cells.
     * @param model  the model's cells; a measured row without a model cell shows "-".
     */
    public static String markdown(final String title, final List<VerbsSweepRow> rows, final List<SweepRow> model)
    {
        final List<String> counters = new ArrayList<>();
        for (final String name : NicCounters.REPORTED)
        {
            if (rows.stream().anyMatch((r) -> NicCounters.has(r.counters(), name)))
            {
                counters.add(name);
            }
        }
        final StringBuilder md = new StringBuilder(4096);
        md.append("# Verbs hardware run: ").append(title).append("\n\n");
        md.append("Measured: completed one-sided operations (CAS and 8-byte READ alternating) per second through the " +
            "NIC, and NIC counter deltas per operation. Model: the NIC cache model's cell for the same processes " +
            "per host and degree (its QPs/NIC are for the model's whole cluster, not this host).\n\n");
        md.append("| procs/host | degree | QPs | measured Mops/s | errors | model QPs/NIC | model predicted Mops/s | " +
            "model miss rate |");
        counters.forEach((c) -> md.append(' ').append(c).append("/op |"));
        md.append("\n|---:|---:|---:|---:|---:|---:|---:|---:|");
        counters.forEach((c) -> md.append("---:|"));
        md.append('\n');
        for (final VerbsSweepRow r : rows)
        {
            final SweepRow m = modelCell(model, r.procsPerHost(), r.degree());
            md.append(String.format(Locale.ROOT, "| %d | %d | %d | %.3f | %d | %s | %s | %s |", r.procsPerHost(),
                r.degree(), r.qps(), r.opsPerSec() / 1e6, r.errors(),
                m == null ? "-" : String.format(Locale.ROOT, "%.0f", m.qpsPerNic()),
                m == null ? "-" : String.format(Locale.ROOT, "%.3f", m.predictedOpsPerSec() / 1e6),
                m == null ? "-" : String.format(Locale.ROOT, "%.4f", m.missRate())));
            for (final String c : counters)
            {
                md.append(NicCounters.has(r.counters(), c) ?
                    String.format(Locale.ROOT, " %.4f |", r.perOp(c)) : " - |");
            }
            md.append('\n');
        }
        if (counters.isEmpty())
        {
            md.append("\nThe NIC exposed none of the counters ").append(NicCounters.REPORTED)
                .append(" in /sys/class/infiniband or ethtool -S.\n");
        }
        md.append("\nNo Linux interface counts PCIe read requests directly; outbound_pci_stalled_* (mlx5, ethtool -S) " +
            "are the closest proxy for the extra reads of QP-context cache misses.\n");
        return md.toString();
    }

    private static SweepRow modelCell(final List<SweepRow> model, final int procsPerHost, final int degree)
    {
        for (final SweepRow m : model)
        {
            if (m.procsPerHost() == procsPerHost && m.degree() == degree && !m.fullMesh())
            {
                return m;
            }
        }
        return null;
    }
}
