package io.mmx.runtime.sim;

import io.mmx.runtime.core.AcceptorRecord;
import io.mmx.runtime.core.AcceptorTransition;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The audit's lookups into a published state, on a record whose slots have gaps. */
class PublishedStateTest
{
    @Test
    void lookupsAgreeWithTheEntriesWithAndWithoutGaps()
    {
        final AcceptorRecord record = new AcceptorRecord(16, 1);
        AcceptorTransition.accept(record, 5, 3, new long[][] {{1}, {2}, {3}}); // slots 3, 4, 5
        AcceptorTransition.accept(record, 6, 8, new long[][] {{4}, {5}});      // slots 8, 9
        final long[] words = new long[AcceptorRecord.capacityWords(16, 1)];
        final int length = record.encode(words, 0);
        final SimRegion region = new SimRegion(4 * words.length, new Slabs());
        region.write(100, words, length);
        final PublishedState state = new PublishedState(16, 1);
        assertTrue(state.read(region, 100, words.length, record.seq()));

        final long[] slots = {3, 4, 5, 8, 9};
        for (long s = 0; s <= 11; s++)
        {
            int expected = 0;
            while (expected < slots.length && slots[expected] < s)
            {
                expected++;
            }
            assertEquals(expected, state.indexAtOrAbove(s), "slot " + s);
        }
        assertTrue(state.holdsRun(0, 3, 3));
        assertFalse(state.holdsRun(0, 3, 4), "slots 3-6: 6 is missing");
        assertFalse(state.holdsRun(2, 5, 2), "slots 5-6: the entry after 5 is 8");
        assertTrue(state.holdsRun(3, 8, 2));
        assertFalse(state.holdsRun(4, 9, 2), "past the last entry");
        assertTrue(state.holdsAtLeast(0, 3, 3, 5));
        assertFalse(state.holdsAtLeast(0, 3, 3, 6), "accepted at 5, asked for 6");
        assertTrue(state.holdsAtLeast(3, 8, 2, 6));
    }
}
