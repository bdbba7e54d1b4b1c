package io.mmx.perf.verbs;

import java.util.Map;

/**
 * One measured cell of the hardware run: {@code procsPerHost} processes of a {@code degree}
 * plan driving one-sided operations through the NIC for {@code elapsedNs}.
 *
 * @param procsPerHost processes driving operations on this host.
 * @param degree       plan degree.
 * @param qps          queue pairs those processes hold (each degree + 1, loopback included).
 * @param ops          operations completed OK.
 * @param errors       operations that ended otherwise (timeouts, refusals).
 * @param elapsedNs    measured time.
 * @param counters     NIC counter deltas over the cell, by key (see {@link NicCounters}).
 */
public record VerbsSweepRow(
    int procsPerHost, int degree, int qps, long ops, long errors, long elapsedNs, Map<String, Long> counters)
{
    /** Completed operations per second. */
    public double opsPerSec()
    {
        return ops * 1e9 / elapsedNs;
    }

    /** Counter {@code name} (summed over devices and ports) per completed operation. */
    public double perOp(final String name)
    {
        return ops == 0 ? 0 : (double)NicCounters.total(counters, name) / ops;
    }
}
