package io.mmx.perf.niccache;

/**
 * The rates that drive the analytic m&amp;m access pattern (DESIGN §4).
 *
 * @param slotsPerSec        log slots decided per second; every live process runs its own acceptor
 *                           transition (one CAS) per slot, and one per slot for each crashed neighbour.
 * @param heartbeatPeriodNs  each live process bumps its heartbeat and reads each neighbour's once per period.
 * @param crashedFraction    fraction of processes crashed (their regions stay, their neighbours act for them).
 * @param catchUpReadsPerSec bulk reads of neighbours' decided logs per live process per second.
 * @param crashSeed          seed that picks which processes are crashed.
 */
public record ProtocolRates(
    double slotsPerSec, long heartbeatPeriodNs, double crashedFraction, double catchUpReadsPerSec, long crashSeed)
{
    /** Defaults for the report: 10,000 slots/s, 1 ms heartbeats, 5 % crashed, 100 catch-up reads/s. */
    public static final ProtocolRates DEFAULT = new ProtocolRates(10_000, 1_000_000, 0.05, 100, 1);

    /** Validates every field at once. */
    public ProtocolRates
    {
        if (!(slotsPerSec >= 0) || Double.isInfinite(slotsPerSec))
        {
            throw new IllegalArgumentException("slots per second must be finite and >= 0, got " + slotsPerSec);
        }
        if (heartbeatPeriodNs < 1)
        {
            throw new IllegalArgumentException("heartbeat period must be at least 1 ns, got " + heartbeatPeriodNs);
        }
        if (!(crashedFraction >= 0 && crashedFraction < 1))
        {
            throw new IllegalArgumentException("crashed fraction must be in [0, 1), got " + crashedFraction);
        }
        if (!(catchUpReadsPerSec >= 0) || Double.isInfinite(catchUpReadsPerSec))
        {
            throw new IllegalArgumentException("catch-up reads per second must be finite and >= 0, got " +
                catchUpReadsPerSec);
        }
    }

    /** Heartbeats per second per process. */
    public double heartbeatsPerSec()
    {
        return 1e9 / heartbeatPeriodNs;
    }
}
