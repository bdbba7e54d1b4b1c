package io.mmx.membership;

/**
 * The gaps between a process's own ticks that were stalls, not time: a host calls its membership
 * once a tick, so a gap of many ticks means the process did not run (its JVM waited for a core, or
 * paused). Deadlines and ages that stand for what the process could observe (a probe's answer, a
 * claim's freshness) must not run on through such a gap, or a process that wakes would blame others
 * for its own silence before it polls the news that came meanwhile. Gaps shorter than the bound (an
 * idle host parks between ticks) count as time. Sans-IO: fed the host's ticks.
 */
public final class OwnStalls
{
    private final long minGapTicks;
    private long lastTick = Long.MIN_VALUE;
    private long stalledTicks;

    /** @param minGapTicks a gap of at least this many ticks (at least 2) is a stall. */
    public OwnStalls(final long minGapTicks)
    {
        if (minGapTicks < 2)
        {
            throw new IllegalArgumentException("a stall is a gap of at least 2 ticks, got " + minGapTicks);
        }
        this.minGapTicks = minGapTicks;
    }

    /**
     * @param nowTick this tick of the host.
     * @return the ticks of the gap since the last call that were a stall (the gap less one), or 0.
     */
    public long onTick(final long nowTick)
    {
        final long gap = lastTick == Long.MIN_VALUE ? 0 : nowTick - lastTick;
        lastTick = nowTick;
        if (gap < minGapTicks)
        {
            return 0;
        }
        stalledTicks += gap - 1;
        return gap - 1;
    }

    /** @return every stalled tick so far. */
    public long stalledTicks()
    {
        return stalledTicks;
    }
}
