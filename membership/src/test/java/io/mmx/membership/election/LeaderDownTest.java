package io.mmx.membership.election;

import io.mmx.planner.plan.PlanDigest;

import io.mmx.membership.MembershipConfig;
import io.mmx.membership.MembershipListener;
import io.mmx.membership.MembershipNode;
import io.mmx.membership.Role;
import io.mmx.membership.neighbour.HostLiveness;
import io.mmx.membership.wire.MessageType;
import io.mmx.membership.wire.SwimMessage;
import io.mmx.planner.plan.PlanDigest;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fast failover at one node, tick by tick: n = 8 on three hosts (0-3, 4-5, 6-7); memory heartbeats
 * are a scripted array; the node's messages are recorded. Default configuration: the leader is
 * declared stopped after 5 ticks and 4 reads of a still word.
 */
class LeaderDownTest
{
    private static final int N = 8;
    private static final int[] HOST_OF = {0, 0, 0, 0, 1, 1, 2, 2};
    private static final PlanDigest PLAN = PlanDigest.of(new byte[32]);

    private final long[] words = new long[N];
    private final List<int[]> sent = new ArrayList<>();
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
    /** Hosts the operating system says run (none by default: the word alone decides). */
    private final boolean[] hostRuns = new boolean[N];
    /** Hosts the operating system says are gone (none by default: it cannot tell). */
    private final boolean[] hostDead = new boolean[N];
    private final HostLiveness liveness = new HostLiveness()
    {
        @Override
        public boolean surelyRuns(final int p)
        {
            return hostRuns[p];
        }

        @Override
        public boolean surelyDead(final int p)
        {
            deathQuestions++;
            return hostDead[p];
        }
    };
    /** Times the node asked whether a process's host is gone. */
    private int deathQuestions;

    private MembershipNode node(final int self, final int... neighbours)
    {
        return node(new MembershipConfig(), self, neighbours);
    }

    private MembershipNode node(final MembershipConfig config, final int self, final int... neighbours)
    {
        return new MembershipNode(config.conclude(N), N, self, PLAN, neighbours, 7,
            (src, dst, type, b, offset, length) -> sent.add(new int[]{type, dst}), MembershipListener.NO_OP,
            q -> words[q], value -> words[self] = value, 0, HOST_OF, liveness);
    }

    /** A message of {@code type} from {@code src} carrying the claim (leader, epoch, age 0). */
    private void deliver(final MembershipNode node, final long tick, final int src, final int type, final int subject,
        final int leader, final long epoch)
    {
        final int length = new SwimMessage().wrapForEncode(buffer, 0).header(PLAN.membershipFingerprint(), 0, 0,
            subject, 0, -1, leader, epoch, leader < 0 ? 0 : 3, 0).updateCount(0);
        node.onMessage(tick, src, type, buffer, 0, length);
    }

    /** Process 6 (host 6-7), following {@code leader}'s claim heard at tick 1. */
    private MembershipNode sixFollowing(final int leader)
    {
        final MembershipNode six = node(6, 3, 5);
        deliver(six, 1, leader, MessageType.PING, -1, leader, 1);
        six.tick(1);
        assertEquals(leader, six.leaderId());
        return six;
    }

    private List<Integer> sentTo(final int type)
    {
        final List<Integer> to = new ArrayList<>();
        for (final int[] s : sent)
        {
            if (s[0] == type)
            {
                to.add(s[1]);
            }
        }
        return to;
    }

    /** Process 4 (host 4-5, a neighbour of 0 and 6) following leader 0, which beats every tick through tick 30. */
    private MembershipNode fourFollowingZeroThroughTick30()
    {
        final MembershipNode four = node(4, 0, 6);
        deliver(four, 1, 0, MessageType.PING, -1, 0, 1);
        for (long t = 1; t <= 30; t++)
        {
            words[0] = t; // the leader beats every tick
            four.tick(t);
        }
        return four;
    }

