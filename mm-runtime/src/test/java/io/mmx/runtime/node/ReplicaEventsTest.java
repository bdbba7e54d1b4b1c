package io.mmx.runtime.node;

import io.mmx.membership.Role;
import io.mmx.runtime.core.Status;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The event lines a replica derives from status changes, driven tick by tick (2 ms ticks): a
 * flapping suspicion is limited to 4 lines per 10 s and the state it ends in is written once the
 * window allows; a short BLOCKED spell at start-up is no event, a long one is; catching up is one
 * line when the lag opens and one when it closes; takeovers and blocked time are counted.
 */
class ReplicaEventsTest
{
    private static final long TICK_NS = 2_000_000L;

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Consumer<String> tap = lines::add;
    private final ProcessCounters counters = new ProcessCounters(3, null);
    private final ReplicaEvents events = new ReplicaEvents(3, new int[]{1, 4}, TICK_NS, counters, true);

    @BeforeEach
    void tap()
    {
        EventLog.tap(tap);
    }

    @AfterEach
    void untap()
    {
        EventLog.untap(tap);
    }

    @Test
    void aFlappingSuspicionIsLimitedAndItsLastStateIsWritten()
    {
        for (int t = 0; t <= 20; t++)
        {
            events.onTick(t);
            events.onSuspicion(0, t % 2 == 0, t % 2 == 0, t);
        }
        // 21 changes ending suspected: 4 suspicion lines and 4 takeover lines in the window.
        assertEquals(4, count("event=neighbour_suspected") + count("event=neighbour_recovered"), lines.toString());
        assertEquals(4, count("event=acceptor_takeover") + count("event=acceptor_released"), lines.toString());
        assertEquals(11, events.takeovers(), "every takeover counts, logged or not");
        for (long t = 21; t < 5000; t++)
        {
            events.onTick(t);
        }
        assertEquals(8, lines.size(), "nothing more inside the window: " + lines);
        events.onTick(5000);
        assertEquals(10, lines.size(), lines.toString());
        assertTrue(lines.get(8).contains("event=neighbour_suspected process=3 msg=\"suspects neighbour 1 crashed: " +
            "its memory heartbeat stopped (17 earlier lines of this kind left out: it flapped)\""), lines.get(8));
        assertTrue(lines.get(9).contains("event=acceptor_takeover"), lines.get(9));
        for (long t = 5001; t < 20_000; t++)
        {
            events.onTick(t);
        }
        assertEquals(10, lines.size(), "the log shows the state as it is: nothing more to write");
    }

    @Test
    void blockedIsAnEventOnlyOnceItHoldsHalfASecond()
    {
        final Status blocked = new Status(3, Role.CANDIDATE, 7, 2, 4, 10, 10, false);
        final Status leading = new Status(3, Role.LEADER, 7, 5, 4, 10, 10, false);
        events.onTick(0);
        onStatus(blocked, 0, 0, 0);
        for (long t = 1; t <= 100; t++)
        {
            events.onTick(t);
        }
        onStatus(leading, 0, 0, 100);
        // A 0.2 s spell at start-up is no event; leading is a line of its own, with the phase 1 time
        // (CANDIDATE at tick 0, LEADER at 100, 2 ms ticks).
        assertEquals(List.of("level=INFO event=leads process=3 msg=\"leads at ballot 7 after a phase 1 of 200 ms, " +
            "reaching 5 acceptors (a quorum is 4)\""), lines.stream().map(l -> l.substring(l.indexOf("level="))).toList());
        lines.clear();
        onStatus(blocked, 0, 0, 1000);
        for (long t = 1000; t <= 1300; t++)
        {
            events.onTick(t);
        }
        assertEquals(List.of("level=WARN event=blocked process=3 msg=\"blocked: reaches 2 acceptors, a quorum needs 4\""),
            lines.stream().map(l -> l.substring(l.indexOf("level="))).toList());
        onStatus(leading, 5, 1, 1500);
        lines.removeIf(l -> l.contains("event=leads"));
        assertTrue(lines.get(1).endsWith("level=INFO event=unblocked process=3 msg=\"no longer blocked after 1.0 s " +
            "(LEADER, reaches 5 acceptors, a quorum needs 4)\""), lines.get(1));
        assertEquals((100 + 500) * TICK_NS, events.blockedNs(), "both spells count as blocked time");
        assertEquals(1200, counters.get(ProcessCounters.Kind.BLOCKED_MS));
        assertEquals(5, counters.get(ProcessCounters.Kind.PROPOSALS));
        assertEquals(1, counters.get(ProcessCounters.Kind.RETRANSMISSIONS));
        assertEquals(10, counters.get(ProcessCounters.Kind.COMMIT_INDEX));
    }

    @Test
    void catchingUpIsOneLineWhenTheLagOpensAndOneWhenItCloses()
    {
        events.onTick(0);
        onStatus(follower(100, 100 + ReplicaEvents.CATCH_UP_START_SLOTS), 0, 0, 0);
        assertEquals(0, lines.size(), "a lag of " + ReplicaEvents.CATCH_UP_START_SLOTS + " slots is not catching up");
        onStatus(follower(100, 400), 0, 0, 10);
        onStatus(follower(200, 400), 0, 0, 20);
        onStatus(follower(390, 400), 0, 0, 30);
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).endsWith("level=INFO event=catching_up process=3 msg=\"applied through slot 100, 300 " +
            "slots behind the decided log: catching up\""), lines.get(0));
        onStatus(follower(398, 400), 0, 0, 510);
        assertEquals(2, lines.size(), lines.toString());
        assertTrue(lines.get(1).endsWith("level=INFO event=caught_up process=3 msg=\"caught up: applied 298 slots in " +
            "1.0 s, through slot 398\""), lines.get(1));
    }

    @Test
    void aRestartAndAFreshStartSayWhichTheyAre()
    {
        events.onRecovered(41, 20, 5);
        events.onRecovered(41, 20, 6);
        new ReplicaEvents(5, new int[]{1}, TICK_NS, new ProcessCounters(5, null), false).onRecovered(-1, -1, 5);
        assertEquals(2, lines.size(), "once per start: " + lines);
        assertTrue(lines.get(0).endsWith("event=process_recovered process=3 msg=\"restarted: read its region, resumes " +
            "after slot 41, its state holds slots through 20: a gap, which a peer's snapshot fills where the node " +
            "keeps state (--state-dir)\""), lines.get(0));
        assertTrue(lines.get(1).endsWith("event=process_recovered process=5 msg=\"started on a fresh region: no " +
            "decided slots yet\""), lines.get(1));
    }

    /** Publishes {@code s} as the replica does: a process that is not recovering. */
    private void onStatus(final Status s, final long proposals, final long retransmissions, final long tick)
    {
        events.onStatus(new ProcessStatus(s.process, s.role, false, s.blocked(), -1, s.ballot, s.reachableAcceptors,
            s.neededAcceptors, s.appliedThrough, s.knownDecidedThrough, 0, 0, 0, true, -1, null), s, proposals,
            retransmissions, tick);
    }

    private static Status follower(final long applied, final long known)
    {
        return new Status(3, Role.FOLLOWER, 7, 0, 4, applied, known, false);
    }

    private long count(final String fragment)
    {
        return lines.stream().filter(l -> l.contains(fragment)).count();
    }
}
