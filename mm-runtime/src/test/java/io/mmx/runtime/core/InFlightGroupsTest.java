package io.mmx.runtime.core;

import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A leader's Accept groups: an unanswered group is broadcast again after the retransmission timeout,
 * then after 2, 4 and at most 8 timeouts; the timeout follows the latency of groups decided without
 * a resend, within the configured floor and cap, and starts again at the floor each term; the
 * reachable acceptors stay a quorum while groups are being decided.
 */
class InFlightGroupsTest
{
    private static final int FLOOR = 4;
    private static final int CAP = 32;

    private final CoreConfig config = new CoreConfig().graph(Graph.empty(5)).retransmitTicks(FLOOR).conclude();
    private final List<Long> broadcastAt = new ArrayList<>();
    private final long[] now = {0};
    private final IgnoringEffects effects = new IgnoringEffects()
    {
        @Override
        public void broadcast(final Message message)
        {
            broadcastAt.add(now[0]);
        }
    };
    private final InFlightGroups groups = new InFlightGroups(0, config, effects, new Learner(0, config, effects));
    private long nextSlot;

    @Test
    void theCapDefaultsToEightFloors()
    {
        assertEquals(CAP, config.retransmitMaxTicks());
    }

    @Test
    void anUnansweredGroupIsBroadcastAgainWithAWaitThatDoublesUpToEightTimeouts()
    {
        open();
        runTo(100);
        // Waits of 4, 8, 16, 32, then 32 again: the cap. Liveness: it never stops going out.
        assertEquals(List.of(4L, 12L, 28L, 60L, 92L), broadcastAt);
        assertEquals(5, groups.retransmissions());
    }

    @Test
    void theTimeoutGrowsTowardTheDecideLatencyAndShrinksBackWhenItFalls()
    {
        assertEquals(FLOOR, groups.timeoutTicks(), "no sample yet: the floor");
        decideGroupsTaking(10, 40);
        final long grown = groups.timeoutTicks();
        assertTrue(grown >= 10 && grown <= 14, "a steady latency of 10 ticks: timeout near 10, got " + grown);
        final long resentWhileLearning = groups.retransmissions();
        assertTrue(resentWhileLearning <= 3, "only the first groups went out again: " + resentWhileLearning);
        decideGroupsTaking(10, 40);
        assertEquals(resentWhileLearning, groups.retransmissions(), "groups decided within the timeout go out once");

        decideGroupsTaking(20, 40);
        final long higher = groups.timeoutTicks();
        assertTrue(higher >= 20 && higher <= 24, "the latency rose to 20: timeout near 20, got " + higher);

        decideGroupsTaking(10, 60);
        final long lower = groups.timeoutTicks();
        assertTrue(lower >= 10 && lower <= 14, "the latency fell back to 10: timeout near 10, got " + lower);

        decideGroupsTaking(1, 60);
        assertEquals(FLOOR, groups.timeoutTicks(), "the latency fell below the floor: the floor again");
    }

    @Test
    void aVaryingLatencyGetsFourDeviationsOfHeadroom()
    {
        long resentWhileLearning = 0;
        for (int i = 0; i < 100; i++)
        {
            decideGroupsTaking(i % 2 == 0 ? 8 : 16, 1);
            resentWhileLearning = i == 49 ? groups.retransmissions() : resentWhileLearning;
        }
        final long timeout = groups.timeoutTicks();
        // Smoothed 12, mean deviation 4: 12 + 4 x 4 = 28, above every sample.
        assertTrue(timeout >= 24 && timeout <= CAP, "latencies of 8 and 16 ticks: timeout near 28, got " + timeout);
        assertEquals(resentWhileLearning, groups.retransmissions(), "none of the last 50 groups went out again");
    }

    @Test
    void theTimeoutNeverLeavesTheFloorAndTheCap()
    {
        decideGroupsTaking(0, 40);
        assertEquals(FLOOR, groups.timeoutTicks(), "immediate quorums: the floor holds");
        // A latency far above the cap: the estimate itself must stop at the cap.
        final RetransmitTimer timer = new RetransmitTimer(config);
        for (int i = 0; i < 40; i++)
        {
            timer.sample(1_000);
        }
        assertEquals(CAP, timer.timeoutTicks(), "latencies of 1000 ticks: the cap holds");
        assertEquals((long)CAP << RetransmitTimer.MAX_BACKOFF_SHIFT, timer.waitTicks(10),
            "the per-group backoff rides on the cap, up to 8 timeouts");
    }

    @Test
    void aResentGroupGivesNoSample()
    {
        final InFlightGroups.Group g = open();
        runTo(FLOOR); // overdue at the floor: broadcast again
        assertEquals(1, groups.retransmissions());
        now[0] = 30;
        groups.decided(g, now[0]); // 30 ticks after its first broadcast, 26 after its second
        assertEquals(FLOOR, groups.timeoutTicks(), "Karn's rule: its quorum may answer either copy");
    }

