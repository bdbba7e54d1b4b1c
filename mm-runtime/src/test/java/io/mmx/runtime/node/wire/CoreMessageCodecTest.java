package io.mmx.runtime.node.wire;

import io.mmx.planner.generate.RandomRegularGenerator;
import io.mmx.runtime.core.CoreConfig;
import io.mmx.runtime.core.Message;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every core message survives the wire; malformed bytes decode to null, never an exception. */
class CoreMessageCodecTest
{
    private static final CoreConfig CONFIG = new CoreConfig()
        .graph(new RandomRegularGenerator().generate(16, 4, 3)).planHash(1).proposalWords(3).maxBatch(4).conclude();
    private final CoreMessageCodec codec = new CoreMessageCodec(CONFIG);
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[CoreMessageCodec.maxEncodedLength(CONFIG)]);

    private static List<Message> samples()
    {
        final long[] v1 = {1, 2, 3};
        final long[] v2 = {4, 5, 6, 7, 8, 9};
        return List.of(
            new Message.Prepare(3, 77, 9),
            new Message.Promise(3, 5, 77, 10, 9, new long[]{10, 11}, new long[]{70, 71}, new long[][]{v1, v2}),
            new Message.Nack(3, 5, 77, 99),
            new Message.Accept(3, 77, 12, new long[][]{v1, v2}, 9, 11, new int[]{1, 2, 15}),
            new Message.Accept(3, 77, 12, new long[][]{v2}, 9, 11),
            new Message.Accepted(3, 77, 12, new int[]{3, 4}, 8),
            new Message.Floored(3, 5, 77, 12, 20),
            new Message.Commit(3, 12, new long[][]{v1, v2, new long[0]}),
            new Message.CatchupRequest(3, 40, 32),
            new Message.Gone(3, 40, 300));
    }

    @Test
    void everyMessageRoundTrips()
    {
        for (final Message m : samples())
        {
            final int length = codec.encode(m, buffer, 0, buffer.capacity());
            assertEquals(CoreMessageCodec.encodedLength(m), length);
            final Message d = codec.decode(CoreMessageCodec.frameType(m), 3, buffer, 0, length);
            assertNotNull(d, m.toString());
            assertEquals(m.type(), d.type());
            assertEquals(m.from(), d.from());
            // Re-encoding the decoded message gives the same bytes: every field made the trip.
            final UnsafeBuffer again = new UnsafeBuffer(new byte[length]);
            codec.encode(d, again, 0, length);
            final byte[] a = new byte[length];
            buffer.getBytes(0, a);
            assertArrayEquals(a, again.byteArray(), m.toString());
        }
    }

    @Test
    void truncatedExtendedOrForeignBytesAreRefused()
    {
        for (final Message m : samples())
        {
            final int type = CoreMessageCodec.frameType(m);
            final int length = codec.encode(m, buffer, 0, buffer.capacity());
            for (int cut = 0; cut < length; cut++)
            {
                assertNull(codec.decode(type, 3, buffer, 0, cut), m + " cut to " + cut);
            }
            assertNull(codec.decode(type, 3, buffer, 0, length + 1), m + " with a trailing byte");
            assertNull(codec.decode(type, 4, buffer, 0, length), m + " claiming another sender");
        }
    }

    @Test
    void randomBytesNeverThrow()
    {
        final long seed = System.nanoTime();
        System.out.println("CoreMessageCodecTest seed " + seed);
        final Random random = new Random(seed);
        int decoded = 0;
        for (int i = 0; i < 20_000; i++)
        {
            final int length = random.nextInt(200);
            final byte[] bytes = new byte[length];
            random.nextBytes(bytes);
            if (length >= 4)
            {
                bytes[0] = 3;
                bytes[1] = 0;
                bytes[2] = 0;
                bytes[3] = 0;
            }
            final Message m = codec.decode(CoreMessageCodec.TYPE_BASE + random.nextInt(8), 3, new UnsafeBuffer(bytes), 0,
                length);
            decoded += m == null ? 0 : 1;
        }
        assertTrue(decoded < 20_000);
    }

    @Test
    void valuesThatAreNotWholeProposalsAreRefused()
    {
        final Message bad = new Message.Commit(3, 12, new long[][]{{1, 2}});
        final int length = codec.encode(bad, buffer, 0, buffer.capacity());
        assertNull(codec.decode(CoreMessageCodec.frameType(bad), 3, buffer, 0, length));
        final Message tooLong = new Message.Commit(3, 12, new long[][]{new long[CONFIG.valueWords() + 3]});
        final int l2 = codec.encode(tooLong, buffer, 0, buffer.capacity());
        assertNull(codec.decode(CoreMessageCodec.frameType(tooLong), 3, buffer, 0, l2));
    }
}
