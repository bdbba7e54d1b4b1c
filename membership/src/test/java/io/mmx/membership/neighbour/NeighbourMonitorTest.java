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
}
