package io.mmx.rdma.fabric;

import org.junit.jupiter.api.Assertions;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** Synchronous helpers over the asynchronous fabric, for tests only. */
public final class FabricTestSupport
{
    /** Default per-operation timeout used by tests. */
    public static final long OP_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(5);

    private FabricTestSupport()
    {
    }

    /** The completion of one operation. */
    public record Completion(long correlationId, OpType type, int owner, OpStatus status, long value)
    {
    }

    // Completions that arrived while a test waited for another id, kept per fabric.
    private static final Map<MemoryFabric, Map<Long, Completion>> EARLY = new ConcurrentHashMap<>();

    /** Polls until the completion of {@code correlationId} arrives, failing after a deadline. */
    public static Completion await(final MemoryFabric fabric, final long correlationId)
    {
        Assertions.assertTrue(correlationId > 0, () -> "submission was rejected: " + MemoryFabric.rejection(correlationId));
        final Map<Long, Completion> early = EARLY.computeIfAbsent(fabric, (f) -> new ConcurrentHashMap<>());
        final long deadlineNs = System.nanoTime() + 2 * OP_TIMEOUT_NS;
        while (!early.containsKey(correlationId))
        {
            final int work = fabric.poll((id, type, owner, status, value) ->
                early.put(id, new Completion(id, type, owner, status, value)), 16);
            if (work == 0)
            {
                if (System.nanoTime() - deadlineNs > 0)
                {
                    Assertions.fail("no completion for operation " + correlationId + " before the test deadline");
                }
                // Yield rather than spin: tests share few cores with the daemon thread they wait on.
                Thread.yield();
            }
        }
        return early.remove(correlationId);
    }

    /** Reads a word, expecting OK. */
    public static long readOk(final MemoryFabric fabric, final int owner, final long offset)
    {
        final Completion c = await(fabric, fabric.read(owner, offset, OP_TIMEOUT_NS));
        Assertions.assertEquals(OpStatus.OK, c.status(), "read of process " + owner + " offset " + offset);
        return c.value();
    }

    /** Status of an operation that is run to completion. */
    public static OpStatus status(final MemoryFabric fabric, final long correlationId)
    {
        return await(fabric, correlationId).status();
    }
}
