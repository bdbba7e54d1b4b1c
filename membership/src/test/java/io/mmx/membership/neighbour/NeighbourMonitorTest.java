package io.mmx.membership.neighbour;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NeighbourMonitorTest
{
    @Test
    void staleHeartbeatIsSuspectedAndClearedWhenItMovesAgain()
    {
        final long[] words = new long[4];
        final boolean[] readable = {true, true, true, true};
        final List<String> events = new ArrayList<>();
        final NeighbourMonitor monitor = new NeighbourMonitor(new int[]{1, 2}, 1, 5, 0);
        final HeartbeatReader reader = id -> readable[id] ? words[id] : HeartbeatReader.NOT_READABLE;
        final NeighbourMonitor.Listener listener = (id, suspected, tick) -> events.add(id + ":" + suspected + "@" + tick);
        for (long tick = 0; tick < 20; tick++)
        {
            words[1]++;
            if (tick < 8)
            {
                words[2]++;
            }
            readable[1] = tick < 12;
            monitor.tick(tick, value -> words[0] = value, reader, listener);
        }
        assertEquals(List.of("2:true@12", "1:true@16"), events);
        assertTrue(monitor.isSuspected(1), "an unreadable word is not an advance");
        assertEquals(20, words[0]);
        words[2]++;
        monitor.tick(20, value -> words[0] = value, reader, listener);
        assertFalse(monitor.isSuspected(2));
        assertEquals("2:false@20", events.get(2));
    }

    /**
     * The reader stalls 10x the stale period. The neighbour's word moved before the stall; the first
     * reads after it still return the old value (reads are pipelined, so the first answer is the one
     * asked for before the stall) and it moves a few reads later: no suspicion. A word that truly stopped
     * is suspected at the 20th still read after the stall, not before.
     */
    @Test
    void ownStallIsNotANeighboursSilence()
    {
        final int stale = 20;
        final long[] words = new long[3];
        final List<String> events = new ArrayList<>();
        final NeighbourMonitor monitor = new NeighbourMonitor(new int[]{1, 2}, 1, stale, 0);
        final HeartbeatReader reader = id -> words[id];
        final NeighbourMonitor.Listener listener = (id, suspected, tick) -> events.add(id + ":" + suspected + "@" + tick);
        for (long tick = 0; tick <= 30; tick++)
        {
            words[1]++;
            words[2]++;
            monitor.tick(tick, value -> { }, reader, listener);
        }
        final long woke = 30 + 10 * stale;
        for (long tick = woke; tick < woke + stale + 5; tick++)
        {
            if (tick >= woke + 5)
            {
                words[1]++;
            }
            monitor.tick(tick, value -> { }, reader, listener);
            assertEquals(tick < woke + stale - 1, !monitor.isSuspected(2), "at tick " + tick);
        }
        assertFalse(monitor.isSuspected(1), "a neighbour seen moving around this reader's stall");
        assertEquals(List.of("2:true@" + (woke + stale - 1)), events, "suspected at the 20th still read");
    }

    /**
     * Neighbours 1 and 2 stop at tick 10. The operating system says 1's host runs (a pause, not a
     * crash) and knows nothing of 2's: 2 is suspected at the stale bound, 1 only after the word stood
     * still for the running bound, its host asked again every 5 reads in between; and 1 moving again
     * before that bound is never suspected.
     */
    @Test
    void aNeighbourWhoseHostSurelyRunsIsSuspectedOnlyAfterTheLongerBound()
    {
        final int stale = 5;
        final int running = 40;
        final long[] words = new long[4];
        final List<String> events = new ArrayList<>();
        final int[] asked = new int[4];
        final HostLiveness liveness = id ->
        {
            asked[id]++;
            return id == 1 || id == 3;
        };
        final NeighbourMonitor monitor = new NeighbourMonitor(new int[]{1, 2, 3}, 1, stale, 0, liveness, running);
        final NeighbourMonitor.Listener listener = (id, suspected, tick) -> events.add(id + ":" + suspected + "@" + tick);
        for (long tick = 0; tick <= 60; tick++)
        {
            if (tick < 10)
            {
                words[1]++;
                words[2]++;
            }
            if (tick < 10 || tick > 30)
            {
                words[3]++; // paused for 20 ticks: less than the running bound
            }
            monitor.tick(tick, value -> { }, id -> words[id], listener);
        }
        assertEquals(List.of("2:true@14", "1:true@49"), events,
            "2 at the stale bound; 1 once it stood still for 40 ticks since its last move at 9");
        assertFalse(monitor.isSuspected(3), "a pause shorter than the running bound is never a suspicion");
        assertEquals(1, asked[2], "asked once at the stale bound; not known to run, so the word decides");
        assertEquals(7, asked[1], "asked every 5 still reads, at ticks 14 to 44");
        assertEquals(4, asked[3], "asked at ticks 14 to 29, then it moved");
        assertEquals(asked[1] + asked[3], monitor.suspicionsVetoed());
    }
}
