package io.mmx.rdma.verbs;

import io.mmx.rdma.fabric.CompletionSink;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.OpType;
import io.mmx.rdma.fabric.RegionLink;
import io.mmx.rdma.region.RegionMemory;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;

/**
 * A link over an RC queue pair: each operation is one signalled work request encoded by
 * {@link SendWorkRequestEncoder} into a slot of registered scratch memory; the NIC writes the
 * old word (CAS, fetch-and-add, read) or the bytes read into the slot's data area, and the
 * completion maps back to the operation by slot. Bounds and alignment are checked before
 * posting, as every backend does, so the NIC sees only valid requests.
 *
 * <p>The link is one binding of one era's region of the owner on the queue pair of its edge end
 * ({@link VerbsEdgeConnection}): links from a {@link VerbsQueuePairs} pool share that queue pair
 * across eras, so a live plan change keeps the queue pairs of the edges both plans share. A link
 * opened on its own ({@link #VerbsRegionLink(int, int, VerbsConnector)}) has a queue pair of its own.
 *
 * <p>Scratch layout, per binding: {@link #WORD_SLOTS} slots of (work request, 8-byte data) followed
 * by {@link #BULK_SLOTS} slots of (work request, {@link MemoryFabric#MAX_BULK_BYTES} data);
 * {@link #SCRATCH_BYTES} in total, binding b's share at b × SCRATCH_BYTES.
 *
 * <p>Open question for hardware validation: this code assumes the NIC returns the old word of
 * an atomic in host byte order and operates on region words in host byte order.
 */
public final class VerbsRegionLink implements RegionLink
{
    /** In-flight word operations per link. */
    public static final int WORD_SLOTS = 64;
    /** In-flight bulk operations per link. */
    public static final int BULK_SLOTS = 4;

    private static final int WR_BYTES = align64(SendWorkRequestEncoder.ENCODED_LENGTH);
    private static final int WORD_SLOT_BYTES = WR_BYTES + 64;
    private static final int BULK_SLOT_BYTES = WR_BYTES + MemoryFabric.MAX_BULK_BYTES;
    /** Registered scratch memory one link (one binding) needs. */
    public static final int SCRATCH_BYTES = WORD_SLOTS * WORD_SLOT_BYTES + BULK_SLOTS * BULK_SLOT_BYTES;

    private final int self;
    private final int owner;
    private final VerbsHandshake codec;
    private final VerbsEdgeConnection connection;
    private final int binding;
    private final long[] slotCorrelation = new long[WORD_SLOTS + BULK_SLOTS];
    private final OpType[] slotType = new OpType[WORD_SLOTS + BULK_SLOTS];
    private final int[] slotLength = new int[WORD_SLOTS + BULK_SLOTS];
    private final boolean[] slotBusy = new boolean[WORD_SLOTS + BULK_SLOTS];
    private OpStatus status = OpStatus.NOT_CONNECTED;
    private String message;
    private int generation;
    private long remoteBase;
    private int rkey;
    private long dataBytes;
    private boolean closed;
    private CompletionSink sink;

    /** Connects through {@code connector} on a queue pair of its own; a failed handshake is retried on the next operation. */
    public VerbsRegionLink(final int self, final int owner, final VerbsConnector connector)
    {
        this(self, owner, null, new VerbsEdgeConnection(null, null, new VerbsEdgeConnection.Dial()
        {
            @Override
            public VerbsConnector.Connection connect(final VerbsRegionLink link, final int bindings)
            {
                return connector.connect(self, owner);
            }

            @Override
            public VerbsConnector.Connection open(final VerbsHandshake codec, final int self, final int owner,
                final int bindings)
            {
                // A link of its own connects with its region: never opened ahead.
                return VerbsConnector.Connection.failed(OpStatus.NOT_CONNECTED, "a link of its own connects with " +
                    "its region");
            }

            @Override
            public VerbsHandshake.Grant bind(final VerbsRegionLink link)
            {
                // One binding, bound by its connect: never asked.
                return VerbsHandshake.Grant.refused(OpStatus.NOT_CONNECTED, "a link of its own binds by connecting");
            }

            @Override
            public void release(final VerbsRegionLink link)
            {
            }
        }, self, owner, 1));
    }

    /** A binding of {@code codec}'s era region on {@code connection}, connected or bound at once. */
    VerbsRegionLink(final int self, final int owner, final VerbsHandshake codec, final VerbsEdgeConnection connection)
    {
        this.self = self;
        this.owner = owner;
        this.codec = codec;
        this.connection = connection;
        this.message = "the link of process " + self + " to the region of process " + owner + " is connecting";
        this.binding = connection.bind(this);
        connection.ready(this);
    }

    @Override
    public int owner()
    {
        return owner;
    }

    /** The requesting process. */
    int self()
    {
        return self;
    }

    /** The codec of this binding's era and plan (null for a link of its own). */
    VerbsHandshake codec()
    {
        return codec;
    }

    /** The rkey this binding posts with, once bound (diagnostics and tests). */
    int rkey()
    {
        return rkey;
    }

    @Override
    public OpStatus state()
    {
        if (closed)
        {
            return OpStatus.CLOSED;
        }
        return status == OpStatus.OK && !connection.boundNow(this) ? OpStatus.NOT_CONNECTED : status;
    }

    @Override
    public String stateMessage()
    {
        return closed ? "link to process " + owner + " is closed" : message;
    }

