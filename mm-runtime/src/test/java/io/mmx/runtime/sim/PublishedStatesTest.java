package io.mmx.runtime.sim;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The audit's published states: lookups on a state with gaps, and recent states kept as ranges of one log. */
class PublishedStatesTest
{
    @Test
    void lookupsAgreeWithTheEntriesWithAndWithoutGaps()
    {
        final PublishedStates state = new PublishedStates(4, 16, 4);
        state.begin(5);
        state.add(3, 5, 30);
        state.add(4, 5, 40);
        state.add(5, 5, 50);
        state.add(8, 6, 80);
        state.add(9, 6, 90);
        state.commit(6, 0);

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
        assertEquals(30 + 40 + 50 + 80 + 90, state.sum());
    }

    /**
     * A long run of appending transitions (entries above, floor rising) with a whole state now and
     * then: the current state and every recent one read back as written, across the log's
     * compactions and growth.
     */
    @Test
    void recentStatesStayWholeAsTheLogMovesOn()
    {
        final int recent = 4;
        final PublishedStates state = new PublishedStates(recent, 8, 4);
        final long[][] expectedSlots = new long[recent][];
        final long[] expectedFloor = new long[recent];
        long top = 0;
        long floor = 0;
        for (int t = 0; t < 500; t++)
        {
            final long newFloor = floor + t % 3;
            final int added = 1 + t % 5;
            if (t % 7 == 0)
            {
                // A whole state: every slot from the floor to the new top.
                state.begin((int)(top + added - newFloor));
                for (long s = newFloor; s < top + added; s++)
                {
                    state.add(s, 1, s);
                }
                state.commit(1, newFloor);
            }
            else
            {
                final int drop = state.any() ? state.indexAtOrAbove(newFloor) : 0;
                state.beginAppend(added);
                for (long s = top; s < top + added; s++)
                {
                    state.add(s, 1, s);
                }
                if (state.any())
                {
                    state.commitAppended(drop, 1, newFloor);
                }
                else
                {
                    state.commit(1, newFloor);
                }
            }
            top += added;
            floor = newFloor;
            final long[] now = new long[(int)(top - floor)];
            for (int i = 0; i < now.length; i++)
            {
                now[i] = floor + i;
            }
            expectedSlots[t % recent] = now;
            expectedFloor[t % recent] = floor;
            assertEquals(now.length, state.count(), "transition " + t);
            for (int i = 0; i < now.length; i++)
            {
                assertEquals(now[i], state.slot(i), "transition " + t + " entry " + i);
            }
            long sum = 0;
            for (final long s : now)
            {
                sum += s;
            }
            assertEquals(sum, state.sum(), "transition " + t);
            // Every recent state is still there: its whole tail (nothing omitted) is found.
            for (int k = 0; k < Math.min(recent, t + 1); k++)
            {
                long tail = 0;
                for (final long s : expectedSlots[k])
                {
                    tail += s;
                }
                assertTrue(state.holdsTail(1, expectedFloor[k], -1, expectedSlots[k].length, tail),
                    "transition " + t + ": recent state " + k + " lost");
            }
        }
        assertFalse(state.holdsTail(1, floor, -1, 3, 1), "a tail no state had is not found");
    }

    /** Fingerprints published after the first lookup are found too: the set catches up with the log. */
    @Test
    void everyPublishedFingerprintIsFoundBeforeAndAfterTheFirstLookup()
    {
        final PublishedStates state = new PublishedStates(4, 16, 4);
        for (long f = 1; f <= 40; f++)
        {
            state.published(f * 0x9E3779B97F4A7C15L);
        }
        assertTrue(state.everPublished(7 * 0x9E3779B97F4A7C15L));
        assertFalse(state.everPublished(41 * 0x9E3779B97F4A7C15L), "not published yet");
        state.published(41 * 0x9E3779B97F4A7C15L);
        assertTrue(state.everPublished(41 * 0x9E3779B97F4A7C15L), "published after the set was built");
        for (long f = 1; f <= 41; f++)
        {
            assertTrue(state.everPublished(f * 0x9E3779B97F4A7C15L), "fingerprint " + f);
        }
        assertFalse(state.everPublished(0), "never published");
    }
}