    @Test
    void aNeighbourOfTheLeaderDeclaresItStoppedTellsEveryoneAndTheNextHostClaimsAtOnce()
    {
        final MembershipNode four = fourFollowingZeroThroughTick30();
        long t = 31;
        assertEquals(0, four.leaderId());
        assertEquals(List.of(), sentTo(MessageType.LEADER_DOWN));
        // The leader's JVM dies: its word stands at 30.
        for (; sentTo(MessageType.LEADER_DOWN).isEmpty() && t < 100; t++)
        {
            four.tick(t);
        }
        assertEquals(36, t, "declared at tick 35: 5 ticks and 5 still reads after the last beat seen at 30");
        assertEquals(List.of(0, 1, 2, 3, 5, 6, 7), sentTo(MessageType.LEADER_DOWN));
        // 0-3 share a host, so all are held down: 4 has rank 0, leads, and tells everyone.
        assertEquals(Role.LEADER, four.electionRole());
        assertEquals(4, four.leaderId());
        assertEquals(2, four.leaderEpoch());
        assertEquals(List.of(0, 1, 2, 3, 5, 6, 7), sentTo(MessageType.LEADER_CLAIM));
        for (; t < 200; t++)
        {
            four.tick(t);
        }
        assertEquals(7, sentTo(MessageType.LEADER_CLAIM).size(), "one announcement per leadership");
        assertEquals(7, sentTo(MessageType.LEADER_DOWN).size(), "one declaration per stop");
    }

    @Test
    void onceItsEraEndedANodeNoLongerDeclaresTheEraLeaderStoppedOnAStillWord()
    {
        final MembershipNode four = fourFollowingZeroThroughTick30();
        long t = 31;
        // A plan change ended the era here; the leader's node switches and its old word stands at 30.
        four.eraEnded();
        for (; t <= 60; t++)
        {
            four.tick(t);
        }
        assertEquals(0, four.leaderId(), "still followed well past tick 35, where a watching node declares it stopped");
        for (; t < 200; t++)
        {
            four.tick(t);
        }
        assertEquals(List.of(), sentTo(MessageType.LEADER_DOWN), "nothing to tell the members of an ended era");
        assertEquals(0, four.leaderDeclarations());
    }

    @Test
    void aLeaderWhoseProcessTheHostKnowsDeadIsDeclaredOnTheEarlyBound()
    {
        // The word alone: 15 ticks and 4 reads; a death the host confirms: 5 ticks and 3 reads.
        final MembershipConfig config = new MembershipConfig().leaderStaleTicks(15).leaderStaleReads(4)
            .leaderConfirmedStaleTicks(5).leaderConfirmedStaleReads(3);
        final MembershipNode four = node(config, 4, 0, 6);
        deliver(four, 1, 0, MessageType.PING, -1, 0, 1);
        long t = 1;
        for (; t <= 30; t++)
        {
            words[0] = t;
            four.tick(t);
        }
        // Paused, not dead (the host cannot tell either way): the early bound passes and nothing happens.
        for (; t <= 40; t++)
        {
            four.tick(t);
        }
        assertEquals(List.of(), sentTo(MessageType.LEADER_DOWN), "no declaration on the early bound without a confirmed death");
        words[0] = t; // it beats again
        four.tick(t++);
        final long lastBeat = t - 1;
        hostDead[0] = true; // then its JVM is killed
        for (; sentTo(MessageType.LEADER_DOWN).isEmpty() && t < lastBeat + 100; t++)
        {
            four.tick(t);
        }
        assertEquals(lastBeat + 7, t, "asked every 3 still reads once 5 ticks passed: the 6th read, tick " + (lastBeat + 6));
        assertEquals(List.of(0, 1, 2, 3, 5, 6, 7), sentTo(MessageType.LEADER_DOWN));
        assertEquals(4, four.leaderId());
        assertEquals(0, four.leaderDeclarationsVetoed());
    }

