package io.mmx.rdma.fabric;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * One connection from a process to one region: its own (loopback) or a plan neighbour's. On
 * verbs this is one reliable-connected queue pair; on memd one authenticated TCP session; on
 * local and shm a validated mapping. Backends implement it; {@link PlanMemoryFabric} drives it.
 */
public interface RegionLink extends AutoCloseable
{
    /** The process that owns the region this link reaches. */
    int owner();

    /** OK when usable, otherwise the status that operations on this link currently complete with. */
    OpStatus state();

    /** One sentence explaining {@link #state()} when it is not OK (e.g. which header field mismatched). */
    String stateMessage();

    /**
     * Starts an operation. The outcome goes to {@code sink}, possibly before this returns.
     * Never throws on the data path.
     *
     * @param dst       destination of a bulk read, else null; the link may write it directly.
     * @param src       source of a bulk write, else null; consumed before this returns.
     * @param bufOffset offset in {@code dst} or {@code src}.
     * @param length    bulk length; 8 for word operations.
     */
    void submit(
        long correlationId,
        OpType type,
        long offset,
        long operand1,
        long operand2,
        MutableDirectBuffer dst,
        DirectBuffer src,
        int bufOffset,
        int length,
        CompletionSink sink);

    /** Progresses I/O and reports finished operations to {@code sink}; returns work done. */
    int doWork(CompletionSink sink);

    /**
     * Whether every operation completes inside {@code submit} and the link has no I/O of its own (shm,
     * in-process). The fabric then never polls it (a host of hundreds of idle processes otherwise
     * visited nine such links per process on every wake for nothing) and runs word operations on it
     * at once ({@link MemoryFabric#wordNow}), without a slot, a deadline or a completion to poll.
     */
    default boolean completesInline()
    {
        return false;
    }

    /** Releases the link; operations in flight are abandoned (the fabric completes them as CLOSED). */
    @Override
    void close();
}