    @Override
    public void submit(
        final long correlationId,
        final OpType type,
        final long offset,
        final long operand1,
        final long operand2,
        final MutableDirectBuffer dst,
        final DirectBuffer src,
        final int bufOffset,
        final int length,
        final CompletionSink sink)
    {
        this.sink = sink;
        if (closed)
        {
            sink.complete(correlationId, OpStatus.CLOSED, 0, null, 0);
            return;
        }
        // Connects, or binds this era's region on the edge's queue pair, when not yet or no longer done.
        if (!connection.ready(this))
        {
            sink.complete(correlationId, state(), 0, null, 0);
            return;
        }
        final OpStatus check = RegionMemory.check(type, offset, length, dataBytes);
        if (check != OpStatus.OK)
        {
            sink.complete(correlationId, check, 0, null, 0);
            return;
        }
        final int slot = acquire(type.isWordOp());
        if (slot < 0)
        {
            sink.complete(correlationId, OpStatus.BACK_PRESSURED, 0, null, 0);
            return;
        }
        final AtomicBuffer scratch = connection.scratch();
        final int wrIndex = slotOffset(slot);
        final int dataIndex = wrIndex + WR_BYTES;
        final int bytes = type.isWordOp() ? Long.BYTES : length;
        if (type == OpType.WRITE)
        {
            scratch.putLong(dataIndex, operand1);
        }
        else if (type == OpType.WRITE_BULK)
        {
            scratch.putBytes(dataIndex, src, bufOffset, length);
        }
        final long wr = SendWorkRequestEncoder.encode(scratch, wrIndex, connection.workRequestId(binding, slot), type,
            scratch.addressOffset() + dataIndex, bytes, connection.lkey(), remoteBase + offset, rkey, operand1,
            operand2);
        slotCorrelation[slot] = correlationId;
        slotType[slot] = type;
        slotLength[slot] = bytes;
        if (!connection.queuePair().post(wr))
        {
            slotBusy[slot] = false;
            sink.complete(correlationId, OpStatus.BACK_PRESSURED, 0, null, 0);
        }
    }

    @Override
    public int doWork(final CompletionSink sink)
    {
        this.sink = sink;
        // Completions go to the link that posted them: the queue pair may carry other eras' links.
        return closed ? 0 : connection.doWork(WORD_SLOTS + BULK_SLOTS);
    }

    /** Releases this era's binding; the queue pair closes with its last one. */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            connection.release(binding);
        }
    }

    int generation()
    {
        return generation;
    }

    OpStatus status()
    {
        return status;
    }

    /** The host granted this binding's region on the queue pair of {@code generation}. */
    void bound(final int generation, final long remoteBase, final int rkey, final long dataBytes,
        final String message)
    {
        this.generation = generation;
        this.remoteBase = remoteBase;
        this.rkey = rkey;
        this.dataBytes = dataBytes;
        this.status = OpStatus.OK;
        this.message = message;
    }

    /** The host refused this binding's region, or could not be reached. */
    void refused(final OpStatus status, final String message)
    {
        this.status = status;
        this.message = message;
    }

    /** A successful completion of {@code slot}. */
    void completed(final int slot)
    {
        if (slot < 0 || slot >= slotBusy.length || !slotBusy[slot])
        {
            return; // not ours: a completion for a request this link did not post
        }
        slotBusy[slot] = false;
        final long correlationId = slotCorrelation[slot];
        final int dataIndex = slotOffset(slot) + WR_BYTES;
        final AtomicBuffer scratch = connection.scratch();
        final OpType type = slotType[slot];
        if (type == OpType.READ_BULK)
        {
            sink.complete(correlationId, OpStatus.OK, slotLength[slot], scratch, dataIndex);
        }
        else if (type == OpType.WRITE_BULK)
        {
            sink.complete(correlationId, OpStatus.OK, slotLength[slot], null, 0);
        }
        else
        {
            sink.complete(correlationId, OpStatus.OK, type == OpType.WRITE ? 0 : scratch.getLongVolatile(dataIndex),
                null, 0);
        }
    }

    /**
     * The queue pair went to the error state (an error completion, this link's or another binding's):
     * the requests behind the error are flushed, and the completions of those before it may never be
     * polled. So every operation this link held completes now: the failed one ({@code failedSlot}, or
     * none) with what it says (a remote access error means it was refused, so not executed), the
     * others TIMEOUT, "outcome unknown". The link reconnects, or binds again, on its next operation.
     */
    void queuePairFailed(final String why, final int failedSlot, final int wcStatus)
    {
        status = OpStatus.NOT_CONNECTED;
        message = why;
        if (failedSlot >= 0 && failedSlot < slotBusy.length && slotBusy[failedSlot])
        {
            slotBusy[failedSlot] = false;
            sink.complete(slotCorrelation[failedSlot], wcStatus == VerbsAbi.IBV_WC_REM_ACCESS_ERR ?
                OpStatus.REGION_MISMATCH : OpStatus.TIMEOUT, 0, null, 0);
        }
        for (int other = 0; other < slotBusy.length; other++)
        {
            if (slotBusy[other])
            {
                slotBusy[other] = false;
                sink.complete(slotCorrelation[other], OpStatus.TIMEOUT, 0, null, 0);
            }
        }
    }

    private int acquire(final boolean word)
    {
        final int from = word ? 0 : WORD_SLOTS;
        final int to = word ? WORD_SLOTS : WORD_SLOTS + BULK_SLOTS;
        for (int i = from; i < to; i++)
        {
            if (!slotBusy[i])
            {
                slotBusy[i] = true;
                return i;
            }
        }
        return -1;
    }

    private int slotOffset(final int slot)
    {
        return binding * SCRATCH_BYTES + (slot < WORD_SLOTS ?
            slot * WORD_SLOT_BYTES : WORD_SLOTS * WORD_SLOT_BYTES + (slot - WORD_SLOTS) * BULK_SLOT_BYTES);
    }

    private static int align64(final int value)
    {
        return (value + 63) & ~63;
    }
}
