package io.mmx.rdma.fabric;

/**
 * Outcome of one memory-fabric operation. Every backend reports the same status for the same
 * cause, so the protocol core can react without knowing which backend it runs on.
 */
public enum OpStatus
{
    /** The operation took effect; the completion value is meaningful. */
    OK,
    /**
     * No answer before the deadline. The outcome is UNKNOWN: a timed-out write, compare-and-swap or
     * fetch-and-add may still have taken effect, so the caller must re-read before relying on it.
     */
    TIMEOUT,
    /** The requester is neither the region's owner nor one of the owner's plan neighbours. */
    REFUSED_NOT_NEIGHBOUR,
    /** The range [offset, offset + length) leaves the region's data area. */
    OUT_OF_BOUNDS,
    /** A word operation named an offset that is not a multiple of 8. */
    MISALIGNED,
    /** A bulk length is zero, negative or above {@link MemoryFabric#MAX_BULK_BYTES}. */
    BAD_LENGTH,
    /** The request was not authenticated by the cluster key the region (or daemon) holds. */
    BAD_CLUSTER_KEY,
    /** The region does not exist (never created, deleted, or its host is gone). */
    REGION_LOST,
    /** The region exists but was created for another plan, owner or size. */
    REGION_MISMATCH,
    /** Too many operations are outstanding; nothing was submitted, retry after polling. */
    BACK_PRESSURED,
    /** The link to the region's host is down; the operation was not (or may not have been) sent. */
    NOT_CONNECTED,
    /** The peer sent something this side cannot parse or verify; the link was closed. */
    PROTOCOL_ERROR,
    /** The fabric was closed before the operation completed. */
    CLOSED,
    /**
     * Not sent, so it did not happen: an earlier operation of this process on the same region
     * timed out and its completion has not arrived, so it may still land. Sending now could let
     * the old operation land after this one. Retry once the old one's completion arrives.
     */
    FENCED;

    private static final OpStatus[] VALUES = values();

    /** The status with the given ordinal, or {@link #PROTOCOL_ERROR} if it names none (wire decoding). */
    public static OpStatus fromCode(final int code)
    {
        return code >= 0 && code < VALUES.length ? VALUES[code] : PROTOCOL_ERROR;
    }

    /** Number of statuses, for counter arrays indexed by ordinal. */
    public static int count()
    {
        return VALUES.length;
    }
}
