package io.mmx.runtime.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** The acceptor rules of Paxos, one claim per test. */
class AcceptorTransitionTest
{
    private final AcceptorRecord r = new AcceptorRecord(16, 2);

    @Test
    void promiseOnlyAtOrAboveThePromisedBallot()
    {
        assertTrue(AcceptorTransition.prepare(r, 10));
        assertFalse(AcceptorTransition.prepare(r, 9));
        assertTrue(AcceptorTransition.prepare(r, 10));
        assertEquals(10, r.promised());
    }

    @Test
    void acceptRefusedBelowThePromise()
    {
        AcceptorTransition.prepare(r, 10);
        assertEquals(AcceptorTransition.AcceptOutcome.REFUSED_BALLOT,
            AcceptorTransition.accept(r, 9, 0, new long[][] {{1}}));
        assertEquals(0, r.count());
    }

    @Test
    void acceptRaisesThePromiseAndReplacesLowerBallots()
    {
        AcceptorTransition.accept(r, 10, 0, new long[][] {{1}});
        AcceptorTransition.accept(r, 20, 0, new long[][] {{2}});
        assertEquals(20, r.promised());
        assertEquals(1, r.count());
        assertArrayEquals(new long[] {2}, r.value(0));
        assertTrue(AcceptorTransition.alreadyAccepted(r, 20, 0, 1));
        assertFalse(AcceptorTransition.alreadyAccepted(r, 10, 0, 1));
    }

    @Test
    void groupsAreAllOrNothing()
    {
        final AcceptorRecord small = new AcceptorRecord(2, 1);
        assertEquals(AcceptorTransition.AcceptOutcome.WINDOW_FULL,
            AcceptorTransition.accept(small, 5, 0, new long[][] {{1}, {2}, {3}}));
        assertEquals(0, small.count());
        assertEquals(Ballot.NONE, small.promised());
    }

    @Test
    void theWindowIsARangeOfSlotsFromTheFloorNotACountOfEntries()
    {
        final AcceptorRecord w = new AcceptorRecord(4, 1);
        assertEquals(AcceptorTransition.AcceptOutcome.WINDOW_FULL,
            AcceptorTransition.accept(w, 5, 2, new long[][] {{2}, {3}, {4}}), "slot 4 lies past floor 0 + 4");
        assertEquals(AcceptorTransition.AcceptOutcome.ACCEPTED, AcceptorTransition.accept(w, 5, 2, new long[][] {{2}, {3}}));
        // An earlier slot always fits, whatever later slots the record holds: with a count of
        // entries, a record full of later slots refused it until the floor rose, and the floor
        // could not rise before it was decided.
        assertEquals(AcceptorTransition.AcceptOutcome.ACCEPTED, AcceptorTransition.accept(w, 5, 0, new long[][] {{0}, {1}}));
        assertEquals(4, w.count());
        w.raiseFloor(2);
        assertEquals(AcceptorTransition.AcceptOutcome.ACCEPTED, AcceptorTransition.accept(w, 5, 4, new long[][] {{4}, {5}}));
        assertEquals(AcceptorTransition.AcceptOutcome.WINDOW_FULL, AcceptorTransition.accept(w, 5, 6, new long[][] {{6}}));
    }
}
