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
        final RegionLayout layout = new RegionLayout(9, 64, 4, 256);
        int end = RegionLayout.HEADER_WORDS;
        for (int lane = 0; lane < 9; lane++)
        {
            for (int i = 0; i < RegionLayout.RECORDS_PER_LANE; i++)
            {
                assertEquals(end, layout.recordOffsetWords(lane, i));
                end += layout.recordCapacityWords();
            }
        }
        assertEquals(end, layout.decidedEntryOffsetWords(0));
        assertEquals(end, layout.decidedEntryOffsetWords(256));
        assertEquals(layout.regionWords(), layout.decidedEntryOffsetWords(255) + layout.decidedEntryWords());
    }
}