    @Test
    void theEarlyBoundMayNotExceedTheFullOne()
    {
        final IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
            () -> new MembershipConfig().leaderStaleTicks(5).leaderConfirmedStaleTicks(6).conclude(N));
        assertTrue(e.getMessage().contains("leaderConfirmedStaleTicks"), e.getMessage());
    }

    @Test
    void aLeaderWhoseHostSurelyRunsIsNotDeclaredHoweverLongItsWordStandsStill()
    {
        final MembershipNode four = node(4, 0, 6);
        deliver(four, 1, 0, MessageType.PING, -1, 0, 1);
        hostRuns[0] = true; // a busy machine: 0's JVM waits for a core, or pauses for its garbage collector
        long t = 1;
        for (; t <= 30; t++)
        {
            words[0] = t;
            four.tick(t);
        }
        for (; t <= 70; t++)
        {
            four.tick(t);
        }
        assertEquals(List.of(), sentTo(MessageType.LEADER_DOWN));
        assertEquals(0, four.leaderId());
        // Asked at tick 35 (5 ticks, 5 reads), then every 4 reads while the word stands: 39, 43, ..., 67.
        assertEquals(9, four.leaderDeclarationsVetoed());
        // Its JVM dies while the word still stands: the next asking (4 reads on) declares it.
        hostRuns[0] = false;
        for (int i = 0; i < 4; i++)
        {
            four.tick(t++);
        }
        assertEquals(List.of(0, 1, 2, 3, 5, 6, 7), sentTo(MessageType.LEADER_DOWN));
        assertEquals(9, four.leaderDeclarationsVetoed());
    }

    @Test
    void aMemberToldTheLeaderIsDownFollowsTheNewClaimAtOnceAndIgnoresTheOldLeaderUntilItClaimsAgain()
    {
        final MembershipNode six = sixFollowing(0);
        deliver(six, 2, 4, MessageType.LEADER_DOWN, 0, 0, 1);
        assertEquals(-1, six.leaderId(), "the claim of 0 is dropped; 4 and 5 rank below 6, so it waits");
        assertEquals(Role.CANDIDATE, six.electionRole());
        deliver(six, 2, 4, MessageType.LEADER_CLAIM, -1, 4, 2);
        assertEquals(4, six.leaderId(), "followed on receipt, not a tick later");
        // Gossip still carrying 0's old claim (another member's message) is ignored: 0's host is held down.
        deliver(six, 3, 5, MessageType.PING, -1, 0, 1);
        six.tick(3);
        assertEquals(4, six.leaderId());
        // Nor is a message 0 itself sent: it may have been sent just before 0 died and polled late.
        deliver(six, 4, 0, MessageType.PING, -1, 0, 1);
        six.tick(4);
        assertEquals(4, six.leaderId());
        // A claim 0 sends to everyone (a restart, or a refutation) shows its host runs; the lowest id wins again.
        deliver(six, 5, 0, MessageType.LEADER_CLAIM, -1, 0, 3);
        six.tick(5);
        assertEquals(0, six.leaderId());
    }

    /**
     * Host 0-3 was killed seconds before the leader's (4-5); the failure detector does not hold 0-3
     * dead yet. Told the leader is down, 6 asks the operating system about the hosts below it: both
     * are gone, so 0-5 are held dead and 6, the lowest process left, claims at once. Where the host
     * cannot tell, 0-3 still rank below 6 and it waits, as before.
     */
    @Test
    void toldTheLeaderIsDownAProcessHoldsLowerHostsTheSystemKnowsGoneDeadAndClaimsAtOnce()
    {
        final MembershipNode unknowing = sixFollowing(4);
        deliver(unknowing, 2, 7, MessageType.LEADER_DOWN, 4, 4, 1);
        unknowing.tick(2);
        assertEquals(Role.CANDIDATE, unknowing.electionRole(), "0-3 rank below 6: it waits by rank");
        assertEquals(0, unknowing.hostsHeldDead());

        sent.clear();
        java.util.Arrays.fill(hostDead, 0, 6, true);
        final MembershipNode six = sixFollowing(4);
        deliver(six, 2, 7, MessageType.LEADER_DOWN, 4, 4, 1);
        assertEquals(2, six.hostsHeldDead(), "hosts 0-3 and 4-5, one question each");
        assertEquals(Role.LEADER, six.electionRole());
        assertEquals(6, six.leaderId());
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 7), sentTo(MessageType.LEADER_CLAIM));
    }

    /**
     * Leader 4 has no neighbour of 6's to read its heartbeat, and its claim stops being renewed. Past
     * half a lease 6 asks the host about 4 every eighth of a lease: while it cannot tell, 6 keeps
     * following until the lease; once the system says 4's JVM (and the lower host 0-3) is gone, 6
     * leads at the next asking, without telling anyone that 4 is down.
     */
    /** Every neighbour that saw the leader stop declares it; the host is asked about one stop once. */
    @Test
    void aStopDeclaredByTwoNeighboursAsksTheHostOnce()
    {
        hostDead[4] = true; // the leader's JVM is gone; host 0-3 runs
        hostDead[5] = true;
        final MembershipNode six = sixFollowing(4);
        deathQuestions = 0;
        deliver(six, 2, 7, MessageType.LEADER_DOWN, 4, 4, 1);
        assertEquals(2, deathQuestions, "host 0-3 (runs) and host 4-5 (gone)");
        assertEquals(1, six.hostsHeldDead());
        deliver(six, 3, 3, MessageType.LEADER_DOWN, 4, 4, 1);
        assertEquals(2, deathQuestions, "the second declaration of the same stop asks nothing more");
    }

    @Test
    void aFollowerAsksTheHostAboutALeaderWhoseClaimWentSilent()
    {
        final long lease = new MembershipConfig().leaderLeaseTicks();
        // Nobody answers this node's probes: a suspicion timeout beyond the test keeps SWIM from declaring 4 dead.
        final MembershipNode six = node(new MembershipConfig().suspicionTimeoutTicks(100_000), 6, 3, 5);
        deliver(six, 1, 4, MessageType.PING, -1, 4, 1);
        long t = 1;
        for (; t <= 1 + lease / 2 + lease / 8; t++)
        {
            six.tick(t);
        }
        assertEquals(4, six.leaderId(), "the host cannot tell: the claim is followed until its lease");
        assertEquals(0, six.silentLeadersFoundGone());
        java.util.Arrays.fill(hostDead, 0, 6, true);
        final long gone = t;
        for (; six.electionRole() != Role.LEADER && t < 1 + lease; t++)
        {
            six.tick(t);
        }
        assertEquals(Role.LEADER, six.electionRole());
        assertTrue(t - gone <= lease / 8 + 1, "led within an eighth of a lease of the system knowing: " + (t - gone));
        assertEquals(1, six.silentLeadersFoundGone());
        assertEquals(List.of(), sentTo(MessageType.LEADER_DOWN), "each follower asks for itself");
    }

    @Test
    void theDownHoldLapsesAfterALease()
    {
        final MembershipNode six = node(6, 3, 5);
        deliver(six, 1, 0, MessageType.PING, -1, 0, 1);
        deliver(six, 2, 4, MessageType.LEADER_DOWN, 0, 0, 1);
        final long lease = new MembershipConfig().leaderLeaseTicks();
        deliver(six, 1 + lease, 5, MessageType.PING, -1, 1, 5);
        assertEquals(-1, six.leaderId(), "1 is on the host held down");
        six.tick(2 + lease);
        deliver(six, 3 + lease, 5, MessageType.PING, -1, 1, 5);
        six.tick(3 + lease);
        assertEquals(1, six.leaderId(), "a lease later the hold has lapsed");
    }

    @Test
    void aLeaderDeclaredDownByMistakeRefutesToEveryone()
    {
        final MembershipNode zero = node(0, 4, 6);
        zero.tick(1);
        assertEquals(Role.LEADER, zero.electionRole());
        sent.clear();
        deliver(zero, 2, 4, MessageType.LEADER_DOWN, 0, 0, 1);
        assertEquals(Role.LEADER, zero.electionRole());
        assertEquals(List.of(1, 2, 3, 4, 5, 6, 7), sentTo(MessageType.LEADER_CLAIM));
    }

    @Test
    void aLeaderOnTheSameHostIsNotWatchedThroughMemory()
    {
        final MembershipNode one = node(1, 0, 6);
        deliver(one, 1, 0, MessageType.PING, -1, 0, 1);
        for (long t = 1; t <= 60; t++)
        {
            words[0] = Math.min(t, 10);
            one.tick(t);
        }
        assertEquals(0, one.leaderId());
        assertEquals(List.of(), sentTo(MessageType.LEADER_DOWN), "1 runs on 0's thread: if 1 runs, 0 runs");
    }

    @Test
    void theLeaderBeatsEveryTickOthersEveryInterval()
    {
        final MembershipNode zero = new MembershipNode(new MembershipConfig().heartbeatIntervalTicks(10)
            .neighbourStaleTicks(100).conclude(N), N, 0, PLAN, new int[]{4}, 7, (src, dst, type, b, offset, length) -> { },
            MembershipListener.NO_OP, q -> words[q], value -> words[0] = value, 0, HOST_OF, HostLiveness.NONE);
        final MembershipNode four = new MembershipNode(new MembershipConfig().heartbeatIntervalTicks(10)
            .neighbourStaleTicks(100).conclude(N), N, 4, PLAN, new int[]{0}, 7, (src, dst, type, b, offset, length) -> { },
            MembershipListener.NO_OP, q -> words[q], value -> words[4] = value, 0, HOST_OF, HostLiveness.NONE);
        for (long t = 1; t <= 40; t++)
        {
            zero.tick(t);
            four.tick(t);
        }
        assertEquals(Role.LEADER, zero.electionRole());
        assertTrue(words[0] >= 39, "leader beat " + words[0] + " times in 40 ticks");
        assertTrue(words[4] <= 5, "follower beat " + words[4] + " times in 40 ticks");
    }
}
