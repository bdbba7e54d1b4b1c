package io.mmx.perf.niccache;

/**
 * The one-sided verbs the m&amp;m protocol issues. Their sensitivity to a QP-context miss
 * differs: a READ or an atomic cannot answer until the responder has the context to build the
 * response, while a WRITE is posted and its context fetch overlaps with the pipeline.
 */
public enum OpType
{
    /** One-sided RDMA READ (heartbeat word, head + record, bulk log catch-up). */
    READ,
    /** One-sided RDMA WRITE (new acceptor record, heartbeat bump). */
    WRITE,
    /** Compare-and-swap on a head word (an acceptor transition). */
    CAS;

    private static final OpType[] VALUES = values();

    /** The op type with this ordinal, without allocating. */
    public static OpType ofOrdinal(final int ordinal)
    {
        return VALUES[ordinal];
    }
}
