package io.mmx.rdma.fabric;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * One process's view of the memory fabric: one-sided operations on the regions of itself and
 * of its plan neighbours, asynchronous, with completions delivered by {@link #poll}.
 *
 * <p>Every submission returns either a positive correlation id, whose outcome arrives exactly
 * once through {@link #poll} (possibly as an error status, e.g. {@link OpStatus#TIMEOUT}), or a
 * negative value {@code -status.ordinal()} naming why nothing was submitted
 * ({@link OpStatus#BACK_PRESSURED} or {@link OpStatus#CLOSED}); see {@link #rejection(long)}.
 * Nothing on this path throws.
 *
 * <p>Offsets are relative to the start of the region's data area (after its header). Word
 * operations need {@code offset % 8 == 0}. Not thread-safe: one thread submits and polls,
 * typically an Agrona agent whose {@code doWork()} calls {@link #poll}.
 */
public interface MemoryFabric extends AutoCloseable
{
    /** Largest bulk transfer in bytes; larger transfers are split by the caller. */
    int MAX_BULK_BYTES = 64 * 1024;

    /** The process id this fabric acts for. */
    int selfId();

    /** Reads the word at {@code offset} of {@code owner}'s region. */
    long read(int owner, long offset, long timeoutNs);

    /** Writes {@code value} to the word at {@code offset} of {@code owner}'s region. */
    long write(int owner, long offset, long value, long timeoutNs);

    /** Sets the word to {@code desired} if it equals {@code expected}; completes with the previous word. */
    long compareAndSwap(int owner, long offset, long expected, long desired, long timeoutNs);

    /** Adds {@code delta} to the word (wrapping); completes with the previous word. */
    long fetchAndAdd(int owner, long offset, long delta, long timeoutNs);

    /**
     * Reads {@code length} bytes into {@code dst}. The fabric may write {@code dst} until the
     * completion is delivered; the caller must not reuse it before then.
     */
    long readBulk(int owner, long offset, MutableDirectBuffer dst, int dstOffset, int length, long timeoutNs);

    /** Writes {@code length} bytes from {@code src}; the bytes are copied before this returns. */
    long writeBulk(int owner, long offset, DirectBuffer src, int srcOffset, int length, long timeoutNs);

    /**
     * Runs a word operation at once when the link to {@code owner} completes inline (shm, in-process:
     * {@link RegionLink#completesInline()}): its outcome is in {@code outcome} when this returns, and
     * there is no correlation id, deadline or completion to poll; nothing counts in
     * {@link #outstanding()}. Refusal of non-neighbours, the fence and the counters hold as for a
     * submission. Periodic word operations (memory heartbeats: a bump and a few reads per process
     * every interval) cost a fraction of the asynchronous path's this way.
     *
     * @param type    a word operation ({@link OpType#isWordOp()}); a bulk one completes as
     *                {@link OpStatus#BAD_LENGTH}.
     * @param operand1 the value to write, the expected word of a CAS or the delta of a fetch-and-add.
     * @param operand2 the desired word of a CAS.
     * @param outcome receives the status and the word (read, or previous for CAS and fetch-and-add).
     * @return false, having done nothing, when the link to {@code owner} has I/O of its own (verbs,
     * memd): submit the operation as usual. This default has no inline links.
     */
    default boolean wordNow(final OpType type, final int owner, final long offset, final long operand1,
        final long operand2, final WordOutcome outcome)
    {
        return false;
    }

    /**
     * {@link #wordNow} for a bulk operation: on a link that completes inline, {@code length} bytes are
     * read into {@code dst} (READ_BULK) or written from {@code src} (WRITE_BULK) before this returns,
     * with the same checks as {@link #readBulk} and {@link #writeBulk}; {@code outcome}'s status is
     * the operation's. A busy node's decided log and acceptor records are bulk writes to shm regions,
     * and the asynchronous path's slot, correlation map and completion queue cost more than the copy.
     *
     * @return false, having done nothing, when the link to {@code owner} has I/O of its own.
     * @throws IllegalArgumentException for a word operation.
     */
    default boolean bulkNow(final OpType type, final int owner, final long offset, final MutableDirectBuffer dst,
        final DirectBuffer src, final int bufOffset, final int length, final WordOutcome outcome)
    {
        if (type.isWordOp())
        {
            throw new IllegalArgumentException(type + " is a word operation: run it with wordNow");
        }
        return false;
    }

    /**
     * Makes progress (I/O, deadlines) and delivers up to {@code limit} completions.
     *
     * @return the amount of work done, as an Agrona agent's {@code doWork()} counts it.
     */
    int poll(CompletionHandler handler, int limit);

    /** Number of operations submitted whose completion has not yet been delivered. */
    int outstanding();

    /** Counters of refusals and errors seen by this fabric, by status. */
    FabricCounters counters();

    /** Releases links and buffers; outstanding operations complete with {@link OpStatus#CLOSED}. */
    @Override
    void close();

    /**
     * The status that a negative submission result names, or null for a correlation id.
     *
     * @param submitResult a value returned by a submission method.
     */
    static OpStatus rejection(final long submitResult)
    {
        return submitResult < 0 ? OpStatus.fromCode((int)-submitResult) : null;
    }
}
