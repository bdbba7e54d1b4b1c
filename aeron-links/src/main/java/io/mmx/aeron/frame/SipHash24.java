package io.mmx.aeron.frame;

import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * SipHash-2-4 (Aumasson and Bernstein, 2012): a keyed 64-bit MAC over a range of a {@link DirectBuffer}.
 * <p>
 * Static and allocation-free so it can run on the receive path. The 128-bit key is passed as two
 * little-endian 64-bit halves, exactly as the reference implementation loads it.
 */
public final class SipHash24
{
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private SipHash24()
    {
    }

    /**
     * Hash {@code length} bytes of {@code buffer} starting at {@code offset}.
     *
     * @param k0     key bytes 0..7 read little-endian.
     * @param k1     key bytes 8..15 read little-endian.
     * @param buffer to read from.
     * @param offset of the first byte.
     * @param length in bytes.
     * @return the 64-bit tag.
     */
    public static long hash(final long k0, final long k1, final DirectBuffer buffer, final int offset, final int length)
    {
        // The SipRounds are written out at each use: a helper would have to return four longs, which
        // in Java means an object or fields, i.e. allocation or loss of the static, thread-safe form.
        long v0 = 0x736f6d6570736575L ^ k0;
        long v1 = 0x646f72616e646f6dL ^ k1;
        long v2 = 0x6c7967656e657261L ^ k0;
        long v3 = 0x7465646279746573L ^ k1;

        final int wordsEnd = offset + (length & ~7);
        for (int i = offset; i < wordsEnd; i += 8)
        {
            final long m = buffer.getLong(i, LE);
            v3 ^= m;
            for (int r = 0; r < 2; r++)
            {
                v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
                v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
                v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
                v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
            }
            v0 ^= m;
        }

        long last = ((long)length & 0xFF) << 56;
        for (int j = (length & 7) - 1; j >= 0; j--)
        {
            last |= (buffer.getByte(wordsEnd + j) & 0xFFL) << (8 * j);
        }

        v3 ^= last;
        for (int r = 0; r < 2; r++)
        {
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        }
        v0 ^= last;

        v2 ^= 0xFF;
        for (int r = 0; r < 4; r++)
        {
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        }

        return v0 ^ v1 ^ v2 ^ v3;
    }
}
