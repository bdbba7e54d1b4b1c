package io.mmx.runtime.example.ack;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link AckService}: replies with each command's first 8 bytes, counts, and snapshots the count. */
class AckServiceTest
{
    @Test
    void repliesWithTheFirstEightBytesAndCounts()
    {
        final AckService service = new AckService();
        final UnsafeBuffer command = new UnsafeBuffer(new byte[40]);
        command.putLong(4, 0x1122334455667788L, java.nio.ByteOrder.LITTLE_ENDIAN);
        command.putLong(12, -1L);

        assertEquals(0x1122334455667788L, service.apply(0, 1, command, 4, 32));
        assertEquals(0x667788L, service.apply(1, 1, command, 4, 3), "a shorter command, zero-padded");
        assertEquals(0, service.apply(2, 1, command, 4, 0));
        assertEquals(3, service.applied());
        assertEquals(3, service.stateDigest().getAsLong());
    }

    @Test
    void theCountSurvivesASnapshotAndABadSnapshotIsRefused() throws IOException
    {
        final AckService service = new AckService();
        final UnsafeBuffer command = new UnsafeBuffer(new byte[8]);
        for (int i = 0; i < 5; i++)
        {
            service.apply(i, 0, command, 0, 8);
        }
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        service.takeSnapshot(out);

        final AckService restored = new AckService();
        restored.loadSnapshot(new ByteArrayInputStream(out.toByteArray()));
        assertEquals(5, restored.applied());

        final byte[] longer = java.util.Arrays.copyOf(out.toByteArray(), 9);
        final IOException extra = assertThrows(IOException.class,
            () -> restored.loadSnapshot(new ByteArrayInputStream(longer)));
        assertTrue(extra.getMessage().contains("bytes after its count"), extra.getMessage());
        final byte[] negative = {(byte)0x80, 0, 0, 0, 0, 0, 0, 1};
        assertThrows(IOException.class, () -> restored.loadSnapshot(new ByteArrayInputStream(negative)));
        assertEquals(5, restored.applied(), "a refused snapshot changes nothing");
    }
}
