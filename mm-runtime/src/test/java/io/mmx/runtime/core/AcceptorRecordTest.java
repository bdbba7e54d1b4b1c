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
}
