package io.mmx.runtime.node;

import io.mmx.membership.neighbour.FabricHeartbeats;
import io.mmx.rdma.fabric.CompletionHandler;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.OpType;
import io.mmx.rdma.fabric.WordOutcome;
import io.mmx.runtime.core.Effects;
import io.mmx.runtime.core.MemoryOpKind;
import io.mmx.runtime.core.MemoryStatus;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.util.ArrayDeque;

/**
 * Carries the core's memory effects onto one process's {@link MemoryFabric}: word ops one to one,
 * bulk ops split into fabric-sized pieces and joined again, fabric statuses mapped onto the core's
 * four, and exactly one completion per core operation (a refused submission completes as TIMEOUT
 * on the next poll, never inside the call that made it).
 *
 * <p>On a link that completes inline (shm, in-process) an operation runs at once
 * ({@link MemoryFabric#wordNow}, {@link MemoryFabric#bulkNow}) and its completion waits in the
 * same queue for the next poll, without the fabric's slot, correlation map and completion queue.
 *
 * <p>The fabric is shared with the process's memory heartbeats: completions the heartbeats own go
 * to them. Completions are collected first and handed to the core after the fabric's poll returns,
 * so the core may submit new operations from its handlers.
 */
final class FabricMemory implements CompletionHandler
{
    /** Receives core completions. */
    interface Sink
    {
        void onMemoryCompletion(long opId, MemoryStatus status, long value, long[] data);
    }

    /** Told how long each core operation took, from submission to its last piece's completion. */
    interface Latencies
    {
        void onFabricOp(MemoryOpKind kind, long latencyNs);
    }

    private static final int POLL_LIMIT = 256;

    private final MemoryFabric fabric;
    private final FabricHeartbeats heartbeats;
    private final long timeoutNs;
    private final Latencies latencies;
    /** The fabric's clock (its timeouts run on it), read for the latencies. */
    private final NanoClock clock;
    private final Long2ObjectHashMap<Op> byCorrelation = new Long2ObjectHashMap<>();
    private final ArrayDeque<Op> done = new ArrayDeque<>();
    /** Where an operation run at once leaves its outcome (reused: one thread). */
    private final WordOutcome now = new WordOutcome();
    private int heartbeatCompletions;
    private final Stages stages;

    /** One core operation; a bulk one spans several fabric operations. */
    private static final class Op
    {
        final long opId;
        final MemoryOpKind kind;
        final long startNs;
        /** A read's buffer while the fabric fills it (asynchronous path). */
        UnsafeBuffer bulk;
        /** A read's words, when it ran at once. */
        long[] data;
        int piecesLeft;
        MemoryStatus status = MemoryStatus.OK;
        long value;

        Op(final long opId, final MemoryOpKind kind, final UnsafeBuffer bulk, final long startNs)
        {
            this.startNs = startNs;
            this.opId = opId;
            this.kind = kind;
            this.bulk = bulk;
        }
    }

    FabricMemory(final MemoryFabric fabric, final FabricHeartbeats heartbeats, final long timeoutNs,
        final Latencies latencies, final NanoClock clock)
    {
        this(fabric, heartbeats, timeoutNs, latencies, clock, new Stages());
    }

    /** @param stages shared with the other processes of the calling thread (see {@link Stages}). */
    FabricMemory(final MemoryFabric fabric, final FabricHeartbeats heartbeats, final long timeoutNs,
        final Latencies latencies, final NanoClock clock, final Stages stages)
    {
        this.stages = stages;
        this.clock = clock;
        this.latencies = latencies;
        this.fabric = fabric;
        this.heartbeats = heartbeats;
        this.timeoutNs = timeoutNs;
    }

    /**
     * The memory of a hosted process over {@code fabric}, with the memory heartbeats of it and its
     * plan {@code neighbours}, polled by its host ({@link #heartbeats()}): what a node and an
     * in-process host give each replica.
     */
    static FabricMemory ofHostedProcess(final MemoryFabric fabric, final int[] neighbours, final long timeoutNs,
        final Latencies latencies, final NanoClock clock, final Stages stages)
    {
        final FabricHeartbeats heartbeats = new FabricHeartbeats(fabric, neighbours,
            8L * io.mmx.runtime.core.RegionLayout.HEARTBEAT_WORD, timeoutNs).polledByHost();
        return new FabricMemory(fabric, heartbeats, timeoutNs, latencies, clock, stages);
    }

    /** The heartbeats this memory beats and reads, or null. */
    FabricHeartbeats heartbeats()
    {
        return heartbeats;
    }

    void submit(final long opId, final MemoryOpKind kind, final int region, final int offsetWords,
        final int lengthWords, final long expected, final long value, final long[] payload)
    {
        final long offset = 8L * offsetWords;
        switch (kind)
        {
            case READ:
                single(opId, kind, OpType.READ, region, offset, 0, 0);
                break;
            case WRITE:
                single(opId, kind, OpType.WRITE, region, offset, value, 0);
                break;
            case CAS:
                single(opId, kind, OpType.COMPARE_AND_SWAP, region, offset, expected, value);
                break;
            case FETCH_ADD:
                single(opId, kind, OpType.FETCH_AND_ADD, region, offset, value, 0);
                break;
            case READ_BULK:
            case WRITE_BULK:
                bulk(opId, kind, region, offset, lengthWords, payload);
                break;
            default:
                throw new IllegalStateException("unknown memory op " + kind);
        }
    }

