package io.mmx.rdma.verbs;

import io.mmx.rdma.fabric.OpType;
import org.agrona.concurrent.AtomicBuffer;

/**
 * Writes one signalled {@code struct ibv_send_wr} followed by its single {@code struct ibv_sge}
 * into native memory, in the layout of {@link VerbsAbi}; the address of the work request is
 * what {@code ibv_post_send} receives. Every byte of both structs is written (unused union
 * members and padding as zero), so nothing stale from a previous request reaches the NIC.
 *
 * <p>The buffer must wrap native memory (its {@code addressOffset()} is a real address),
 * because {@code sg_list} points into it. Native byte order: the NIC driver converts.
 */
public final class SendWorkRequestEncoder
{
    /** Bytes one encoded request occupies: the work request, then its scatter/gather entry. */
    public static final int ENCODED_LENGTH = VerbsAbi.SEND_WR_SIZE + VerbsAbi.SGE_SIZE;

    private SendWorkRequestEncoder()
    {
    }

    /**
     * Encodes an operation at {@code index} of {@code buffer}.
     *
     * @param wrId        returned in the work completion (mmx uses the correlation id).
     * @param type        READ, WRITE, COMPARE_AND_SWAP, FETCH_AND_ADD, READ_BULK or WRITE_BULK.
     * @param localAddr   registered local memory: 8 bytes receiving the old word for atomics and reads.
     * @param length      bytes to move (8 for word operations).
     * @param lkey        the local memory registration's key.
     * @param remoteAddr  the remote word's virtual address (region base + header + offset).
     * @param rkey        the remote region's key, handed out for this edge.
     * @param compareAdd  expected value (CAS) or delta (fetch-and-add); ignored otherwise.
     * @param swap        desired value (CAS); ignored otherwise.
     * @return the native address of the work request, for {@code ibv_post_send}.
     */
    public static long encode(
        final AtomicBuffer buffer,
        final int index,
        final long wrId,
        final OpType type,
        final long localAddr,
        final int length,
        final int lkey,
        final long remoteAddr,
        final int rkey,
        final long compareAdd,
        final long swap)
    {
        buffer.setMemory(index, ENCODED_LENGTH, (byte)0);
        final long wrAddress = buffer.addressOffset() + index;
        final int sge = index + VerbsAbi.SEND_WR_SIZE;

        buffer.putLong(index + VerbsAbi.WR_ID_OFFSET, wrId);
        buffer.putLong(index + VerbsAbi.NEXT_OFFSET, 0L);
        buffer.putLong(index + VerbsAbi.SG_LIST_OFFSET, wrAddress + VerbsAbi.SEND_WR_SIZE);
        buffer.putInt(index + VerbsAbi.NUM_SGE_OFFSET, 1);
        buffer.putInt(index + VerbsAbi.OPCODE_OFFSET, opcode(type));
        buffer.putInt(index + VerbsAbi.SEND_FLAGS_OFFSET, VerbsAbi.IBV_SEND_SIGNALED);
        if (type == OpType.COMPARE_AND_SWAP || type == OpType.FETCH_AND_ADD)
        {
            buffer.putLong(index + VerbsAbi.ATOMIC_REMOTE_ADDR_OFFSET, remoteAddr);
            buffer.putLong(index + VerbsAbi.ATOMIC_COMPARE_ADD_OFFSET, compareAdd);
            buffer.putLong(index + VerbsAbi.ATOMIC_SWAP_OFFSET, type == OpType.COMPARE_AND_SWAP ? swap : 0L);
            buffer.putInt(index + VerbsAbi.ATOMIC_RKEY_OFFSET, rkey);
        }
        else
        {
            buffer.putLong(index + VerbsAbi.RDMA_REMOTE_ADDR_OFFSET, remoteAddr);
            buffer.putInt(index + VerbsAbi.RDMA_RKEY_OFFSET, rkey);
        }

        buffer.putLong(sge + VerbsAbi.SGE_ADDR_OFFSET, localAddr);
        buffer.putInt(sge + VerbsAbi.SGE_LENGTH_OFFSET, length);
        buffer.putInt(sge + VerbsAbi.SGE_LKEY_OFFSET, lkey);
        return wrAddress;
    }

    /** The verbs opcode of an mmx operation. */
    public static int opcode(final OpType type)
    {
        switch (type)
        {
            case READ:
            case READ_BULK:
                return VerbsAbi.IBV_WR_RDMA_READ;
            case WRITE:
            case WRITE_BULK:
                return VerbsAbi.IBV_WR_RDMA_WRITE;
            case COMPARE_AND_SWAP:
                return VerbsAbi.IBV_WR_ATOMIC_CMP_AND_SWP;
            case FETCH_AND_ADD:
                return VerbsAbi.IBV_WR_ATOMIC_FETCH_AND_ADD;
            default:
                throw new IllegalArgumentException("no verbs opcode for " + type);
        }
    }
}
