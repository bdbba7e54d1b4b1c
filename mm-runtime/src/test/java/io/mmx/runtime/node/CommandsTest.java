package io.mmx.runtime.node;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CommandsTest
{
    @Test
    void commandRoundTripsThroughWords()
    {
        final int w = Commands.proposalWords(32);
        assertEquals(6, w);
        final byte[] payload = "thirty-one bytes of a command..".getBytes();
        final long[] words = new long[2 * w];
        Commands.encode(words, w, w, 1_048_575, -7, Commands.MAX_COUNTER, new UnsafeBuffer(payload), 0, payload.length);
        assertEquals(1_048_575, Commands.origin(words, w));
        assertEquals(-7, Commands.incarnation(words, w));
        assertEquals(Commands.MAX_COUNTER, Commands.counter(words, w));
        final UnsafeBuffer out = new UnsafeBuffer(new byte[8 * w]);
        assertEquals(payload.length, Commands.payload(words, w, w,
            ByteBuffer.wrap(out.byteArray()).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer()));
        assertEquals(new String(payload), out.getStringWithoutLengthAscii(0, payload.length));
    }

    @Test
    void oversizedCommandsAndBadCountersAreRefused()
    {
        final long[] words = new long[3];
        final UnsafeBuffer b = new UnsafeBuffer(new byte[16]);
        assertThrows(IllegalArgumentException.class, () -> Commands.encode(words, 0, 3, 0, 0, 1, b, 0, 9));
        assertThrows(IllegalArgumentException.class, () -> Commands.encode(words, 0, 3, 0, 0, 0, b, 0, 1));
        words[1] = 100;
        assertEquals(-1, Commands.length(words, 0, 3));
    }

    @Test
    void aPlanChangeCarriesItsPlanAndEraAndIsNeitherACommandNorAReport()
    {
        final int w = Commands.proposalWords(16);
        final long[] words = new long[w];
        Commands.encodePlanChange(words, 0, w, 17, -3, 42, 0xC20F_A3C6_E74E_C18BL, 255, 4096);
        assertTrue(Commands.isPlanChange(words, 0));
        assertFalse(Commands.isEraReport(words, 0));
        assertFalse(Commands.isProbe(words, 0));
        assertEquals(-1, Commands.length(words, 0, w), "no state machine reads it as a payload");
        assertEquals(0xC20F_A3C6_E74E_C18BL, Commands.changedPlanId(words, 0));
        assertEquals(255, Commands.changedEra(words, 0));
        assertEquals(4096, Commands.changedPlanProcesses(words, 0));
        assertEquals(17, Commands.origin(words, 0));
        assertEquals(-3, Commands.incarnation(words, 0));
        assertEquals(42, Commands.counter(words, 0));
        final IllegalArgumentException narrow = assertThrows(IllegalArgumentException.class,
            () -> Commands.encodePlanChange(new long[3], 0, 3, 1, 1, 1, 5, 0, 0));
        assertTrue(narrow.getMessage().contains("maxCommandBytes >= 16"), narrow.getMessage());
    }

    @Test
    void duplicateFilterPassesFirstCopiesOnly()
    {
        final DuplicateFilter f = new DuplicateFilter(4);
        assertTrue(f.firstCopy(1, 9, 1));
        assertTrue(f.firstCopy(1, 9, 3));
        assertFalse(f.firstCopy(1, 9, 1));
        assertTrue(f.firstCopy(1, 9, 2));
        assertFalse(f.firstCopy(1, 9, 3));
        assertTrue(f.firstCopy(1, 10, 1), "another incarnation is another run");
        assertTrue(f.firstCopy(2, 9, 1), "another origin");
        assertTrue(f.firstCopy(1, 9, 3 + DuplicateFilter.WINDOW));
        assertFalse(f.firstCopy(1, 9, 2), "older than the window");
        assertTrue(f.firstCopy(1, 9, DuplicateFilter.WINDOW - 2), "inside the window, never seen");
        assertFalse(f.firstCopy(1, 9, DuplicateFilter.WINDOW - 2));
    }

    @Test
    void anEvictedRunIsForgottenEvenRightAfterItsLastCommand() throws Exception
    {
        final DuplicateFilter f = new DuplicateFilter(2);
        assertTrue(f.firstCopy(1, 9, 5));
        assertTrue(f.firstCopy(2, 9, 5));
        assertTrue(f.firstCopy(3, 9, 5), "a third run evicts the first (oldest) one");
        assertFalse(f.firstCopy(3, 9, 5));
        assertTrue(f.firstCopy(1, 9, 5), "run 1 was evicted: its counter is new again (and evicts run 2)");
        assertTrue(f.firstCopy(2, 9, 5), "run 2 was evicted too");
        // A filter restored from a snapshot answers as the original does.
        final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        f.writeTo(new java.io.DataOutputStream(bytes));
        final DuplicateFilter g = new DuplicateFilter(2);
        assertTrue(g.firstCopy(2, 9, 7), "a run the restore replaces");
        g.readFrom(new java.io.DataInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray())));
        assertFalse(g.firstCopy(2, 9, 5), "restored, not the run it had before");
        assertTrue(g.firstCopy(2, 9, 7), "7 was marked only before the restore");
        assertFalse(f.firstCopy(2, 9, 5));
        assertTrue(f.firstCopy(2, 9, 7));
    }

    @Test
    void aProbeIsNamedLikeACommandButCarriesNoPayload()
    {
        final int w = Commands.proposalWords(32);
        final long[] words = new long[w];
        java.util.Arrays.fill(words, -1L);
        Commands.encodeProbe(words, 0, w, 7, 42, 5);
        assertTrue(Commands.isProbe(words, 0));
        assertEquals(-1, Commands.length(words, 0, w), "a probe has no payload length a state machine could read");
        assertEquals(7, Commands.origin(words, 0));
        assertEquals(42, Commands.incarnation(words, 0));
        assertEquals(5L, Commands.counter(words, 0));
        for (int i = Commands.HEADER_WORDS; i < w; i++)
        {
            assertEquals(0L, words[i]);
        }
        Commands.encode(words, 0, w, 7, 42, 6, new org.agrona.concurrent.UnsafeBuffer(new byte[32]), 0, 32);
        assertFalse(Commands.isProbe(words, 0), "a full-length command is not a probe");
    }
}
