package io.mmx.runtime.sim;

import io.mmx.runtime.core.MemoryOpKind;
import io.mmx.runtime.core.Message;

/** Counters of one simulated run: events, messages by type, memory operations by kind. */
public final class SimStats
{
    /** Events the simulation processed. */
    public long events;
    /** Messages sent, by {@link Message.Type}. */
    public final long[] messagesSent = new long[Message.Type.values().length];
    /** Messages delivered. */
    public long messagesDelivered;
    /** Messages dropped (lost, partitioned, or to a process that is down). */
    public long messagesDropped;
    /** Memory operations, by {@link MemoryOpKind}. */
    public final long[] memoryOps = new long[MemoryOpKind.values().length];
    /** WRITE_BULK operations into the lanes of regions: acceptor records written (published or not). */
    public long recordWrites;
    /** Words those record writes carried. */
    public long recordWordsWritten;
    /** Acceptor transitions published: head words that changed. */
    public long transitionsPublished;
    /** Memory operations refused. */
    public long memoryRefused;
    /** Memory operations that timed out. */
    public long memoryTimeouts;
    /** Process crashes. */
    public long crashes;
    /** Process restarts. */
    public long restarts;
    /** Leader changes the oracle made. */
    public long leaderChanges;
    /** Bytes the cores allocated, when measured. */
    public long coreAllocatedBytes;
    /** Decided slots learners skipped because no reachable log held them (state transfer needed). */
    public long skippedSlots;
    /** Lost hosts that came back with their regions empty. */
    public long hostsReturned;

    /** Messages sent, all kinds. */
    public long messagesSentTotal()
    {
        long t = 0;
        for (final long m : messagesSent)
        {
            t += m;
        }
        return t;
    }

    /** Memory operations, all kinds. */
    public long memoryOpsTotal()
    {
        long t = 0;
        for (final long m : memoryOps)
        {
            t += m;
        }
        return t;
    }

    /** Messages handed to the network (sent, before loss) per decided slot. */
    public String perSlot(final long slots)
    {
        final double s = Math.max(1, slots);
        final StringBuilder sb = new StringBuilder();
        sb.append(String.format("per slot: %.1f messages sent (%.1f delivered), %.1f memory ops [",
            messagesSentTotal() / s, messagesDelivered / s, memoryOpsTotal() / s));
        for (final MemoryOpKind k : MemoryOpKind.values())
        {
            sb.append(k).append(' ').append(String.format("%.1f", memoryOps[k.ordinal()] / s)).append(' ');
        }
        sb.append("] messages [");
        for (final Message.Type t : Message.Type.values())
        {
            sb.append(t).append(' ').append(String.format("%.1f", messagesSent[t.ordinal()] / s)).append(' ');
        }
        return sb.append(']').toString();
    }
}
