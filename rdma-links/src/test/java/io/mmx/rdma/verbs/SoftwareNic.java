package io.mmx.rdma.verbs;

import io.mmx.rdma.region.RegionHeader;
import io.mmx.rdma.region.RegionMemory;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayDeque;
import java.util.function.IntFunction;

/**
 * A queue pair whose "NIC" is this class: it decodes each posted work request from native
 * memory using the C layout (as a real NIC's driver would), executes it on the registered memory
 * its rkey names with CPU atomics, and queues a completion. Unknown opcodes, flags or SGE counts
 * fail the test; an rkey this queue pair may not use (unknown, deregistered, or of another
 * protection domain: see {@link SoftwareHca}) or a range outside its memory gives
 * {@code IBV_WC_REM_ACCESS_ERR}, as on hardware.
 */
final class SoftwareNic implements VerbsQueuePair
{
    /** Registered memory as this queue pair may reach it: its first byte's address and its bytes. */
    record Area(long base, UnsafeBuffer memory)
    {
    }

    private final IntFunction<Area> areaOf;
    private final long remoteBase;
    private final ArrayDeque<long[]> completions = new ArrayDeque<>();
    int posted;
    boolean failNext;

    /** A queue pair that reaches the data area of {@code region} by {@code rkey} and nothing else. */
    SoftwareNic(final RegionMemory region, final int rkey)
    {
        this.remoteBase = region.buffer().addressOffset() + RegionHeader.HEADER_BYTES;
        final Area area = new Area(remoteBase, new UnsafeBuffer(remoteBase, Math.toIntExact(region.dataBytes())));
        this.areaOf = (key) -> key == rkey ? area : null;
    }

    /** A queue pair that reaches what {@code areaOf} opens to it by rkey (null: a remote access error). */
    SoftwareNic(final IntFunction<Area> areaOf)
    {
        this.areaOf = areaOf;
        this.remoteBase = 0;
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
        final Area area = areaOf.apply(key);
        final long offset = area == null ? -1 : remote - area.base();
        if (area == null || offset < 0 || offset + length > area.memory().capacity())
        {
            completions.add(new long[]{wrId, VerbsAbi.IBV_WC_REM_ACCESS_ERR});
            return true;
        }
        final UnsafeBuffer memory = area.memory();
        final int at = (int)offset;
        switch (opcode)
        {
            case VerbsAbi.IBV_WR_ATOMIC_CMP_AND_SWP:
                check(length == 8, "atomics move 8 bytes");
                local.putLong(0, compareAndSwap(memory, at, wr.getLong(VerbsAbi.ATOMIC_COMPARE_ADD_OFFSET),
                    wr.getLong(VerbsAbi.ATOMIC_SWAP_OFFSET)));
                break;
            case VerbsAbi.IBV_WR_ATOMIC_FETCH_AND_ADD:
                check(length == 8, "atomics move 8 bytes");
                local.putLong(0, memory.getAndAddLong(at, wr.getLong(VerbsAbi.ATOMIC_COMPARE_ADD_OFFSET)));
                break;
            case VerbsAbi.IBV_WR_RDMA_READ:
                if (length == 8 && (offset & 7) == 0)
                {
                    local.putLong(0, memory.getLongVolatile(at));
                }
                else
                {
                    memory.getBytes(at, local, 0, length);
                }
                break;
            case VerbsAbi.IBV_WR_RDMA_WRITE:
                if (length == 8 && (offset & 7) == 0)
                {
                    memory.putLongVolatile(at, local.getLong(0));
                }
                else
                {
                    memory.putBytes(at, local, 0, length);
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

    // The NIC's compare-and-swap: the word before the operation, swapped only if it was expected.
    private static long compareAndSwap(final UnsafeBuffer memory, final int at, final long expected, final long desired)
    {
        while (true)
        {
            final long seen = memory.getLongVolatile(at);
            if (seen != expected || memory.compareAndSetLong(at, expected, desired))
            {
                return seen;
            }
        }
    }

    private static void check(final boolean condition, final String what)
    {
        if (!condition)
        {
            throw new AssertionError("malformed work request: " + what);
        }
    }
}
