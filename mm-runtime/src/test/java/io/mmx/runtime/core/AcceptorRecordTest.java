package io.mmx.runtime.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class AcceptorRecordTest
{
    @Test
    void encodeDecodeRoundTrip()
    {
        final AcceptorRecord r = new AcceptorRecord(8, 4);
        assertTrue(AcceptorTransition.prepare(r, 17));
        assertEquals(AcceptorTransition.AcceptOutcome.ACCEPTED,
            AcceptorTransition.accept(r, 17, 3, new long[][] {{1, 2}, {}, {3, 4, 5, 6}}));
        r.seq(5);
        r.prevHead(RegionLayout.headWord(4, 1, 0));
        final long[] words = new long[AcceptorRecord.capacityWords(8, 4)];
        final int len = r.encode(words, 0);

        final AcceptorRecord d = new AcceptorRecord(8, 4);
        assertTrue(d.decode(words, 0, words.length, 5));
        assertTrue(d.sameStateAs(r));
        assertEquals(17, d.promised());
        assertArrayEquals(new long[] {3, 4, 5, 6}, d.value(d.find(5)));
        assertEquals(r.prevHead(), d.prevHead());
        assertEquals(len, words[AcceptorRecord.LENGTH]);
    }

    @Test
    void decodeRejectsWrongSequenceAndTornRecords()
    {
        final AcceptorRecord r = new AcceptorRecord(8, 4);
        AcceptorTransition.accept(r, 9, 0, new long[][] {{1}});
        r.seq(2);
        final long[] words = new long[AcceptorRecord.capacityWords(8, 4)];
        final int len = r.encode(words, 0);
        final AcceptorRecord d = new AcceptorRecord(8, 4);
        assertFalse(d.decode(words, 0, words.length, 3), "a record published with another sequence");
        words[len - 1] = 99; // trailing echo from a newer record: torn
        assertFalse(d.decode(words, 0, words.length, 2));
        assertEquals(0, d.count());
    }

    @Test
    void raisingTheFloorReclaimsDecidedEntries()
    {
        final AcceptorRecord r = new AcceptorRecord(4, 1);
        AcceptorTransition.accept(r, 5, 0, new long[][] {{0}, {1}, {2}, {3}});
        assertEquals(AcceptorTransition.AcceptOutcome.WINDOW_FULL, AcceptorTransition.accept(r, 5, 4, new long[][] {{4}}));
        r.raiseFloor(3);
        assertEquals(1, r.count());
        assertEquals(AcceptorTransition.AcceptOutcome.ACCEPTED, AcceptorTransition.accept(r, 5, 4, new long[][] {{4}}));
        assertEquals(AcceptorTransition.AcceptOutcome.BELOW_FLOOR, AcceptorTransition.accept(r, 6, 2, new long[][] {{9}, {8}}),
            "a reclaimed slot is never claimed as accepted");
        assertEquals(-1, r.find(2));
        assertEquals(5, r.promised(), "a refused group changes nothing");
    }

    @Test
    void copyingWithANewFloorEqualsACopyThenRaisingTheFloor()
    {
        final AcceptorRecord source = new AcceptorRecord(8, 2);
        AcceptorTransition.prepare(source, 7);
        AcceptorTransition.accept(source, 7, 2, new long[][] {{20}, {30, 31}, {}, {50}});
        for (final long floor : new long[] {0, 2, 3, 5, 6, 9})
        {
            final AcceptorRecord twoSteps = new AcceptorRecord(8, 2);
            twoSteps.copyFrom(source);
            twoSteps.raiseFloor(floor);
            final AcceptorRecord oneStep = new AcceptorRecord(8, 2);
            oneStep.copyFrom(source, floor);
            assertTrue(oneStep.sameStateAs(twoSteps), "floor " + floor + ": " + oneStep + " vs " + twoSteps);
            assertEquals(twoSteps.changed(), oneStep.changed(), "floor " + floor);
            assertEquals(twoSteps.count(), oneStep.count(), "floor " + floor);
        }
    }

    /**
     * A reader's copy interleaved with a rewrite of the slot whose words land in any order: words
     * 0-1 and the trailing echo still of {@code before}, the words in between already of {@code after}.
     */
    static long[] torn(final AcceptorRecord before, final AcceptorRecord after, final int words)
    {
        final long[] old = new long[words];
        before.encode(old, 0);
        final long[] torn = new long[words];
        after.encode(torn, 0);
        // Past the new record's end, the slot still holds the old record's words.
        final int newLength = (int)torn[AcceptorRecord.LENGTH];
        final int oldLength = (int)old[AcceptorRecord.LENGTH];
        torn[AcceptorRecord.SEQ] = old[AcceptorRecord.SEQ];
        torn[AcceptorRecord.LENGTH] = old[AcceptorRecord.LENGTH];
        System.arraycopy(old, newLength, torn, newLength, Math.max(0, oldLength - newLength));
        torn[oldLength - 1] = old[oldLength - 1];
        return torn;
    }

    @Test
    void tornReadWithAShorterRewriteIsRejected()
    {
        // Reader sees seq 5 (promised 10, accepted slot 3 at 15), copies words 0-1; the lane's
        // executor rewrites the slot with a shorter record (promised 20, nothing accepted, seq 7).
        final AcceptorRecord five = new AcceptorRecord(8, 4);
        AcceptorTransition.accept(five, 15, 3, new long[][] {{42, 43}});
        five.seq(5);
        final AcceptorRecord seven = new AcceptorRecord(8, 4);
        AcceptorTransition.prepare(seven, 20);
        seven.seq(7);
        final long[] torn = torn(five, seven, AcceptorRecord.capacityWords(8, 4));
        final AcceptorRecord d = new AcceptorRecord(8, 4);
        assertFalse(d.decode(torn, 0, torn.length, 5), "a torn record that was never published: " + d);
    }

    @Test
    void decodeAloneCannotTellATornReadOfTheSameShape()
    {
        // The rewrite has the same length and its echo has not landed yet: both checked words
        // still say 5, and nothing in the words tells the tear. This is why AcceptorDriver re-reads the head after the record.
        final AcceptorRecord five = new AcceptorRecord(8, 4);
        AcceptorTransition.accept(five, 15, 3, new long[][] {{42}});
        five.seq(5);
        final AcceptorRecord seven = new AcceptorRecord(8, 4);
        AcceptorTransition.accept(seven, 20, 4, new long[][] {{44}});
        seven.seq(7);
        final long[] torn = torn(five, seven, AcceptorRecord.capacityWords(8, 4));
        final AcceptorRecord d = new AcceptorRecord(8, 4);
        assertTrue(d.decode(torn, 0, torn.length, 5));
        assertEquals(20, d.promised());
        assertEquals(-1, d.find(3), "the accepted entry of slot 3 is missing from the torn view");
    }
}
