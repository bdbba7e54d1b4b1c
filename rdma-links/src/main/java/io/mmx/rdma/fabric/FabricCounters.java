package io.mmx.rdma.fabric;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts outcomes by {@link OpStatus}, so that refusals (non-neighbour, out of bounds, bad key,
 * ...) are visible to operators. Thread-safe: a daemon's I/O thread increments while a health
 * check reads.
 */
public final class FabricCounters
{
    private final AtomicLongArray byStatus = new AtomicLongArray(OpStatus.count());
    private final AtomicLongArray other = new AtomicLongArray(Other.values().length);

    /** Events that are not the outcome of one well-formed operation. */
    public enum Other
    {
        /** A frame that could not be parsed (bad length, bad version, truncated); the connection was closed. */
        MALFORMED_FRAME,
        /** A connection refused because the connection limit was reached. */
        CONNECTION_REFUSED,
        /** A frame whose request id did not increase (replay); refused. */
        REPLAYED_REQUEST,
        /** A completion that arrived after its operation had already timed out; dropped. */
        LATE_COMPLETION
    }

    /** Counts one operation outcome. */
    public void increment(final OpStatus status)
    {
        byStatus.incrementAndGet(status.ordinal());
    }

    /** Counts one other event. */
    public void increment(final Other event)
    {
        other.incrementAndGet(event.ordinal());
    }

    /** Operations that ended with {@code status}. */
    public long get(final OpStatus status)
    {
        return byStatus.get(status.ordinal());
    }

    /** Occurrences of {@code event}. */
    public long get(final Other event)
    {
        return other.get(event.ordinal());
    }

    /** Operations refused or failed, i.e. every status except OK. */
    public long errors()
    {
        long sum = 0;
        for (int i = 1; i < byStatus.length(); i++)
        {
            sum += byStatus.get(i);
        }
        return sum;
    }

    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder("FabricCounters{");
        for (final OpStatus s : OpStatus.values())
        {
            final long v = get(s);
            if (v != 0)
            {
                sb.append(s).append('=').append(v).append(' ');
            }
        }
        for (final Other o : Other.values())
        {
            final long v = get(o);
            if (v != 0)
            {
                sb.append(o).append('=').append(v).append(' ');
            }
        }
        return sb.append('}').toString();
    }
}
