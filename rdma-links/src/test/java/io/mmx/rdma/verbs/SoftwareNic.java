package io.mmx.rdma.verbs;

import io.mmx.rdma.fabric.OpType;
import io.mmx.rdma.region.RegionHeader;
import io.mmx.rdma.region.RegionMemory;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayDeque;

/**
 * A queue pair whose "NIC" is this class: it decodes each posted work request from native
 * memory using the C layout (as a real NIC's driver would), executes it on the target region
 * with CPU atomics, and queues a completion. Unknown opcodes, flags or SGE counts fail the test;
 * a wrong rkey or a range outside the region gives {@code IBV_WC_REM_ACCESS_ERR}, as on hardware.
 */
final class SoftwareNic implements VerbsQueuePair
{
    private final RegionMemory region;
    private final long remoteBase;
    private final int rkey;
    private final ArrayDeque<long[]> completions = new ArrayDeque<>();
    int posted;
    boolean failNext;

    SoftwareNic(final RegionMemory region, final int rkey)
    {
        this.region = region;
        this.rkey = rkey;
        this.remoteBase = region.buffer().addressOffset() + RegionHeader.HEADER_BYTES;
    }

    long remoteBase()
    {
        return remoteBase;
    }

    @Override
    public boolean post(final long wrAddress)
    {
        posted++;
        final UnsafeBuffer wr = new UnsafeBuffer(wrAddress, VerbsAbi.SEND_WR_SIZE);
        final long wrId = wr.getLong(VerbsAbi.WR_ID_OFFSET);
        if (failNext)
        {
            failNext = false;
            completions.add(new long[]{wrId, VerbsAbi.IBV_WC_RETRY_EXC_ERR});
            return true;
        }
        check(wr.getLong(VerbsAbi.NEXT_OFFSET) == 0, "next must be NULL");
        check(wr.getInt(VerbsAbi.NUM_SGE_OFFSET) == 1, "num_sge must be 1");
        check(wr.getInt(VerbsAbi.SEND_FLAGS_OFFSET) == VerbsAbi.IBV_SEND_SIGNALED, "requests must be signalled");
        final UnsafeBuffer sge = new UnsafeBuffer(wr.getLong(VerbsAbi.SG_LIST_OFFSET), VerbsAbi.SGE_SIZE);
        final int length = sge.getInt(VerbsAbi.SGE_LENGTH_OFFSET);
        final UnsafeBuffer local = new UnsafeBuffer(sge.getLong(VerbsAbi.SGE_ADDR_OFFSET), length);
        final int opcode = wr.getInt(VerbsAbi.OPCODE_OFFSET);
        final boolean atomic = opcode == VerbsAbi.IBV_WR_ATOMIC_CMP_AND_SWP || opcode == VerbsAbi.IBV_WR_ATOMIC_FETCH_AND_ADD;
        final long remote = wr.getLong(atomic ? VerbsAbi.ATOMIC_REMOTE_ADDR_OFFSET : VerbsAbi.RDMA_REMOTE_ADDR_OFFSET);
        final int key = wr.getInt(atomic ? VerbsAbi.ATOMIC_RKEY_OFFSET : VerbsAbi.RDMA_RKEY_OFFSET);
        final long offset = remote - remoteBase;
        if (key != rkey || offset < 0 || offset + length > region.dataBytes())
        {
            completions.add(new long[]{wrId, VerbsAbi.IBV_WC_REM_ACCESS_ERR});
            return true;
        }
        switch (opcode)
        {
            case VerbsAbi.IBV_WR_ATOMIC_CMP_AND_SWP:
                check(length == 8, "atomics move 8 bytes");
                local.putLong(0, region.executeWord(OpType.COMPARE_AND_SWAP, offset,
                    wr.getLong(VerbsAbi.ATOMIC_COMPARE_ADD_OFFSET), wr.getLong(VerbsAbi.ATOMIC_SWAP_OFFSET)));
                break;
            case VerbsAbi.IBV_WR_ATOMIC_FETCH_AND_ADD:
                check(length == 8, "atomics move 8 bytes");
                local.putLong(0, region.executeWord(OpType.FETCH_AND_ADD, offset,
                    wr.getLong(VerbsAbi.ATOMIC_COMPARE_ADD_OFFSET), 0));
                break;
            case VerbsAbi.IBV_WR_RDMA_READ:
                if (length == 8 && (offset & 7) == 0)
                {
                    local.putLong(0, region.executeWord(OpType.READ, offset, 0, 0));
                }
                else
                {
                    region.readBulk(offset, local, 0, length);
                }
                break;
            case VerbsAbi.IBV_WR_RDMA_WRITE:
                if (length == 8 && (offset & 7) == 0)
                {
                    region.executeWord(OpType.WRITE, offset, local.getLong(0), 0);
                }
                else
                {
                    region.writeBulk(offset, local, 0, length);
                }
                break;
            default:
                throw new AssertionError("unexpected opcode " + opcode);
        }
        completions.add(new long[]{wrId, VerbsAbi.IBV_WC_SUCCESS});
        return true;
    }

    @Override
    public int poll(final WorkCompletionHandler handler, final int max)
    {
        int n = 0;
        while (n < max && !completions.isEmpty())
        {
            final long[] c = completions.poll();
            handler.onCompletion(c[0], (int)c[1]);
            n++;
        }
        return n;
    }

    @Override
    public void close()
    {
        completions.clear();
    }

    private static void check(final boolean condition, final String what)
    {
        if (!condition)
        {
            throw new AssertionError("malformed work request: " + what);
        }
    }
}
