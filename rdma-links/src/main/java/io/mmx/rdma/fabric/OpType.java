package io.mmx.rdma.fabric;

/**
 * The one-sided operations of the memory fabric. Word operations act on one 8-byte aligned
 * little-endian word; bulk operations move up to {@link MemoryFabric#MAX_BULK_BYTES} bytes.
 */
public enum OpType
{
    /** Atomic 8-byte read; the completion value is the word. */
    READ,
    /** Atomic 8-byte write; the completion value is 0. */
    WRITE,
    /** Compare-and-swap; the completion value is the word before the operation (success iff it equals expected). */
    COMPARE_AND_SWAP,
    /** Fetch-and-add; the completion value is the word before the addition. */
    FETCH_AND_ADD,
    /** Bulk read into a caller buffer; the completion value is the byte count. */
    READ_BULK,
    /** Bulk write from a caller buffer (copied at submission); the completion value is the byte count. */
    WRITE_BULK;

    private static final OpType[] VALUES = values();

    /** The operation with the given ordinal, or null if it names none (wire decoding). */
    public static OpType fromCode(final int code)
    {
        return code >= 0 && code < VALUES.length ? VALUES[code] : null;
    }

    /** True for the single-word operations, which require 8-byte alignment. */
    public boolean isWordOp()
    {
        return this != READ_BULK && this != WRITE_BULK;
    }
}
