package io.mmx.runtime.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class BallotAndLayoutTest
{
    @Test
    void ballotsAreUniquePerProposerAndOrderedByRound()
    {
        final int n = 4096;
        assertNotEquals(Ballot.of(3, 1, n), Ballot.of(3, 2, n));
        assertTrue(Ballot.of(4, 0, n) > Ballot.of(3, n - 1, n));
        assertEquals(3, Ballot.round(Ballot.of(3, 7, n), n));
        assertEquals(7, Ballot.proposer(Ballot.of(3, 7, n), n));
        assertTrue(Ballot.of(1, 0, n) > Ballot.NONE);
        assertThrows(ArithmeticException.class, () -> Ballot.of(Ballot.maxRound(n) + 1, 0, n));
        assertThrows(ArithmeticException.class, () -> Ballot.of(0, 0, n));
    }

    @Test
    void headWordCarriesSequenceLaneAndIndex()
    {
        final long h = RegionLayout.headWord(123456789L, 9, 1);
        assertEquals(123456789L, RegionLayout.headSeq(h));
        assertEquals(9, RegionLayout.headLane(h));
        assertEquals(1, RegionLayout.headIndex(h));
        assertThrows(ArithmeticException.class, () -> RegionLayout.headWord(RegionLayout.MAX_HEAD_SEQ + 1, 0, 0));
        assertTrue(RegionLayout.headWord(RegionLayout.MAX_HEAD_SEQ, 65535, 1) > 0, "head words stay positive");
    }

    @Test
    void areasDoNotOverlap()
    {
        final RegionLayout layout = new RegionLayout(9, 64, 4, 256, 3, 16);
        assertEquals(5, layout.recordsPerLane(), "two whole-record slots and three delta slots per lane");
        int end = RegionLayout.HEADER_WORDS;
        assertEquals(-1, layout.recordSlotAt(end - 1), "the header is no record slot");
        for (int lane = 0; lane < 9; lane++)
        {
            for (int i = 0; i < layout.recordsPerLane(); i++)
            {
                assertEquals(end, layout.recordOffsetWords(lane, i));
                final int words = i < RegionLayout.FULL_SLOTS ? layout.recordCapacityWords() : layout.deltaCapacityWords();
                assertEquals(words, layout.recordSlotWords(i));
                assertEquals(lane * 5 + i, layout.recordSlotAt(end), "first word of lane " + lane + " slot " + i);
                assertEquals(lane * 5 + i, layout.recordSlotAt(end + words - 1), "last word of lane " + lane + " slot " + i);
                end += words;
            }
        }
        assertEquals(-1, layout.recordSlotAt(end), "the decided log is no record slot");
        assertTrue(layout.deltaCapacityWords() < layout.recordCapacityWords(), "a delta slot holds one group, not the window");
        assertEquals(end, layout.decidedEntryOffsetWords(0));
        assertEquals(end, layout.decidedEntryOffsetWords(256));
        assertEquals(layout.regionWords(), layout.decidedEntryOffsetWords(255) + layout.decidedEntryWords());
    }

    @Test
    void chainDepthZeroIsTheWholeRecordLayout()
    {
        final RegionLayout layout = new RegionLayout(9, 64, 4, 256, 0, 16);
        assertEquals(RegionLayout.FULL_SLOTS, layout.recordsPerLane());
        assertEquals(RegionLayout.HEADER_WORDS + 9 * 2 * layout.recordCapacityWords(), layout.decidedEntryOffsetWords(0));
    }

    @Test
    void aChainDeeperThanTheHeadWordNamesIsRefused()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new RegionLayout(9, 64, 4, 256, 15, 16));
        assertTrue(e.getMessage().contains("record chain depth 15"), e.getMessage());
    }
}
