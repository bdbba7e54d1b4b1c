package io.mmx.aeron.frame;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Encodes signed frames into a caller-owned buffer; one per sending thread. Keeps the per-sender
 * sequence number.
 */
public final class FrameEncoder
{
    private final FrameKey key;
    private long sequence;

    /**
     * @param key of this cluster.
     */
    public FrameEncoder(final FrameKey key)
    {
        this(key, 0);
    }

    /**
     * @param key             of this cluster.
     * @param initialSequence the first frame gets initialSequence + 1; start a restarted sender above
     *                        anything it sent before (the transport uses epoch milliseconds × 2^20).
     */
    public FrameEncoder(final FrameKey key, final long initialSequence)
    {
        this.key = key;
        this.sequence = initialSequence;
    }

    /**
     * Encode header, payload copy and tag.
     *
     * @param dst           to write into; must hold payloadLength + {@link FrameHeader#OVERHEAD_LENGTH} bytes.
     * @param dstOffset     of the frame.
     * @param type          frame type, 0..255.
     * @param srcProcessId  sender.
     * @param dstProcessId  receiver or {@link FrameHeader#ALL_LOCAL}.
     * @param payload       source of the payload.
     * @param payloadOffset of the payload.
     * @param payloadLength in bytes, at most {@link FrameHeader#MAX_PAYLOAD_LENGTH}.
     * @return the frame length in bytes.
     */
    public int encode(
        final MutableDirectBuffer dst,
        final int dstOffset,
        final int type,
        final int srcProcessId,
        final int dstProcessId,
        final DirectBuffer payload,
        final int payloadOffset,
        final int payloadLength)
    {
        if (payloadLength < 0 || payloadLength > FrameHeader.MAX_PAYLOAD_LENGTH || (type & ~0xFF) != 0)
        {
            throw new IllegalArgumentException(
                "frame type must be 0..255 and payload 0.." + FrameHeader.MAX_PAYLOAD_LENGTH + " bytes: type=" + type +
                " payloadLength=" + payloadLength);
        }
        FrameHeader.write(dst, dstOffset, type, payloadLength, srcProcessId, dstProcessId, key.clusterId(), ++sequence);
        if (payloadLength > 0)
        {
            dst.putBytes(dstOffset + FrameHeader.HEADER_LENGTH, payload, payloadOffset, payloadLength);
        }
        final int frameLength = payloadLength + FrameHeader.OVERHEAD_LENGTH;
        key.sign(dst, dstOffset, frameLength);
        return frameLength;
    }
}
