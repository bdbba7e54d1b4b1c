package io.mmx.aeron.frame;

/**
 * Why a received frame was dropped, or why a send did not happen. Each reason has its own counter
 * in {@link FrameCounters}.
 */
public enum DropReason
{
    /** Shorter than header plus tag. */
    TRUNCATED,
    /** Longer than the configured maximum frame length. */
    OVERSIZED,
    /** Unknown wire format version. */
    BAD_VERSION,
    /** Payload length field disagrees with the received length, or reserved bits set. */
    MALFORMED,
    /** Cluster id of another cluster. */
    FOREIGN_CLUSTER,
    /** Tag does not verify with this cluster's key. */
    BAD_TAG,
    /** Source id not in the directory. */
    UNKNOWN_SOURCE,
    /** Destination id not hosted at this endpoint. */
    UNKNOWN_DESTINATION,
    /** Authentic frame whose sequence is not above the last accepted from its source: a replay. */
    REPLAYED,
    /** Frame type the layer above does not know, or its payload failed to decode. */
    BAD_PAYLOAD,
    /** Send: the publication stayed back-pressured through every retry. */
    SEND_BACK_PRESSURED,
    /** Send: no subscriber connected to the destination endpoint yet, or any more. */
    SEND_NOT_CONNECTED,
    /** Send: the publication was closed or reached its maximum position. */
    SEND_CLOSED,
    /** Send: destination unknown to the directory, or payload too long. */
    SEND_REJECTED;

    private static final DropReason[] VALUES = values();

    /**
     * @param ordinal of a reason.
     * @return the reason.
     */
    public static DropReason get(final int ordinal)
    {
        return VALUES[ordinal];
    }
}