    /**
     * A word operation: at once on a link that completes inline ({@link MemoryFabric#wordNow}), its
     * completion queued for the next {@link #poll}; otherwise submitted and tracked by correlation.
     */
    private void single(final long opId, final MemoryOpKind kind, final OpType type, final int region,
        final long offset, final long operand1, final long operand2)
    {
        final Op op = new Op(opId, kind, null, clock.nanoTime());
        op.piecesLeft = 1;
        if (fabric.wordNow(type, region, offset, operand1, operand2, now))
        {
            pieceDone(op, map(now.status()), now.value());
            return;
        }
        final long correlation;
        switch (type)
        {
            case READ:
                correlation = fabric.read(region, offset, timeoutNs);
                break;
            case WRITE:
                correlation = fabric.write(region, offset, operand1, timeoutNs);
                break;
            case COMPARE_AND_SWAP:
                correlation = fabric.compareAndSwap(region, offset, operand1, operand2, timeoutNs);
                break;
            default:
                correlation = fabric.fetchAndAdd(region, offset, operand1, timeoutNs);
                break;
        }
        track(op, correlation);
    }

    private void bulk(final long opId, final MemoryOpKind kind, final int region, final long offset,
        final int lengthWords, final long[] payload)
    {
        final int bytes = 8 * lengthWords;
        final boolean read = kind == MemoryOpKind.READ_BULK;
        final Stage stage = (read ? stages.read : stages.write).ensure(bytes);
        if (!read)
        {
            // One bulk copy in the order the region's words are read in (UnsafeBuffer: native), not a
            // bounds-checked put per word: decided-log runs and acceptor records are hundreds of words.
            stage.words.put(payload, 0, lengthWords);
        }
        UnsafeBuffer buffer = stage.buffer;
        final Op op = new Op(opId, kind, null, clock.nanoTime());
        final int pieces = (bytes + MemoryFabric.MAX_BULK_BYTES - 1) / MemoryFabric.MAX_BULK_BYTES;
        op.piecesLeft = pieces;
        final OpType type = read ? OpType.READ_BULK : OpType.WRITE_BULK;
        boolean inline = true;
        for (int k = 0; k < pieces; k++)
        {
            final int at = k * MemoryFabric.MAX_BULK_BYTES;
            final int length = Math.min(MemoryFabric.MAX_BULK_BYTES, bytes - at);
            if (inline && fabric.bulkNow(type, region, offset + at, buffer, buffer, at, length, now))
            {
                pieceDone(op, map(now.status()), now.value());
                continue;
            }
            if (inline && k > 0)
            {
                throw new IllegalStateException("the link to process " + region + " ran a piece at once and not the " +
                    "next: whether a link completes inline is fixed per owner");
            }
            if (inline && read)
            {
                buffer = new UnsafeBuffer(new byte[bytes]); // the fabric fills it until the completion
                op.bulk = buffer;
            }
            inline = false;
            final long correlation = read ?
                fabric.readBulk(region, offset + at, buffer, at, length, timeoutNs) :
                fabric.writeBulk(region, offset + at, buffer, at, length, timeoutNs);
            track(op, correlation);
        }
        if (inline && read && op.status == MemoryStatus.OK)
        {
            // Read at once into the reused stage: the core gets its words without a buffer per read,
            // and without an array per read where it only borrows them (an acceptor's record reads).
            op.data = Effects.completionWordsBorrowed(opId) ? stages.lend(lengthWords) : new long[lengthWords];
            stage.words.get(op.data, 0, lengthWords);
        }
    }

    /**
     * The buffers bulk operations are staged in, shared by every process of one thread (a node's
     * agent): each is used only inside {@link #submit}. Bulk writes are staged in one buffer because
     * the fabric copies a write's bytes before {@code writeBulk} returns ({@link MemoryFabric#writeBulk});
     * an acceptor record is kilobytes, and a fresh array per transition was the largest part of a busy
     * node's garbage. Bulk reads that run at once land in the other before their words are copied
     * out; a read through the fabric's queue gets a buffer of its own (the fabric fills it until the
     * completion). A pair per process was 100 KB per process once each had read a record.
     */
    static final class Stages
    {
        final Stage write = new Stage();
        final Stage read = new Stage();
        /**
         * Arrays lent to completions whose words the core only borrows, by length, for the next read of
         * the same length once {@link #poll} has delivered them (a driver reads its record's used part: a
         * few distinct lengths; as many arrays as such completions wait together). At n = 1024 a fresh
         * array per record read was more than half of the bytes the node threads allocated.
         */
        private final java.util.HashMap<Integer, ArrayDeque<long[]>> lendable = new java.util.HashMap<>();

