package io.mmx.aeron.frame;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

class FrameVerifierTest
{
    private static final FrameKey KEY = FrameKey.ofHex(42, "000102030405060708090a0b0c0d0e0f");
    private static final FrameKey OTHER_CLUSTER = FrameKey.ofHex(43, "000102030405060708090a0b0c0d0e0f");
    private static final FrameKey WRONG_KEY = FrameKey.ofHex(42, "ff0102030405060708090a0b0c0d0e0f");
    private static final int MAX_FRAME = 1024;

    private final FrameCounters counters = new FrameCounters();
    private final FrameVerifier verifier = new FrameVerifier(KEY, MAX_FRAME, counters);
    private final UnsafeBuffer payload = new UnsafeBuffer(new byte[256]);
    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[2048]);

    private int encode(final FrameKey key, final int payloadLength)
    {
        for (int i = 0; i < payloadLength; i++)
        {
            payload.putByte(i, (byte)(i * 7));
        }
        return new FrameEncoder(key).encode(frame, 0, 9, 3, 5, payload, 0, payloadLength);
    }

    @Test
    void acceptsAndDecodesAGoodFrame()
    {
        final int length = encode(KEY, 100);
        assertEquals(140, length);
        assertNull(verifier.verify(frame, 0, length));
        final FrameHeader header = verifier.header();
        assertEquals(9, header.type());
        assertEquals(3, header.srcProcessId());
        assertEquals(5, header.dstProcessId());
        assertEquals(100, header.payloadLength());
        assertEquals(1, header.sequence());
        assertEquals(1, counters.accepted());
    }

    @Test
    void dropsAndCountsEachKindOfHostileFrame()
    {
        final int length = encode(KEY, 64);
        assertEquals(DropReason.TRUNCATED, verifier.verify(frame, 0, 10));
        assertEquals(DropReason.TRUNCATED, verifier.verify(frame, 0, length - 1));
        assertEquals(DropReason.OVERSIZED, verifier.verify(frame, 0, MAX_FRAME + 1));

        final int foreign = encode(OTHER_CLUSTER, 64);
        assertEquals(DropReason.FOREIGN_CLUSTER, verifier.verify(frame, 0, foreign));

        // Replayed from another cluster with the cluster id rewritten: the tag no longer matches.
        frame.putLong(FrameHeader.CLUSTER_ID_OFFSET, 42L, java.nio.ByteOrder.LITTLE_ENDIAN);
        assertEquals(DropReason.BAD_TAG, verifier.verify(frame, 0, foreign));

        final int wrongKey = encode(WRONG_KEY, 64);
        assertEquals(DropReason.BAD_TAG, verifier.verify(frame, 0, wrongKey));

        encode(KEY, 64);
        frame.putByte(FrameHeader.HEADER_LENGTH + 3, (byte)0x55);
        assertEquals(DropReason.BAD_TAG, verifier.verify(frame, 0, length));

        encode(KEY, 64);
        frame.putByte(FrameHeader.VERSION_OFFSET, (byte)2);
        assertEquals(DropReason.BAD_VERSION, verifier.verify(frame, 0, length));

        assertEquals(3, counters.dropped(DropReason.TRUNCATED) + counters.dropped(DropReason.OVERSIZED));
        assertEquals(1, counters.dropped(DropReason.FOREIGN_CLUSTER));
        assertEquals(3, counters.dropped(DropReason.BAD_TAG));
        assertEquals(1, counters.dropped(DropReason.BAD_VERSION));
        assertEquals(0, counters.accepted());
    }

    @Test
    void everySingleBitFlipIsDetected()
    {
        final int length = encode(KEY, 40);
        for (int bit = 0; bit < length * 8; bit++)
        {
            frame.putByte(bit >> 3, (byte)(frame.getByte(bit >> 3) ^ (1 << (bit & 7))));
            assertNotNull(verifier.verify(frame, 0, length), "bit " + bit);
            frame.putByte(bit >> 3, (byte)(frame.getByte(bit >> 3) ^ (1 << (bit & 7))));
        }
        assertNull(verifier.verify(frame, 0, length));
        assertEquals(length * 8L, counters.receiveDropped());
    }

    @Test
    void randomBytesNeverPassNorThrow()
    {
        final long seed = System.nanoTime();
        System.out.println("randomBytesNeverPassNorThrow seed=" + seed);
        final SplittableRandom random = new SplittableRandom(seed);
        final int trials = 20_000;
        for (int i = 0; i < trials; i++)
        {
            final int length = random.nextInt(0, 300);
            for (int j = 0; j < length; j++)
            {
                frame.putByte(j, (byte)random.nextInt());
            }
            if (random.nextBoolean() && length >= 24)
            {
                // Make the cheap checks pass so the tag check is exercised too.
                frame.putByte(0, (byte)1);
                frame.putShort(2, (short)Math.max(0, length - 40), java.nio.ByteOrder.LITTLE_ENDIAN);
                frame.putLong(16, 42L, java.nio.ByteOrder.LITTLE_ENDIAN);
            }
            assertNotNull(verifier.verify(frame, 0, length), "seed=" + seed + " trial=" + i);
        }
        assertEquals(trials, counters.receiveDropped(), "seed=" + seed);
    }
}
