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
 * A link over one RC queue pair: each operation is one signalled work request encoded by
 * {@link SendWorkRequestEncoder} into a slot of registered scratch memory; the NIC writes the
 * old word (CAS, fetch-and-add, read) or the bytes read into the slot's data area, and the
 * completion maps back to the operation by slot. Bounds and alignment are checked before
 * posting, as every backend does, so the NIC sees only valid requests.
 *
 * <p>Scratch layout: {@link #WORD_SLOTS} slots of (work request, 8-byte data) followed by
 * {@link #BULK_SLOTS} slots of (work request, {@link MemoryFabric#MAX_BULK_BYTES} data);
 * {@link #SCRATCH_BYTES} in total.
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
    /** Registered scratch memory one link needs. */
    public static final int SCRATCH_BYTES = WORD_SLOTS * WORD_SLOT_BYTES + BULK_SLOTS * BULK_SLOT_BYTES;

    private final int self;
    private final int owner;
    private final VerbsConnector connector;
    private final long[] slotCorrelation = new long[WORD_SLOTS + BULK_SLOTS];
    private final OpType[] slotType = new OpType[WORD_SLOTS + BULK_SLOTS];
    private final int[] slotLength = new int[WORD_SLOTS + BULK_SLOTS];
    private final boolean[] slotBusy = new boolean[WORD_SLOTS + BULK_SLOTS];
    private final VerbsQueuePair.WorkCompletionHandler onWorkCompletion = this::onWorkCompletion;
    private VerbsConnector.Connection connection;
    private CompletionSink sink;

    /** Connects through {@code connector}; a failed handshake is retried on the next operation. */
    public VerbsRegionLink(final int self, final int owner, final VerbsConnector connector)
    {
        this.self = self;
        this.owner = owner;
        this.connector = connector;
        this.connection = connector.connect(self, owner);
        checkScratch();
    }

    @Override
    public int owner()
    {
        return owner;
    }

    @Override
    public OpStatus state()
    {
        return connection.status();
    }

    @Override
    public String stateMessage()
    {
        return connection.message();
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
        final OpStatus state = connection.status();
        if (state == OpStatus.REGION_LOST || state == OpStatus.NOT_CONNECTED)
        {
            // The owner may have created its region, or its host come back, since.
            connection = connector.connect(self, owner);
            checkScratch();
        }
        if (connection.status() != OpStatus.OK)
        {
            sink.complete(correlationId, connection.status(), 0, null, 0);
            return;
        }
        final OpStatus check = RegionMemory.check(type, offset, length, connection.dataBytes());
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
        final long wr = SendWorkRequestEncoder.encode(scratch, wrIndex, slot, type,
            scratch.addressOffset() + dataIndex, bytes, connection.lkey(),
            connection.remoteBase() + offset, connection.rkey(), operand1, operand2);
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
        final VerbsQueuePair qp = connection.queuePair();
        return qp == null ? 0 : qp.poll(onWorkCompletion, WORD_SLOTS + BULK_SLOTS);
    }

    @Override
    public void close()
    {
        if (connection.queuePair() != null)
        {
            connection.queuePair().close();
        }
        connection = VerbsConnector.Connection.failed(OpStatus.CLOSED, "link to process " + owner + " is closed");
    }

    private void onWorkCompletion(final long wrId, final int wcStatus)
    {
        final int slot = (int)wrId;
        if (slot < 0 || slot >= slotBusy.length || !slotBusy[slot])
        {
            return; // not ours: a completion for a request this link did not post
        }
        slotBusy[slot] = false;
        final long correlationId = slotCorrelation[slot];
        final int dataIndex = slotOffset(slot) + WR_BYTES;
        final AtomicBuffer scratch = connection.scratch();
        switch (wcStatus)
        {
            case VerbsAbi.IBV_WC_SUCCESS:
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
                break;
            default:
                // Any error completion moves an RC queue pair to the error state: the requests behind this one are
                // flushed, and the completions of those before it may never be polled. So the link goes to
                // reconnect, and every operation it held completes now: this one with what it says (a remote
                // access error means it was refused, so not executed), the others TIMEOUT, "outcome unknown".
                failQueuePair(slot, correlationId, wcStatus);
                break;
        }
    }

    private void failQueuePair(final int failedSlot, final long failedCorrelationId, final int wcStatus)
    {
        connection.queuePair().close();
        connection = VerbsConnector.Connection.failed(OpStatus.NOT_CONNECTED, "the queue pair to process " + owner +
            " failed with work completion status " + wcStatus + (wcStatus == VerbsAbi.IBV_WC_REM_ACCESS_ERR ?
            " (remote access error: the grant's rkey or size no longer matches the region)" : "") +
            "; it is reconnected on the next operation");
        sink.complete(failedCorrelationId, wcStatus == VerbsAbi.IBV_WC_REM_ACCESS_ERR ? OpStatus.REGION_MISMATCH :
            OpStatus.TIMEOUT, 0, null, 0);
        for (int other = 0; other < slotBusy.length; other++)
        {
            if (slotBusy[other] && other != failedSlot)
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

    private static int slotOffset(final int slot)
    {
        return slot < WORD_SLOTS ?
            slot * WORD_SLOT_BYTES : WORD_SLOTS * WORD_SLOT_BYTES + (slot - WORD_SLOTS) * BULK_SLOT_BYTES;
    }

    private void checkScratch()
    {
        if (connection.status() == OpStatus.OK && connection.scratch().capacity() < SCRATCH_BYTES)
        {
            throw new IllegalArgumentException("verbs scratch memory is " + connection.scratch().capacity() +
                " bytes, a link needs " + SCRATCH_BYTES + ": register VerbsRegionLink.SCRATCH_BYTES per link");
        }
    }

    private static int align64(final int value)
    {
        return (value + 63) & ~63;
    }
}
