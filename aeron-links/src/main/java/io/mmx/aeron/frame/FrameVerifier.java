package io.mmx.aeron.frame;

import org.agrona.DirectBuffer;

/**
 * Checks a received frame in order of cost: length, version, layout, cluster id, then the tag.
 * The first failing check is counted in {@link FrameCounters} and the frame is dropped.
 * <p>
 * Never throws on any input and allocates nothing; not thread-safe (one per polling thread).
 */
public final class FrameVerifier
{
    private final FrameKey key;
    private final int maxFrameLengthBytes;
    private final FrameCounters counters;
    private final FrameHeader header = new FrameHeader();

    /**
     * @param key                 of this cluster.
     * @param maxFrameLengthBytes longest frame accepted, tag included.
     * @param counters            to count into.
     */
    public FrameVerifier(final FrameKey key, final int maxFrameLengthBytes, final FrameCounters counters)
    {
        this.key = key;
        this.maxFrameLengthBytes = maxFrameLengthBytes;
        this.counters = counters;
    }

    /**
     * Verify a frame; on success {@link #header()} is wrapped around it.
     *
     * @param buffer holding the frame.
     * @param offset of the frame.
     * @param length received length in bytes.
     * @return null when the frame is good, otherwise the reason it was dropped (already counted).
     */
    public DropReason verify(final DirectBuffer buffer, final int offset, final int length)
    {
        final DropReason reason = check(buffer, offset, length);
        if (reason != null)
        {
            counters.onDropped(reason);
        }
        return reason;
    }

    /** @return the header of the last frame that verified. */
    public FrameHeader header()
    {
        return header;
    }

    /** @return the counters this verifier counts into. */
    public FrameCounters counters()
    {
        return counters;
    }

    private DropReason check(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < FrameHeader.OVERHEAD_LENGTH)
        {
            return DropReason.TRUNCATED;
        }
        if (length > maxFrameLengthBytes)
        {
            return DropReason.OVERSIZED;
        }
        header.wrap(buffer, offset);
        if (header.version() != FrameHeader.VERSION)
        {
            return DropReason.BAD_VERSION;
        }
        if (header.payloadLength() != length - FrameHeader.OVERHEAD_LENGTH)
        {
            // A payload length larger than what arrived is the truncation Aeron cannot see.
            return header.payloadLength() > length - FrameHeader.OVERHEAD_LENGTH ?
                DropReason.TRUNCATED : DropReason.MALFORMED;
        }
        if (header.clusterId() != key.clusterId())
        {
            return DropReason.FOREIGN_CLUSTER;
        }
        if (!key.verify(buffer, offset, length))
        {
            return DropReason.BAD_TAG;
        }
        if (header.reserved() != 0)
        {
            return DropReason.MALFORMED;
        }
        counters.onAccepted();
        return null;
    }
}
