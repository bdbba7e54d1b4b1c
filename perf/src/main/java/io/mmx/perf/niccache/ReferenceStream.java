package io.mmx.perf.niccache;

/**
 * The QP-context references one NIC sees, in order. Each reference is packed into a long by
 * {@link #pack} so a stream of millions allocates nothing.
 */
public interface ReferenceStream
{
    /** Returned by {@link #next()} when a finite stream (a trace) has ended. */
    long END = -1L;

    /**
     * The next reference, packed, or {@link #END}.
     *
     * @return {@link #pack}{@code (qpId, op)} or {@link #END}.
     */
    long next();

    /** Packs a NIC-local QP id (at least 0) and an op type into one non-negative long. */
    static long pack(final int qpId, final OpType op)
    {
        return ((long)qpId << 2) | op.ordinal();
    }

    /** The QP id of a packed reference. */
    static int qpId(final long reference)
    {
        return (int)(reference >>> 2);
    }

    /** The op type of a packed reference. */
    static OpType op(final long reference)
    {
        return OpType.ofOrdinal((int)(reference & 3));
    }
}