        long[] lend(final int lengthWords)
        {
            final ArrayDeque<long[]> free = lendable.get(lengthWords);
            final long[] words = free == null ? null : free.poll();
            return words != null ? words : new long[lengthWords];
        }

        void giveBack(final long[] words)
        {
            ArrayDeque<long[]> free = lendable.get(words.length);
            if (free == null)
            {
                if (lendable.size() >= MAX_LENT_LENGTHS)
                {
                    lendable.clear(); // the lengths moved on (records grew): forget the old ones
                }
                free = new ArrayDeque<>();
                lendable.put(words.length, free);
            }
            if (free.size() < MAX_LENT_PER_LENGTH)
            {
                free.push(words);
            }
        }
    }

    /** Distinct lengths of arrays kept for borrowed reads before the set starts over. */
    private static final int MAX_LENT_LENGTHS = 16;
    /** Arrays kept per length (beyond them a delivered array is left to the collector). */
    private static final int MAX_LENT_PER_LENGTH = 4096;

    /** A reused byte buffer and a native-order view of its words. */
    private static final class Stage
    {
        UnsafeBuffer buffer = new UnsafeBuffer(new byte[0]);
        LongBuffer words = LongBuffer.allocate(0);

        /** Holds at least {@code bytes}; its words view is cleared. */
        Stage ensure(final int bytes)
        {
            if (buffer.capacity() < bytes)
            {
                final byte[] array = new byte[Math.max(bytes, 2 * buffer.capacity())];
                buffer = new UnsafeBuffer(array);
                words = ByteBuffer.wrap(array).order(ByteOrder.nativeOrder()).asLongBuffer();
            }
            words.clear();
            return this;
        }
    }

    private void track(final Op op, final long correlation)
    {
        if (correlation > 0)
        {
            byCorrelation.put(correlation, op);
        }
        else
        {
            // Back pressure or a closed fabric: nothing happened; the core hears TIMEOUT (unknown is a superset).
            pieceDone(op, MemoryStatus.TIMEOUT, 0);
        }
    }

    /** Polls the fabric and hands finished core operations to {@code sink}; returns the work done. */
    int poll(final Sink sink)
    {
        heartbeatCompletions = 0;
        // Heartbeats are periodic: their completions are not work after which more may follow at once,
        // and counting them would keep an idle node from parking (ProcessHost.doWork).
        int work = fabric.poll(this, POLL_LIMIT) - heartbeatCompletions;
        Op op;
        while ((op = done.poll()) != null)
        {
            final boolean borrowed = Effects.completionWordsBorrowed(op.opId);
            long[] data = op.data;
            if (op.bulk != null && op.status == MemoryStatus.OK)
            {
                final int words = op.bulk.capacity() / 8;
                data = borrowed ? stages.lend(words) : new long[words];
                ByteBuffer.wrap(op.bulk.byteArray()).order(ByteOrder.nativeOrder()).asLongBuffer().get(data);
            }
            sink.onMemoryCompletion(op.opId, op.status, op.value, data);
            if (borrowed && data != null)
            {
                stages.giveBack(data); // the core copied what it needed during the call
            }
            work++;
        }
        return work;
    }

    /** True while fabric operations are outstanding or finished core operations wait for {@link #poll}. */
    boolean pending()
    {
        return fabric.outstanding() > 0 || !done.isEmpty();
    }

    /** Heartbeat writes to the process's own region that completed OK (0 without heartbeats). */
    long heartbeatBumps()
    {
        return heartbeats == null ? 0 : heartbeats.bumps();
    }

    @Override
    public void onCompletion(final long correlationId, final OpType type, final int owner, final OpStatus status,
        final long value)
    {
        if (heartbeats != null && heartbeats.owns(correlationId))
        {
            heartbeatCompletions++;
            heartbeats.onCompletion(correlationId, type, owner, status, value);
            return;
        }
        final Op op = byCorrelation.remove(correlationId);
        if (op != null)
        {
            pieceDone(op, map(status), value);
        }
    }

    private void pieceDone(final Op op, final MemoryStatus status, final long value)
    {
        if (status != MemoryStatus.OK && op.status == MemoryStatus.OK)
        {
            op.status = status;
        }
        op.value = value;
        if (--op.piecesLeft == 0)
        {
            latencies.onFabricOp(op.kind, clock.nanoTime() - op.startNs);
            done.add(op);
        }
    }

    /** Fabric outcomes in the core's terms: refusals and bounds are certain; anything else is unknown. */
    static MemoryStatus map(final OpStatus status)
    {
        switch (status)
        {
            case OK:
                return MemoryStatus.OK;
            case REFUSED_NOT_NEIGHBOUR:
            case BAD_CLUSTER_KEY:
            case REGION_MISMATCH:
            case FENCED:
                return MemoryStatus.REFUSED;
            case OUT_OF_BOUNDS:
            case MISALIGNED:
            case BAD_LENGTH:
                return MemoryStatus.OUT_OF_BOUNDS;
            default:
                return MemoryStatus.TIMEOUT;
        }
    }
}
