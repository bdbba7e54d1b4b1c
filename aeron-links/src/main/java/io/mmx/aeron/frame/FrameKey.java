package io.mmx.aeron.frame;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * The 128-bit transport key that signs and verifies every frame, with the cluster id it belongs to.
 * A node derives it from the cluster key (the region module's {@code ClusterKey}, the one secret an
 * operator holds); members share it, and outside clients get their own.
 * <p>
 * Immutable. The key never leaves this object; {@link #toString()} shows only the cluster id.
 */
public final class FrameKey
{
    /** Key length in bytes. */
    public static final int KEY_LENGTH = 16;

    private final long clusterId;
    private final long k0;
    private final long k1;

    private FrameKey(final long clusterId, final long k0, final long k1)
    {
        this.clusterId = clusterId;
        this.k0 = k0;
        this.k1 = k1;
    }

    /**
     * @param clusterId id carried in every frame.
     * @param key       exactly 16 bytes of secret.
     * @return the key.
     */
    public static FrameKey of(final long clusterId, final byte[] key)
    {
        if (key == null || key.length != KEY_LENGTH)
        {
            throw new IllegalArgumentException("cluster key must be exactly " + KEY_LENGTH +
                " bytes (32 hex digits), got " + (key == null ? "none" : key.length + " bytes"));
        }
        long k0 = 0;
        long k1 = 0;
        for (int i = 7; i >= 0; i--)
        {
            k0 = (k0 << 8) | (key[i] & 0xFFL);
            k1 = (k1 << 8) | (key[i + 8] & 0xFFL);
        }
        return new FrameKey(clusterId, k0, k1);
    }

    /**
     * @param clusterId id carried in every frame.
     * @param hexKey    32 hex digits.
     * @return the key.
     */
    public static FrameKey ofHex(final long clusterId, final String hexKey)
    {
        if (hexKey == null || hexKey.length() != 2 * KEY_LENGTH)
        {
            throw new IllegalArgumentException("cluster key must be 32 hex digits, got " +
                (hexKey == null ? "none" : hexKey.length() + " characters"));
        }
        final byte[] key = new byte[KEY_LENGTH];
        for (int i = 0; i < KEY_LENGTH; i++)
        {
            final int hi = Character.digit(hexKey.charAt(2 * i), 16);
            final int lo = Character.digit(hexKey.charAt(2 * i + 1), 16);
            if (hi < 0 || lo < 0)
            {
                throw new IllegalArgumentException("cluster key must be 32 hex digits, found a non-hex character");
            }
            key[i] = (byte)((hi << 4) | lo);
        }
        return of(clusterId, key);
    }

    /** @return the cluster id. */
    public long clusterId()
    {
        return clusterId;
    }

    /**
     * Compute the tag of the header and payload of a frame of {@code frameLength} bytes.
     *
     * @param buffer      holding the frame.
     * @param offset      of the frame.
     * @param frameLength including the tag.
     * @return the tag.
     */
    public long tagOf(final DirectBuffer buffer, final int offset, final int frameLength)
    {
        return SipHash24.hash(k0, k1, buffer, offset, frameLength - FrameHeader.TAG_LENGTH);
    }

    /**
     * Write the tag into the last 8 bytes of the frame.
     *
     * @param buffer      holding the frame.
     * @param offset      of the frame.
     * @param frameLength including the tag.
     */
    public void sign(final MutableDirectBuffer buffer, final int offset, final int frameLength)
    {
        buffer.putLong(
            offset + frameLength - FrameHeader.TAG_LENGTH, tagOf(buffer, offset, frameLength), ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * @param buffer      holding the frame.
     * @param offset      of the frame.
     * @param frameLength including the tag.
     * @return true if the tag matches.
     */
    public boolean verify(final DirectBuffer buffer, final int offset, final int frameLength)
    {
        final long expected = tagOf(buffer, offset, frameLength);
        return expected == buffer.getLong(offset + frameLength - FrameHeader.TAG_LENGTH, ByteOrder.LITTLE_ENDIAN);
    }

    /** {@inheritDoc} */
    public String toString()
    {
        return "FrameKey{clusterId=" + clusterId + ", key=<hidden>}";
    }
}
