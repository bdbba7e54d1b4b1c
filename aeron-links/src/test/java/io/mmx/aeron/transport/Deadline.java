package io.mmx.aeron.transport;

import java.util.function.BooleanSupplier;

/**
 * Polls a condition while doing work, until it holds or a deadline passes; no sleeping.
 */
public final class Deadline
{
    private Deadline()
    {
    }

    /**
     * @param what      description for the failure message.
     * @param timeoutMs deadline from now.
     * @param work      one step of work (e.g. polling transports), run before each check.
     * @param condition to wait for.
     */
    public static void await(final String what, final long timeoutMs, final Runnable work, final BooleanSupplier condition)
    {
        final long deadlineNs = System.nanoTime() + timeoutMs * 1_000_000L;
        while (true)
        {
            work.run();
            if (condition.getAsBoolean())
            {
                return;
            }
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw new AssertionError("timed out after " + timeoutMs + " ms waiting for " + what);
            }
            Thread.yield();
        }
    }
}
