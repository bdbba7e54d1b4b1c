package io.mmx.runtime.core;

/**
 * What the core asks its driver to do. Called synchronously from inside the core's event
 * handlers; the driver performs the effects after (or while) the handler returns and feeds the
 * results back as events. The simulator and the real node each implement this once.
 */
public interface Effects
{
    /** Send {@code message} to process {@code to}; delivery is not guaranteed. */
    void send(int to, Message message);

    /**
     * Send {@code message} to every process on {@code to}'s host ({@link CoreConfig#hosts}), one copy
     * for all of them; delivery is not guaranteed. Processes there that the message does not concern
     * ignore it. Without shared hosts this is {@link #send}.
     */
    default void sendToHost(final int to, final Message message)
    {
        send(to, message);
    }

    /** Send {@code message} to every process, the sender included. */
    void broadcast(Message message);

    /**
     * Start a memory operation on region {@code region}. Exactly one completion with the same
     * {@code opId} must follow ({@link MmPaxosCore#onMemoryCompletion}). {@code payload} (WRITE_BULK
     * only) is valid during this call only: copy it. The words a READ_BULK completes with belong to
     * the core, unless {@link #completionWordsBorrowed} says it reads them during the completion only.
     */
    void memory(long opId, MemoryOpKind kind, int region, int offsetWords, int lengthWords,
        long expected, long value, long[] payload);

    /** Slot {@code slot} is decided with {@code value}; called in slot order, once per slot. */
    void decided(long slot, long[] value);

    /**
     * {@link #decided} of slots {@code firstSlot .. firstSlot + count - 1}, slot {@code firstSlot + k}
     * with {@code values[from + k]}: a run the learner applies at once. The core's applied prefix
     * already covers the run during the call.
     */
    default void decidedRun(final long firstSlot, final long[][] values, final int from, final int count)
    {
        for (int k = 0; k < count; k++)
        {
            decided(firstSlot + k, values[from + k]);
        }
    }

    /**
     * Slots {@code fromSlot..toSlot} are decided, but this learner fell so far behind that no
     * decided log it can reach still holds them: the application must install a snapshot (state
     * transfer) covering them. Decisions continue with {@code toSlot + 1}.
     */
    void skipped(long fromSlot, long toSlot);

    /** The process's progress report changed. */
    void status(Status status);

    /**
     * For checkers: this process learned that {@code slot} is decided with {@code value} (its
     * proposer counted a quorum, a Commit arrived, or a decided-log read), before any dedup or
     * ordering. A real driver ignores it.
     */
    default void learned(final long slot, final long[] value)
    {
    }

    /** {@link #learned} of {@code values[k]} at slot {@code firstSlot + k} for each k: a whole group at once. */
    default void learnedRun(final long firstSlot, final long[][] values)
    {
        for (int k = 0; k < values.length; k++)
        {
            learned(firstSlot + k, values[k]);
        }
    }

    /**
     * For checkers: this process's proposer counted a quorum for {@code ballot}: of promises
     * ({@code slots} = 0), or of acceptances of slots {@code firstSlot .. firstSlot + slots - 1}.
     * A real driver ignores it.
     */
    default void quorumCounted(final long ballot, final long firstSlot, final int slots)
    {
    }

    /**
     * True when the core reads the words of operation {@code opId}'s READ_BULK completion only while
     * {@link MmPaxosCore#onMemoryCompletion} runs and keeps none of them by reference: the caller may
     * complete it with an array it reuses afterwards (of exactly the length read). So it is for an
     * acceptor driver's record reads, which copy the record out at once and are most of a busy host's
     * reads; a learner's catch-up keeps its entries across operations, and gets an array of its own.
     */
    static boolean completionWordsBorrowed(final long opId)
    {
        return OpIds.purpose(opId) == OpIds.DRIVER;
    }
}
