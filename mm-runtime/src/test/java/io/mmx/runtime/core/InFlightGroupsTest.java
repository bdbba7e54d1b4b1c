package io.mmx.runtime.core;

import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A leader's Accept groups: an unanswered group is broadcast again after the retransmission timeout,
 * then after 2, 4 and 8 timeouts, never more than the cap; the timeout follows the latency of groups decided without
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
        // Latencies spread over 2..16 ticks, most above the floor: the groups that beat the timeout
        // are sampled, and four deviations of headroom carry it past the rest.
        decideSpread(2, 16, 30);
        final long grown = groups.timeoutTicks();
        assertTrue(grown >= 16 && grown <= CAP, "latencies up to 16 ticks: timeout covers them, got " + grown);
        final long resentWhileLearning = groups.retransmissions();
        decideSpread(2, 16, 10);
        assertEquals(resentWhileLearning, groups.retransmissions(), "once learnt, groups decided in time go out once");

        decideGroupsTaking(10, 60);
        final long steady = groups.timeoutTicks();
        assertTrue(steady >= 10 && steady <= 14, "a steady 10 ticks: timeout near 10, got " + steady);

        decideGroupsTaking(1, 60);
        assertEquals(FLOOR, groups.timeoutTicks(), "the latency fell below the floor: the floor again");
    }

    @Test
    void aLatencyWhollyAboveTheTimeoutIsNotLearntAndGroupsAreResentAsBefore()
    {
        // Every group takes 6 ticks against a timeout of 4: each goes out twice, none is a sample.
        decideGroupsTaking(6, 20);
        assertEquals(FLOOR, groups.timeoutTicks());
        assertEquals(20, groups.retransmissions());
    }

    @Test
    void aVaryingLatencyGetsFourDeviationsOfHeadroom()
    {
        decideSpread(2, 16, 30);
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
        assertEquals(CAP, timer.waitTicks(10), "no wait between two broadcasts exceeds the cap");
        final RetransmitTimer learnt = new RetransmitTimer(config);
        learnt.sample(6); // timeout 18: backoff doubles it to 36, the cap takes it to 32
        assertEquals(18, learnt.waitTicks(0));
        assertEquals(CAP, learnt.waitTicks(1), "the per-group backoff rides on the timeout up to the cap");
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
    void aNewTermStartsAtTheFloor()
    {
        decideSpread(2, 20, 30);
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

    /** {@code rounds} times, decides groups taking {@code from}, {@code from} + 2, .. {@code to} ticks. */
    private void decideSpread(final int from, final int to, final int rounds)
    {
        for (int r = 0; r < rounds; r++)
        {
            for (int latency = from; latency <= to; latency += 2)
            {
                decideGroupsTaking(latency, 1);
            }
        }
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
