package io.mmx.rdma.fabric;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.NanoClock;

/**
 * The {@link MemoryFabric} of one process, over the links a {@link ConnectionManager} opened.
 * It owns what every backend shares: correlation ids, the bound on outstanding operations,
 * deadlines, refusal of non-neighbours, and the completion queue. Backends only move bytes.
 *
 * <p>The fence: an operation that timed out may still land. Until its completion arrives (late),
 * every later operation of this process on the same region completes at once with
 * {@link OpStatus#FENCED}, unsent, so the old operation can never land after a newer one. Every
 * backend reports each submitted operation exactly once, late or not (a dropped session or a
 * queue pair in error completes what it holds), which is what lifts the fence.
 *
 * <p>All state is preallocated at construction; submission and polling do not allocate (the
 * fence's maps grow only while operations are overdue).
 */
public final class PlanMemoryFabric implements MemoryFabric
{
    /** Default bound on operations in flight. */
    public static final int DEFAULT_MAX_OUTSTANDING = 1024;

    private static final long TIMEOUT_SCAN_INTERVAL_NS = 100_000;

    private final ConnectionManager connections;
    private final NanoClock clock;
    private final FabricCounters counters = new FabricCounters();
    private final Slot[] slots;
    private final int[] freeSlots;
    private final int[] readyRing;
    private final Long2ObjectHashMap<Slot> inFlight;
    /** Timed-out operations whose completion has not arrived: correlation id to owner. */
    private final org.agrona.collections.Long2LongHashMap overdue = new org.agrona.collections.Long2LongHashMap(-1);
    /** Per owner: how many of our operations on its region are overdue (the fence is up while > 0). */
    private final org.agrona.collections.Int2IntHashMap overdueByOwner = new org.agrona.collections.Int2IntHashMap(0);
    private final CompletionSink sink = this::onLinkCompletion;
    /** Where an inline link reports an operation run by {@link #wordNow}: into {@link #inlineOutcome}. */
    private final CompletionSink inlineSink = this::onInlineCompletion;
    private WordOutcome inlineOutcome;
    private boolean inlineDone;
    private int freeCount;
    private int readyHead;
    private int readyTail;
    private int readyCount;
    private long nextCorrelationId = 1;
    private long nextTimeoutScanNs;
    private boolean closed;

    /**
     * A fabric over {@code connections}, which it owns from now on (closed with it).
     *
     * @param maxOutstanding operations in flight before submissions are back-pressured.
     */
    public PlanMemoryFabric(final ConnectionManager connections, final NanoClock clock, final int maxOutstanding)
    {
        if (maxOutstanding < 1 || maxOutstanding > 1 << 20)
        {
            throw new IllegalArgumentException("maxOutstanding " + maxOutstanding + " is outside 1.." + (1 << 20) +
                ": it bounds preallocated memory, pick the pipeline depth you need");
        }
        this.connections = connections;
        this.clock = clock;
        this.slots = new Slot[maxOutstanding];
        this.freeSlots = new int[maxOutstanding];
        this.readyRing = new int[maxOutstanding];
        this.inFlight = new Long2ObjectHashMap<>(maxOutstanding * 2, 0.65f);
        for (int i = 0; i < maxOutstanding; i++)
        {
            slots[i] = new Slot(i);
            freeSlots[i] = maxOutstanding - 1 - i;
        }
        this.freeCount = maxOutstanding;
    }

    /** A fabric with the default bound on outstanding operations. */
    public PlanMemoryFabric(final ConnectionManager connections, final NanoClock clock)
    {
        this(connections, clock, DEFAULT_MAX_OUTSTANDING);
    }

    @Override
    public int selfId()
    {
        return connections.selfId();
    }

    /** The links this fabric uses. */
    public ConnectionManager connections()
    {
        return connections;
    }

    @Override
    public long read(final int owner, final long offset, final long timeoutNs)
    {
        return submit(OpType.READ, owner, offset, 0, 0, null, null, 0, Long.BYTES, timeoutNs);
    }

    @Override
    public long write(final int owner, final long offset, final long value, final long timeoutNs)
    {
        return submit(OpType.WRITE, owner, offset, value, 0, null, null, 0, Long.BYTES, timeoutNs);
    }

    @Override
    public long compareAndSwap(
        final int owner, final long offset, final long expected, final long desired, final long timeoutNs)
    {
        return submit(OpType.COMPARE_AND_SWAP, owner, offset, expected, desired, null, null, 0, Long.BYTES, timeoutNs);
    }

    @Override
    public long fetchAndAdd(final int owner, final long offset, final long delta, final long timeoutNs)
    {
        return submit(OpType.FETCH_AND_ADD, owner, offset, delta, 0, null, null, 0, Long.BYTES, timeoutNs);
    }

