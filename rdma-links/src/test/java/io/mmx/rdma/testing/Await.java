package io.mmx.rdma.testing;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Polls a condition until it holds or a deadline passes: the one way tests here wait for
 * another process or thread. Between checks it parks briefly so that the process under test,
 * on the same two cores, gets to run.
 */
public final class Await
{
    private static final long PAUSE_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private Await()
    {
    }

    /**
     * Returns once {@code condition} holds; fails with {@code describe}'s message if it does not
     * within {@code timeoutNs}. The condition may itself throw to fail early (a child died).
     */
    public static void until(final BooleanSupplier condition, final long timeoutNs, final Supplier<String> describe)
    {
        final long deadlineNs = System.nanoTime() + timeoutNs;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw new AssertionError("timed out after " + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms: " +
                    describe.get());
            }
            LockSupport.parkNanos(PAUSE_NS);
        }
    }
}
