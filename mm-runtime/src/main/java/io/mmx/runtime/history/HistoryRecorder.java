package io.mmx.runtime.history;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/** Thread-safe recorder of invocations and completions; the clock is injected so tests can be deterministic. */
public final class HistoryRecorder
{
    /** Opaque token for one in-flight operation. */
    public record Handle(long id)
    {
    }

    private final LongSupplier clock;
    private final Map<Long, Operation> ops = new LinkedHashMap<>();
    private final Set<Long> done = new HashSet<>();
    private long nextId;

    /** @param clock nanosecond clock, e.g. {@code System::nanoTime} */
    public HistoryRecorder(final LongSupplier clock)
    {
        this.clock = clock;
    }

    /** Records an invocation; {@code value} is the PUT value or CAS new value. */
    public synchronized Handle invoke(final int clientId, final Operation.Kind kind, final String key,
        final String value, final String expected)
    {
        final long id = nextId++;
        // Pending ops are stored as unknown so a snapshot needs no conversion.
        ops.put(id, new Operation(id, clientId, kind, key, value, expected, null, clock.getAsLong(), Long.MAX_VALUE));
        return new Handle(id);
    }

    /** Records a known outcome. */
    public synchronized void complete(final Handle handle, final String result)
    {
        final Operation op = pending(handle);
        final long now = clock.getAsLong();
        ops.put(op.id(), new Operation(op.id(), op.clientId(), op.kind(), op.key(), op.value(), op.expected(), result,
            op.invokeNs(), now));
    }

    /** Records that the outcome will never be known (the op stays open-ended). */
    public synchronized void completeUnknown(final Handle handle)
    {
        // Nothing to update: the op was recorded open-ended; marking it done rejects later completions.
        pending(handle);
    }

    private Operation pending(final Handle handle)
    {
        final Operation op = ops.get(handle.id());
        if (op == null)
        {
            throw new IllegalArgumentException("unknown handle " + handle.id());
        }
        if (!done.add(handle.id()))
        {
            throw new IllegalStateException("operation " + handle.id() + " already completed");
        }
        return op;
    }

    /** @return a snapshot; ops still pending appear with unknown outcome. */
    public synchronized History history()
    {
        return new History(new ArrayList<>(ops.values()));
    }

    /** @return number of ops recorded so far. */
    public synchronized int size()
    {
        return ops.size();
    }
}