    @Override
    public long readBulk(
        final int owner,
        final long offset,
        final MutableDirectBuffer dst,
        final int dstOffset,
        final int length,
        final long timeoutNs)
    {
        return submit(OpType.READ_BULK, owner, offset, 0, 0, dst, null, dstOffset, length, timeoutNs);
    }

    @Override
    public long writeBulk(
        final int owner,
        final long offset,
        final DirectBuffer src,
        final int srcOffset,
        final int length,
        final long timeoutNs)
    {
        return submit(OpType.WRITE_BULK, owner, offset, 0, 0, null, src, srcOffset, length, timeoutNs);
    }

    @Override
    public boolean wordNow(final OpType type, final int owner, final long offset, final long operand1,
        final long operand2, final WordOutcome outcome)
    {
        // A bulk type has no buffer here, so it completes as BAD_LENGTH (on an inline link).
        return runNow(type, owner, offset, operand1, operand2, null, null, 0, type.isWordOp() ? Long.BYTES : 0,
            outcome);
    }

    @Override
    public boolean bulkNow(final OpType type, final int owner, final long offset, final MutableDirectBuffer dst,
        final DirectBuffer src, final int bufOffset, final int length, final WordOutcome outcome)
    {
        if (type.isWordOp())
        {
            throw new IllegalArgumentException(type + " is a word operation: run it with wordNow");
        }
        return runNow(type, owner, offset, 0, 0, type == OpType.READ_BULK ? dst : null,
            type == OpType.WRITE_BULK ? src : null, bufOffset, length, outcome);
    }

    /** The inline path of {@link #wordNow} and {@link #bulkNow}: the checks of {@link #submit}, then the link at once. */
    private boolean runNow(final OpType type, final int owner, final long offset, final long operand1,
        final long operand2, final MutableDirectBuffer dst, final DirectBuffer src, final int bufOffset,
        final int length, final WordOutcome outcome)
    {
        if (closed)
        {
            return inlineResult(outcome, OpStatus.CLOSED);
        }
        final RegionLink link = connections.link(owner);
        if (link == null)
        {
            return inlineResult(outcome, OpStatus.REFUSED_NOT_NEIGHBOUR);
        }
        if (!link.completesInline())
        {
            return false;
        }
        if (type.isWordOp() ? length != Long.BYTES : !bulkBufferFits(dst, src, bufOffset, length))
        {
            return inlineResult(outcome, OpStatus.BAD_LENGTH);
        }
        if (fenced(owner))
        {
            return inlineResult(outcome, OpStatus.FENCED);
        }
        inlineOutcome = outcome;
        inlineDone = false;
        link.submit(0, type, offset, operand1, operand2, dst, src, bufOffset, length, inlineSink);
        inlineOutcome = null;
        if (!inlineDone)
        {
            throw new IllegalStateException(link.getClass().getName() + " says it completes inline but did not " +
                "complete a " + type + " inside submit: a bug in that link");
        }
        counters.increment(outcome.status());
        return true;
    }

    /** The fence: an operation of ours on {@code owner}'s region is overdue (almost always none is). */
    private boolean fenced(final int owner)
    {
        return !overdueByOwner.isEmpty() && overdueByOwner.get(owner) > 0;
    }

    private boolean inlineResult(final WordOutcome outcome, final OpStatus status)
    {
        outcome.set(status, 0);
        counters.increment(status);
        return true;
    }

    private void onInlineCompletion(
        final long correlationId, final OpStatus status, final long value, final DirectBuffer payload,
        final int payloadOffset)
    {
        inlineDone = true;
        inlineOutcome.set(status, value);
    }

    @Override
    public int poll(final CompletionHandler handler, final int limit)
    {
        if (closed)
        {
            return deliver(handler, limit);
        }
        int work = connections.doWork(sink);
        if (!inFlight.isEmpty())
        {
            // Only operations in flight can time out: an idle fabric does not read the clock.
            final long nowNs = clock.nanoTime();
            if (nowNs - nextTimeoutScanNs >= 0)
            {
                nextTimeoutScanNs = nowNs + TIMEOUT_SCAN_INTERVAL_NS;
                work += expire(nowNs);
            }
        }
        return work + deliver(handler, limit);
    }

    @Override
    public int outstanding()
    {
        return slots.length - freeCount;
    }

    @Override
    public FabricCounters counters()
    {
        return counters;
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        connections.close();
        for (final Slot slot : slots)
        {
            if (slot.inFlight)
            {
                finish(slot, OpStatus.CLOSED, 0);
            }
        }
        inFlight.clear();
    }

