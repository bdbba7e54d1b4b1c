package io.mmx.rdma.region;

import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.OpType;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;

/**
 * Executes one-sided operations on a region's data area with the checks every backend shares:
 * alignment, bounds and bulk length. The word operations are hardware atomics on the backing
 * memory ({@code lock cmpxchg} / {@code lock xadd} on x86), so they are linearizable across
 * threads and, for shared mappings, across processes.
 *
 * <p>Thread-safe for the word operations; bulk operations are not atomic (as on RDMA).
 */
public final class RegionMemory
{
    private final AtomicBuffer buffer;
    private final long dataBytes;
    private final int owner;

    /**
     * Wraps a region whose header is valid.
     *
     * @param buffer the whole region, header first; must be 8-byte aligned in memory.
     * @param owner  the owning process.
     */
    public RegionMemory(final AtomicBuffer buffer, final int owner)
    {
        if ((buffer.addressOffset() & 7) != 0 && buffer.byteArray() == null)
        {
            throw new IllegalArgumentException("region memory at address " + buffer.addressOffset() +
                " is not 8-byte aligned: allocate it with BufferUtil.allocateDirectAligned or map a file");
        }
        this.buffer = buffer;
        this.owner = owner;
        this.dataBytes = RegionHeader.dataBytes(buffer);
    }

    /** The owning process. */
    public int owner()
    {
        return owner;
    }

    /** Size of the data area. */
    public long dataBytes()
    {
        return dataBytes;
    }

    /** The whole region, header first (for tests and the daemon's diagnostics). */
    public AtomicBuffer buffer()
    {
        return buffer;
    }

    /**
     * Checks an operation's address range before anything is touched.
     *
     * @param length bytes for bulk operations; ignored for word operations (always 8).
     * @return OK, MISALIGNED, OUT_OF_BOUNDS or BAD_LENGTH.
     */
    public OpStatus check(final OpType type, final long offset, final int length)
    {
        return check(type, offset, length, dataBytes);
    }

    /** {@link #check(OpType, long, int)} against a given data size, for clients that know it. */
    public static OpStatus check(final OpType type, final long offset, final int length, final long dataBytes)
    {
        if (type.isWordOp())
        {
            if ((offset & 7) != 0)
            {
                return OpStatus.MISALIGNED;
            }
            return offset >= 0 && offset <= dataBytes - 8 ? OpStatus.OK : OpStatus.OUT_OF_BOUNDS;
        }
        if (length <= 0 || length > MemoryFabric.MAX_BULK_BYTES)
        {
            return OpStatus.BAD_LENGTH;
        }
        return offset >= 0 && offset <= dataBytes - length ? OpStatus.OK : OpStatus.OUT_OF_BOUNDS;
    }

    /**
     * Executes a checked word operation.
     *
     * @param operand1 the value (WRITE), expected (CAS) or delta (FETCH_AND_ADD).
     * @param operand2 desired (CAS).
     * @return the word read, the previous word (CAS, FETCH_AND_ADD), or 0 (WRITE).
     */
    public long executeWord(final OpType type, final long offset, final long operand1, final long operand2)
    {
        final int index = RegionHeader.HEADER_BYTES + (int)offset;
        switch (type)
        {
            case READ:
                return buffer.getLongVolatile(index);
            case WRITE:
                buffer.putLongVolatile(index, operand1);
                return 0;
            case COMPARE_AND_SWAP:
                return compareAndExchange(index, operand1, operand2);
            case FETCH_AND_ADD:
                return buffer.getAndAddLong(index, operand1);
            default:
                throw new IllegalArgumentException(type + " is not a word operation");
        }
    }

    /** Copies a checked range out of the region. */
    public void readBulk(final long offset, final MutableDirectBuffer dst, final int dstOffset, final int length)
    {
        dst.putBytes(dstOffset, buffer, RegionHeader.HEADER_BYTES + (int)offset, length);
    }

    /** Copies into a checked range of the region. */
    public void writeBulk(final long offset, final DirectBuffer src, final int srcOffset, final int length)
    {
        buffer.putBytes(RegionHeader.HEADER_BYTES + (int)offset, src, srcOffset, length);
    }

    // RDMA's CAS returns the previous word; Java's returns a boolean. A failed comparison is
    // linearized at the volatile read that saw the other value; a success at the CAS itself.
    private long compareAndExchange(final int index, final long expected, final long desired)
    {
        while (true)
        {
            final long current = buffer.getLongVolatile(index);
            if (current != expected)
            {
                return current;
            }
            if (buffer.compareAndSetLong(index, expected, desired))
            {
                return expected;
            }
        }
    }
}
