package io.mmx.runtime.node;

/**
 * The event lines of a condition that comes and goes (a neighbour suspected, a process blocked):
 * one line when it starts and one when it ends, limited by an {@link EventLimiter}. When the limit
 * left out the last change, the state the log shows would be wrong, so the next tick the limit
 * allows writes the condition as it is now. Agent thread only.
 */
final class ConditionEvents
{
    private final String onEvent;
    private final EventLog.Level onLevel;
    private final String offEvent;
    private final EventLog.Level offLevel;
    private final int process;
    private final EventLimiter limiter;
    private boolean on;
    private boolean logged;
    private String pendingMessage;

    ConditionEvents(final String onEvent, final EventLog.Level onLevel, final String offEvent,
        final EventLog.Level offLevel, final int process, final EventLimiter limiter)
    {
        this.onEvent = onEvent;
        this.onLevel = onLevel;
        this.offEvent = offEvent;
        this.offLevel = offLevel;
        this.process = process;
        this.limiter = limiter;
    }

    /** Whether the condition holds now. */
    boolean on()
    {
        return on;
    }

    /** The condition now holds ({@code true}) or no longer does; {@code message} says so to people. */
    void change(final boolean now, final long tick, final String message)
    {
        if (now == on)
        {
            return;
        }
        on = now;
        if (limiter.log(tick, on ? onLevel : offLevel, on ? onEvent : offEvent, process, message))
        {
            logged = on;
            pendingMessage = null;
        }
        else
        {
            pendingMessage = message;
        }
    }

    /** Writes the current state if a limited line left the log showing the other one. */
    void onTick(final long tick)
    {
        if (pendingMessage != null && logged != on && limiter.allows(tick))
        {
            final String message = pendingMessage;
            pendingMessage = null;
            limiter.log(tick, on ? onLevel : offLevel, on ? onEvent : offEvent, process, message);
            logged = on;
        }
        else if (logged == on)
        {
            pendingMessage = null;
        }
    }
}
