package io.mmx.membership.neighbour;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The leader-stop rule, tick by tick: stale for 5 ticks and over 4 of this reader's reads. */
class LeaderWatchTest
{
    private static final long NR = HeartbeatReader.NOT_READABLE;

    private final LeaderWatch watch = new LeaderWatch(5, 4);

    /** Reads the word every tick from {@code from} to {@code to}; returns the tick of the declaration, or -1. */
    private long readEveryTick(final long from, final long to, final java.util.function.LongUnaryOperator word)
    {
        long declaredAt = -1;
        for (long t = from; t <= to; t++)
        {
            if (watch.onRead(t, word.applyAsLong(t)))
            {
                assertEquals(-1, declaredAt, "declared twice, at " + declaredAt + " and " + t);
                declaredAt = t;
            }
        }
        return declaredAt;
    }

    @Test
    void aWordThatMovesEveryTickIsNeverDeclared()
    {
        watch.watch(3, 0);
        assertEquals(-1, readEveryTick(0, 10_000, t -> t));
        assertEquals(1, watch.longestSilenceTicks());
    }

    @Test
    void theEarlyCheckIsDueEveryFewStillReadsPastTheEarlyBoundUntilADeclaration()
    {
        watch.watch(3, 0);
        final List<Long> due = new java.util.ArrayList<>();
        for (long t = 0; t <= 40; t++)
        {
            final boolean declared = watch.onRead(t, Math.min(t, 10)); // stands still from tick 10
            if (!declared && watch.earlyCheckDue(t, 2, 2))
            {
                due.add(t);
            }
            if (t == 13)
            {
                watch.declareConfirmed();
            }
        }
        assertEquals(List.of(12L), due, "2 ticks and 2 reads at tick 12; declared at 13, so never again");
        assertFalse(watch.onRead(41, 10), "a confirmed declaration is a declaration: no second one");
        assertFalse(watch.onRead(42, 11), "it moved");
        assertFalse(watch.earlyCheckDue(42, 2, 2), "it moved: still reads start afresh");
    }

    @Test
    void aWordThatStopsIsDeclaredOnceAfterFiveTicksAndFourReads()
    {
        watch.watch(3, 0);
        // The word moves through tick 100 and stands at 100 from then on.
        final long at = readEveryTick(0, 400, t -> Math.min(t, 100));
        assertEquals(105, at, "last advance seen at 100: 5 ticks and 5 still reads later");
    }

    @Test
    void aBeatEveryFewTicksIsNotASilence()
    {
        // A leader that beats every 4 ticks (it ran late) stays under the 5-tick bound.
        watch.watch(3, 0);
        assertEquals(-1, readEveryTick(0, 10_000, t -> t / 4));
        assertEquals(4, watch.longestSilenceTicks());
    }

    @Test
    void theReadersOwnStallCountsAsOneReadNotAsSilence()
    {
        watch.watch(3, 0);
        assertFalse(watch.onRead(0, 10));
        assertFalse(watch.onRead(1, 11));
        // This reader did not run for 300 ticks; the leader stopped meanwhile, or the reader saw a value
        // read before its stall: either way one read is one read.
        assertFalse(watch.onRead(300, 11), "300 ticks but one still read");
        assertFalse(watch.onRead(301, 11));
        assertFalse(watch.onRead(302, 11));
        assertTrue(watch.onRead(303, 11), "the fourth still read after 5 ticks declares it");
    }

    @Test
    void theLeadersWordMovingAfterTheReadersStallClearsIt()
    {
        watch.watch(3, 0);
        assertFalse(watch.onRead(0, 10));
        assertFalse(watch.onRead(1, 11));
        assertFalse(watch.onRead(300, 11));
        assertFalse(watch.onRead(301, 12), "it moved: the stall was the reader's");
        assertEquals(-1, readEveryTick(302, 1000, t -> t));
    }

    @Test
    void aWordNeverSeenMovingIsNeverDeclared()
    {
        watch.watch(3, 0);
        assertEquals(-1, readEveryTick(0, 1000, t -> NR), "never readable: a broken link, not a stop");
        watch.watch(4, 1001);
        assertEquals(-1, readEveryTick(1001, 2000, t -> 42), "readable but never moving under this watch");
    }

    @Test
    void unreadableAfterMovingCountsAsStill()
    {
        watch.watch(3, 0);
        assertEquals(15, readEveryTick(0, 100, t -> t <= 10 ? t : NR));
    }

    @Test
    void afterADeclarationTheWordMustMoveBeforeTheNextOne()
    {
        watch.watch(3, 0);
        assertEquals(105, readEveryTick(0, 200, t -> Math.min(t, 100)));
        assertEquals(-1, readEveryTick(201, 400, t -> 100), "declared once, not every tick");
        // It was alive after all and moves again, then stops again: a second declaration.
        assertEquals(505, readEveryTick(401, 700, t -> Math.min(t, 500)));
    }

    @Test
    void watchingAnotherLeaderStartsAfresh()
    {
        watch.watch(3, 0);
        readEveryTick(0, 50, t -> t);
        watch.watch(7, 51);
        assertEquals(7, watch.watched());
        // The new leader's first read is a start, not an advance; it must be seen moving first.
        assertEquals(-1, readEveryTick(51, 60, t -> 9));
        assertEquals(68, readEveryTick(61, 100, t -> Math.min(t, 63)));
        watch.watch(-1, 101);
        assertEquals(-1, readEveryTick(101, 200, t -> 5), "nobody watched");
    }

    @Test
    void boundsAreChecked()
    {
        assertThrows(IllegalArgumentException.class, () -> new LeaderWatch(0, 1));
        assertThrows(IllegalArgumentException.class, () -> new LeaderWatch(5, 0));
    }
}
