package io.mmx.membership;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class OwnStallsTest
{
    @Test
    void onlyGapsOfAtLeastTheBoundAreStallsLessTheTickThatRan()
    {
        final OwnStalls stalls = new OwnStalls(5);
        assertEquals(0, stalls.onTick(100), "the first tick has no gap");
        assertEquals(0, stalls.onTick(101));
        assertEquals(0, stalls.onTick(105), "a gap of 4: parked between ticks, time");
        assertEquals(4, stalls.onTick(110), "a gap of 5: a stall of 4 ticks beyond the one that ran");
        assertEquals(299, stalls.onTick(410));
        assertEquals(303, stalls.stalledTicks());
        assertThrows(IllegalArgumentException.class, () -> new OwnStalls(1));
    }
}
