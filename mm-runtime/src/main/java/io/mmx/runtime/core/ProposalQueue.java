package io.mmx.runtime.core;

/**
 * The leader's bounded queue of proposals ({@code proposalQueueCapacity} of
 * {@code proposalWords} words each, in one ring) and how they are batched: up to
 * {@code maxBatch} proposals per slot, up to {@code maxSlotsPerAccept} slots per Accept group.
 */
final class ProposalQueue
{
    private final CoreConfig config;
    private long[] queue;
    private int queueHead;
    private int queueSize;
    private long proposals;

    ProposalQueue(final CoreConfig config)
    {
        this.config = config;
        this.queue = new long[0]; // allocated at the first offer: only a leader queues proposals
    }

    /** Proposals queued so far (each ends up in a slot unless leadership is lost first). */
    long proposals()
    {
        return proposals;
    }

    boolean isEmpty()
    {
        return queueSize == 0;
    }

    /** Queues one proposal of {@code proposalWords} words from {@code words[offset..]}; false when full. */
    boolean offer(final long[] words, final int offset)
    {
        final int w = config.proposalWords();
        if (queue.length == 0)
        {
            queue = new long[config.proposalQueueCapacity() * w];
        }
        if (queueSize * w == queue.length)
        {
            return false;
        }
        // The queue holds whole proposals, so a proposal's words are contiguous modulo the length.
        int at = (queueHead + queueSize * w) % queue.length;
        for (int i = 0; i < w; i++)
        {
            queue[at] = words[offset + i];
            at = at + 1 == queue.length ? 0 : at + 1;
        }
        queueSize++;
        proposals++;
        return true;
    }

    /** Drops every queued proposal (leadership lost). */
    void clear()
    {
        queueSize = 0;
    }

    /** The slots {@link #takeGroup} would fill now with at most {@code room} slots. */
    int groupSlots(final long room)
    {
        final int maxBatch = config.maxBatch();
        return (int)Math.min(Math.min(room, config.maxSlotsPerAccept()), (queueSize + maxBatch - 1) / maxBatch);
    }

    /**
     * Takes the values of the next group, one per slot, at most {@code room} slots (the queue must
     * not be empty): each slot holds up to {@code maxBatch} proposals in queue order.
     */
    long[][] takeGroup(final long room)
    {
        final int maxBatch = config.maxBatch();
        final int slots = groupSlots(room);
        final long[][] values = new long[slots][];
        for (int k = 0; k < slots; k++)
        {
            final int take = Math.min(maxBatch, queueSize);
            final long[] v = new long[take * config.proposalWords()];
            for (int j = 0; j < v.length; j++)
            {
                v[j] = queue[queueHead];
                queueHead = queueHead + 1 == queue.length ? 0 : queueHead + 1;
            }
            queueSize -= take;
            values[k] = v;
        }
        return values;
    }
}