    private long submit(
        final OpType type,
        final int owner,
        final long offset,
        final long operand1,
        final long operand2,
        final MutableDirectBuffer dst,
        final DirectBuffer src,
        final int bufOffset,
        final int length,
        final long timeoutNs)
    {
        if (closed)
        {
            return -OpStatus.CLOSED.ordinal();
        }
        if (freeCount == 0)
        {
            counters.increment(OpStatus.BACK_PRESSURED);
            return -OpStatus.BACK_PRESSURED.ordinal();
        }
        final Slot slot = slots[freeSlots[--freeCount]];
        final long correlationId = nextCorrelationId++;
        slot.correlationId = correlationId;
        slot.type = type;
        slot.owner = owner;
        slot.deadlineNs = clock.nanoTime() + timeoutNs;
        slot.dst = dst;
        slot.dstOffset = bufOffset;
        slot.length = length;
        slot.inFlight = true;

        final RegionLink link = connections.link(owner);
        if (link == null)
        {
            // Refused here, before anything reaches the wire: the plan has no edge to this owner.
            finish(slot, OpStatus.REFUSED_NOT_NEIGHBOUR, 0);
            return correlationId;
        }
        if (!type.isWordOp() && !bulkBufferFits(dst, src, bufOffset, length))
        {
            finish(slot, OpStatus.BAD_LENGTH, 0);
            return correlationId;
        }
        if (fenced(owner))
        {
            finish(slot, OpStatus.FENCED, 0);
            return correlationId;
        }
        inFlight.put(correlationId, slot);
        link.submit(correlationId, type, offset, operand1, operand2, dst, src, bufOffset, length, sink);
        return correlationId;
    }

    private static boolean bulkBufferFits(
        final MutableDirectBuffer dst, final DirectBuffer src, final int bufOffset, final int length)
    {
        if (length <= 0 || length > MAX_BULK_BYTES)
        {
            return false;
        }
        final DirectBuffer buffer = dst != null ? dst : src;
        return buffer != null && bufOffset >= 0 && bufOffset <= buffer.capacity() - length;
    }

    private void onLinkCompletion(
        final long correlationId,
        final OpStatus status,
        final long value,
        final DirectBuffer payload,
        final int payloadOffset)
    {
        final Slot slot = inFlight.remove(correlationId);
        if (slot == null)
        {
            // Already timed out (and reported); the caller may have reused the buffer, so drop it.
            counters.increment(FabricCounters.Other.LATE_COMPLETION);
            final long owner = overdue.remove(correlationId);
            if (owner != -1)
            {
                final int left = overdueByOwner.get((int)owner) - 1;
                if (left > 0)
                {
                    overdueByOwner.put((int)owner, left);
                }
                else
                {
                    overdueByOwner.remove((int)owner); // the fence lifts
                }
            }
            return;
        }
        if (status == OpStatus.OK && slot.type == OpType.READ_BULK && payload != null)
        {
            slot.dst.putBytes(slot.dstOffset, payload, payloadOffset, slot.length);
        }
        finish(slot, status, value);
    }

    private int expire(final long nowNs)
    {
        int expired = 0;
        for (final Slot slot : slots)
        {
            if (slot.inFlight && nowNs - slot.deadlineNs >= 0 && inFlight.remove(slot.correlationId) != null)
            {
                overdue.put(slot.correlationId, slot.owner);
                overdueByOwner.put(slot.owner, overdueByOwner.get(slot.owner) + 1);
                finish(slot, OpStatus.TIMEOUT, 0);
                expired++;
            }
        }
        return expired;
    }

    private void finish(final Slot slot, final OpStatus status, final long value)
    {
        slot.inFlight = false;
        slot.status = status;
        slot.value = value;
        slot.dst = null;
        counters.increment(status);
        readyRing[readyTail] = slot.index;
        readyTail = (readyTail + 1) % readyRing.length;
        readyCount++;
    }

    private int deliver(final CompletionHandler handler, final int limit)
    {
        int delivered = 0;
        // The ring never overflows: a slot is queued once per allocation and freed on delivery.
        while (delivered < limit && readyCount > 0)
        {
            final Slot slot = slots[readyRing[readyHead]];
            readyHead = (readyHead + 1) % readyRing.length;
            readyCount--;
            freeSlots[freeCount++] = slot.index;
            delivered++;
            handler.onCompletion(slot.correlationId, slot.type, slot.owner, slot.status, slot.value);
        }
        return delivered;
    }

    private static final class Slot
    {
        final int index;
        long correlationId;
        OpType type;
        int owner;
        long deadlineNs;
        MutableDirectBuffer dst;
        int dstOffset;
        int length;
        boolean inFlight;
        OpStatus status;
        long value;

        Slot(final int index)
        {
            this.index = index;
        }
    }
}
