package io.mmx.aeron.frame;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * Flyweight over the fixed 32-byte mmx frame header; all fields little-endian.
 * <pre>
 *   0  u8   version          ({@link #VERSION})
 *   1  u8   type             (owned by the layer above, e.g. membership)
 *   2  u16  payloadLength    bytes that follow the header, before the tag
 *   4  i32  srcProcessId
 *   8  i32  dstProcessId     ({@link #ALL_LOCAL} = every process at the receiving endpoint)
 *  12  i32  reserved         must be 0; room for flags without a version bump
 *  16  i64  clusterId
 *  24  i64  sequence         per-sender, monotonic; lets a layer above reject replays
 *  32  ...  payload
 *  32+L i64 tag              SipHash-2-4(frameKey, bytes [0, 32+L))
 * </pre>
 */
public final class FrameHeader
{
    /** Wire format version this code writes and accepts. */
    public static final int VERSION = 1;
    /** Header length in bytes. */
    public static final int HEADER_LENGTH = 32;
    /** Tag length in bytes. */
    public static final int TAG_LENGTH = 8;
    /** Header plus tag: the bytes a frame adds to its payload. */
    public static final int OVERHEAD_LENGTH = HEADER_LENGTH + TAG_LENGTH;
    /** Largest payload the u16 length field can describe. */
    public static final int MAX_PAYLOAD_LENGTH = 0xFFFF;
    /** Destination id meaning every process hosted at the receiving endpoint. */
    public static final int ALL_LOCAL = -1;

    /** Offset of the version byte. */
    public static final int VERSION_OFFSET = 0;
    /** Offset of the type byte. */
    public static final int TYPE_OFFSET = 1;
    /** Offset of the payload length. */
    public static final int PAYLOAD_LENGTH_OFFSET = 2;
    /** Offset of the source process id. */
    public static final int SRC_OFFSET = 4;
    /** Offset of the destination process id. */
    public static final int DST_OFFSET = 8;
    /** Offset of the reserved word. */
    public static final int RESERVED_OFFSET = 12;
    /** Offset of the cluster id. */
    public static final int CLUSTER_ID_OFFSET = 16;
    /** Offset of the sequence number. */
    public static final int SEQUENCE_OFFSET = 24;

    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private DirectBuffer buffer;
    private int offset;

    /**
     * Wrap a frame that starts at {@code offset}.
     *
     * @param buffer holding the frame.
     * @param offset of the frame's first byte.
     * @return this for a fluent API.
     */
    public FrameHeader wrap(final DirectBuffer buffer, final int offset)
    {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return the version byte. */
    public int version()
    {
        return buffer.getByte(offset + VERSION_OFFSET) & 0xFF;
    }

    /** @return the frame type byte. */
    public int type()
    {
        return buffer.getByte(offset + TYPE_OFFSET) & 0xFF;
    }

    /** @return payload length in bytes. */
    public int payloadLength()
    {
        return buffer.getShort(offset + PAYLOAD_LENGTH_OFFSET, LE) & 0xFFFF;
    }

    /** @return the sending process id. */
    public int srcProcessId()
    {
        return buffer.getInt(offset + SRC_OFFSET, LE);
    }

    /** @return the destination process id or {@link #ALL_LOCAL}. */
    public int dstProcessId()
    {
        return buffer.getInt(offset + DST_OFFSET, LE);
    }

    /** @return the reserved word, 0 in version 1. */
    public int reserved()
    {
        return buffer.getInt(offset + RESERVED_OFFSET, LE);
    }

    /** @return the cluster id. */
    public long clusterId()
    {
        return buffer.getLong(offset + CLUSTER_ID_OFFSET, LE);
    }

    /** @return the sender's sequence number. */
    public long sequence()
    {
        return buffer.getLong(offset + SEQUENCE_OFFSET, LE);
    }

    /** @return offset of the payload within the wrapped buffer. */
    public int payloadOffset()
    {
        return offset + HEADER_LENGTH;
    }

    /**
     * Write a complete header.
     *
     * @param buffer        to write into.
     * @param offset        of the frame.
     * @param type          frame type, 0..255.
     * @param payloadLength payload length in bytes.
     * @param srcProcessId  sender.
     * @param dstProcessId  receiver or {@link #ALL_LOCAL}.
     * @param clusterId     cluster id.
     * @param sequence      sender sequence.
     */
    public static void write(
        final MutableDirectBuffer buffer,
        final int offset,
        final int type,
        final int payloadLength,
        final int srcProcessId,
        final int dstProcessId,
        final long clusterId,
        final long sequence)
    {
        buffer.putByte(offset + VERSION_OFFSET, (byte)VERSION);
        buffer.putByte(offset + TYPE_OFFSET, (byte)type);
        buffer.putShort(offset + PAYLOAD_LENGTH_OFFSET, (short)payloadLength, LE);
        buffer.putInt(offset + SRC_OFFSET, srcProcessId, LE);
        buffer.putInt(offset + DST_OFFSET, dstProcessId, LE);
        buffer.putInt(offset + RESERVED_OFFSET, 0, LE);
        buffer.putLong(offset + CLUSTER_ID_OFFSET, clusterId, LE);
        buffer.putLong(offset + SEQUENCE_OFFSET, sequence, LE);
    }
}