    @Test
    void aTrimmedGroupGivesNoSample()
    {
        groups.open(0, new long[][]{new long[config.proposalWords()], new long[config.proposalWords()]}, now[0]);
        now[0] = 2;
        groups.trimBelow(1, 1, -1, now[0]); // slot 0 is decided elsewhere: slot 1 goes out again alone
        final InFlightGroups.Group rest = groups.find(1);
        assertTrue(rest != null && !rest.timed, "the rest of a trimmed group went out a second time");
        now[0] = 20;
        groups.decided(rest, now[0]);
        assertEquals(FLOOR, groups.timeoutTicks());
    }

    @Test
    void aTimeoutStaysDoubledForNewGroupsUntilAGroupSentOnceIsDecided()
    {
        decideGroupsTaking(1, 20);
        assertEquals(FLOOR, groups.timeoutTicks());
        // The latency steps up to 6 ticks, past the timeout: without Karn's retained backoff every
        // group would be resent, and no sample would ever show the new latency.
        final InFlightGroups.Group first = open();
        runTo(now[0] + FLOOR);
        assertEquals(1, groups.retransmissions(), "the first slow group times out at the floor");
        final InFlightGroups.Group second = open();
        runTo(now[0] + 6);
        assertEquals(1, groups.retransmissions(), "a group opened after a timeout waits twice the timeout");
        groups.decided(second, now[0]);
        groups.decided(first, now[0]);
        assertTrue(groups.timeoutTicks() > FLOOR, "the group sent once times the new latency: " + groups.timeoutTicks());
        final long resent = groups.retransmissions();
        decideGroupsTaking(6, 40);
        assertTrue(groups.timeoutTicks() >= 6, "then the timeout covers it: " + groups.timeoutTicks());
        assertEquals(resent, groups.retransmissions(), "and no group goes out twice");
    }

    @Test
    void aNewTermStartsAtTheFloor()
    {
        decideGroupsTaking(20, 40);
        assertTrue(groups.timeoutTicks() >= 20);
        groups.clear();
        assertEquals(FLOOR, groups.timeoutTicks(), "a new leader's first groups wait the floor, not the last term's timeout");
        final long start = now[0];
        open();
        runTo(start + FLOOR);
        assertEquals(List.of(start + FLOOR), broadcastAt.subList(broadcastAt.size() - 1, broadcastAt.size()));
    }

    @Test
    void reachableAcceptorsStayAQuorumWhileGroupsAreDecidedLaterThanTheFloor()
    {
        // Every group takes 3 floors to decide, one is decided every tick: the oldest group is always
        // older than the floor, yet the leader reaches a quorum all along.
        final int quorum = 3;
        final ArrayList<InFlightGroups.Group> open = new ArrayList<>();
        int stalledTicks = 0;
        for (now[0] = 0; now[0] < 200; now[0]++)
        {
            open.add(open());
            if (open.size() > 3 * FLOOR)
            {
                final InFlightGroups.Group g = open.remove(0);
                for (int a = 0; a < quorum; a++)
                {
                    groups.ack(g, a, a, 1);
                }
                groups.decided(g, now[0]);
            }
            groups.retransmitOverdue(1, -1, now[0]);
            if (now[0] >= 50 && groups.reachableAcceptors(now[0], quorum) < quorum)
            {
                stalledTicks++;
            }
        }
        assertEquals(0, stalledTicks, "the status must not flip to BLOCKED while groups are decided");

        // No group decided for a timeout, and the oldest is overdue: it reports the oldest's acks.
        final long quiet = now[0] + groups.timeoutTicks();
        assertEquals(quorum, groups.reachableAcceptors(now[0], quorum));
        assertEquals(0, groups.reachableAcceptors(quiet, quorum), "nothing decided for a timeout: BLOCKED");
    }

    /** Opens one single-slot group at the current tick. */
    private InFlightGroups.Group open()
    {
        final long slot = nextSlot++;
        groups.open(slot, new long[][]{new long[config.proposalWords()]}, now[0]);
        return groups.find(slot);
    }

    /** Runs the retransmission check at every tick up to {@code end}. */
    private void runTo(final long end)
    {
        for (now[0]++; now[0] <= end; now[0]++)
        {
            groups.retransmitOverdue(1, -1, now[0]);
        }
        now[0] = end;
    }

    /** Opens and decides {@code count} groups one after another, each {@code latency} ticks after its broadcast. */
    private void decideGroupsTaking(final int latency, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            final InFlightGroups.Group g = open();
            runTo(now[0] + latency);
            groups.decided(g, now[0]);
        }
    }
}
