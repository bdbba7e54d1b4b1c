package io.mmx.aeron.transport;

import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class QuietParkIdleStrategyTest
{
    private static final long US = 1_000;
    private static final long MS = 1_000_000;

    private final CachedNanoClock clock = new CachedNanoClock();
    private final List<Long> parks = new ArrayList<>();
    // 2 spins, 1 yield, parks 100 us doubling to 1 ms; quiet after 100 ms, then up to 8 ms. Each park
    // advances the clock by its length, as a real one would.
    private final QuietParkIdleStrategy idle = new QuietParkIdleStrategy(2, 1, 100 * US, MS, 8 * MS, 100 * MS, clock,
        ns ->
        {
            parks.add(ns);
            clock.advance(ns);
        });

    @Test
    void parksAsBackoffWhileWorkIsRecentThenLongerOnceQuiet()
    {
        idle.idle(1);
        for (int i = 0; i < 3 + 10; i++)
        {
            idle.idle(0);
        }
        // Spins and the yield park nothing; then 100, 200, 400, 800 us and 1 ms while work is recent.
        assertEquals(List.of(100 * US, 200 * US, 400 * US, 800 * US, MS, MS, MS, MS, MS, MS), parks);

        parks.clear();
        while (clock.nanoTime() < 100 * MS)
        {
            idle.idle(0);
        }
        for (int i = 0; i < 5; i++)
        {
            idle.idle(0);
        }
        // Quiet: the park doubles on to 8 ms and stays there.
        assertEquals(List.of(2 * MS, 4 * MS, 8 * MS, 8 * MS, 8 * MS), parks.subList(parks.size() - 5, parks.size()));
    }

    @Test
    void workStartsOverFromSpinningAndTheShortParks()
    {
        while (clock.nanoTime() < 200 * MS)
        {
            idle.idle(0);
        }
        idle.idle(3);
        parks.clear();
        for (int i = 0; i < 3 + 6; i++)
        {
            idle.idle(0);
        }
        assertEquals(List.of(100 * US, 200 * US, 400 * US, 800 * US, MS, MS), parks);
    }

    @Test
    void refusesParksOutOfOrder()
    {
        assertThrows(IllegalArgumentException.class, () -> new QuietParkIdleStrategy(1, 1, 100, 50, 200, 0));
        assertThrows(IllegalArgumentException.class, () -> new QuietParkIdleStrategy(1, 1, 100, 500, 200, 0));
    }
}
