package io.mmx.aeron.frame;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SipHash24Test
{
    // Reference vectors of the SipHash paper / reference code: key 00..0f, message 00..(len-1).
    private static final long K0 = 0x0706050403020100L;
    private static final long K1 = 0x0f0e0d0c0b0a0908L;

    @Test
    void matchesReferenceVectors()
    {
        final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);
        for (int i = 0; i < 64; i++)
        {
            message.putByte(i, (byte)i);
        }
        assertEquals(0x726fdb47dd0e0e31L, SipHash24.hash(K0, K1, message, 0, 0));
        assertEquals(0x74f839c593dc67fdL, SipHash24.hash(K0, K1, message, 0, 1));
        assertEquals(0xa129ca6149be45e5L, SipHash24.hash(K0, K1, message, 0, 15));
    }

    @Test
    void hashesAtAnyOffset()
    {
        final UnsafeBuffer message = new UnsafeBuffer(new byte[80]);
        for (int i = 0; i < 15; i++)
        {
            message.putByte(13 + i, (byte)i);
        }
        assertEquals(0xa129ca6149be45e5L, SipHash24.hash(K0, K1, message, 13, 15));
    }
}
