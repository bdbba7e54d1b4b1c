package io.mmx.runtime.node;

/**
 * Keeps a flapping condition from flooding the event log: one kind of event of one process gets at
 * most {@code burst} lines per window of ticks; the lines left out are counted, and the next line
 * that is written says how many. Agent thread only.
 */
final class EventLimiter
{
    private final long windowTicks;
    private final int burst;
    private long windowStartTick = Long.MIN_VALUE / 2;
    private int linesInWindow;
    private long leftOut;

    /**
     * @param windowTicks length of a window, in ticks.
     * @param burst       lines allowed per window.
     */
    EventLimiter(final long windowTicks, final int burst)
    {
        this.windowTicks = Math.max(1, windowTicks);
        this.burst = burst;
    }

    /** A window of {@code windowNs} at the node's tick of {@code tickNs}. */
    static EventLimiter of(final long windowNs, final long tickNs, final int burst)
    {
        return new EventLimiter(windowNs / tickNs, burst);
    }

    /** True if a line may be written at {@code tick}; the caller then writes it through {@link #log}. */
    boolean allows(final long tick)
    {
        if (tick - windowStartTick >= windowTicks)
        {
            windowStartTick = tick;
            linesInWindow = 0;
        }
        return linesInWindow < burst;
    }

    /** Writes the line if the window allows it, else counts it; true if it was written. */
    boolean log(final long tick, final EventLog.Level level, final String event, final int process,
        final String message)
    {
        if (!allows(tick))
        {
            leftOut++;
            return false;
        }
        linesInWindow++;
        EventLog.log(level, event, process, leftOut == 0 ? message :
            message + " (" + leftOut + " earlier lines of this kind left out: it flapped)");
        leftOut = 0;
        return true;
    }
}
