package io.mmx.membership.election;

import io.mmx.membership.MembershipConfig;
import io.mmx.membership.Role;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LeaderElectionTest
{
    private final MembershipConfig config = new MembershipConfig().conclude(16);
    private final List<String> changes = new ArrayList<>();

    private LeaderElection election(final int self)
    {
        return new LeaderElection(config, self, (leader, epoch, state, tick) -> changes.add(leader + "@" + epoch));
    }

    @Test
    void rankZeroClaimsAtOnceOthersWaitByRank()
    {
        final LeaderElection zero = election(0);
        zero.tick(0, 0);
        assertEquals(Role.LEADER, zero.role());
        assertEquals(1, zero.leaderEpoch(0));

        final LeaderElection five = election(5);
        final long wait = 5L * config.candidateStaggerTicks();
        five.tick(0, 5);
        five.tick(wait - 1, 5);
        assertEquals(Role.CANDIDATE, five.role());
        five.tick(wait, 5);
        assertEquals(Role.LEADER, five.role());
    }

    /**
     * Past the rank cap every candidate used to wait the same capped time and stand on the same tick.
     * Lower ids on the candidate's own host run with it, so they are counted after the cap: of one
     * host's processes, each waits a stagger longer than the one below it.
     */
    @Test
    void pastTheCapAHostsProcessesStandOneStaggerApart()
    {
        final MembershipConfig capped = new MembershipConfig().maxCandidateRank(100).candidateStaggerTicks(25).conclude(4096);
        final LeaderElection first = new LeaderElection(capped, 1280, (leader, epoch, state, tick) -> { });
        final LeaderElection sixth = new LeaderElection(capped, 1285, (leader, epoch, state, tick) -> { });
        assertEquals(100L * 25, first.candidateWaitTicks(700, 0), "the lowest on its host: the capped rank");
        assertEquals(105L * 25, sixth.candidateWaitTicks(705, 5), "five lower on its host: five staggers later");
        assertEquals(40L * 25, sixth.candidateWaitTicks(40, 5), "below the cap the rank alone, as before");
        assertEquals(3L * 25, sixth.candidateWaitTicks(3, 5), "host-mates held dead falsely: never more than the rank");
        sixth.tick(0, 705, 5);
        sixth.tick(100L * 25, 705, 5);
        assertEquals(Role.CANDIDATE, sixth.role(), "not yet at the capped wait");
        sixth.tick(105L * 25, 705, 5);
        assertEquals(Role.LEADER, sixth.role());
        first.tick(0, 700, 0);
        first.tick(100L * 25, 700, 0);
        assertEquals(Role.LEADER, first.role());
    }

    @Test
    void freshLowerClaimDeposesALeaderAtOnceWithAHigherEpochKnown()
    {
        final LeaderElection five = election(5);
        five.tick(0, 0);
        assertEquals(Role.LEADER, five.role());
        five.onClaim(10, 2, 7, 3, 0, false);
        assertEquals(Role.FOLLOWER, five.role());
        assertEquals(2, five.leaderId(10));
        assertEquals(7, five.leaderEpoch(10));
        assertEquals(7, five.maxEpochSeen());
    }

    @Test
    void staleClaimsAreIgnoredAndExpiredLeasesMakeACandidate()
    {
        final LeaderElection five = election(5);
        five.onClaim(1000, 1, 1, config.leaderLeaseTicks(), 0, false);
        assertEquals(-1, five.leaderId(1000), "a claim older than the lease is not followed");
        five.onClaim(1000, 1, 1, 0, 0, false);
        five.tick(1000, 3);
        assertEquals(1, five.leaderId(1000));
        // Ticked every tick (a process that runs): the claim, born a tick before it arrived, lasts a lease.
        for (long t = 1001; t < 999 + config.leaderLeaseTicks(); t++)
        {
            five.tick(t, 3);
        }
        assertEquals(1, five.leaderId(998 + config.leaderLeaseTicks()));
        five.tick(1000 + config.leaderLeaseTicks(), 3);
        assertEquals(Role.CANDIDATE, five.role());
        assertEquals(-1, five.leaderId(1000 + config.leaderLeaseTicks()));
    }

    /**
     * Leader 1's claim arrives at tick 1000 and is never renewed. While the operating system says 1's
     * JVM runs, the claim is kept past its lease (asked every eighth of a lease), up to four leases;
     * then it lapses. When the JVM is gone, the claim lapses at the next asking.
     */
    @Test
    void aClaimPastItsLeaseIsKeptWhileItsLeadersJvmSurelyRunsForAtMostFourLeases()
    {
        final long lease = config.leaderLeaseTicks();
        final boolean[] runs = {true};
        final int[] asked = {0};
        final LeaderElection five = new LeaderElection(config, 5, (leader, epoch, state, tick) ->
            changes.add(leader + "@" + epoch), id ->
            {
                asked[0]++;
                return id == 1 && runs[0];
            });
        five.onClaim(1000, 1, 1, 0, 0, false);
        long t = 1000;
        for (; t < 999 + LeaderElection.RUNNING_LEASES * lease; t++)
        {
            five.tick(t, 3);
            assertEquals(1, five.leaderId(t), "kept at tick " + t);
        }
        assertEquals(Role.FOLLOWER, five.role());
        final long askings = (LeaderElection.RUNNING_LEASES - 1) * lease / (lease / 8);
        assertEquals(askings, asked[0], "asked every eighth of a lease past the first lease");
        assertEquals(askings, five.claimsKept());
        five.tick(t, 3);
        assertEquals(Role.CANDIDATE, five.role(), "four leases without a renewal: a hung JVM is left");
        assertEquals(List.of("1@1", "-1@0"), changes);

        changes.clear();
        asked[0] = 0;
        final LeaderElection six = new LeaderElection(config, 6, (leader, epoch, state, tick) ->
            changes.add(leader + "@" + epoch), id ->
            {
                asked[0]++;
                return id == 1 && runs[0];
            });
        six.onClaim(1000, 1, 1, 0, 0, false);
        for (t = 1000; t < 999 + 2 * lease; t++)
        {
            six.tick(t, 3);
        }
        assertEquals(1, six.leaderId(t - 1));
        runs[0] = false; // SIGKILL: the lock is free
        final long killed = t;
        while (six.role() == Role.FOLLOWER && t < killed + lease)
        {
            six.tick(t++, 3);
        }
        assertEquals(Role.CANDIDATE, six.role());
        assertTrue(t - killed <= lease / 8 + 1, "lapsed " + (t - killed) + " ticks after the JVM went");
    }

    @Test
    void ticksThisProcessDidNotRunDoNotAgeItsClaim()
    {
        final LeaderElection five = election(5);
        five.onClaim(1000, 1, 1, 0, 0, false);
        five.tick(1000, 3);
        // Its JVM did not run for two leases: on waking the leader is still followed, and the news that
        // came meanwhile (polled before the tick) renews it.
        final long wake = 1000 + 2L * config.leaderLeaseTicks();
        five.tick(wake, 3);
        assertEquals(1, five.leaderId(wake));
        assertEquals(List.of("1@1"), changes, "no change on waking");
        // Idle gaps up to the stall bound count as time: the lease runs out a lease of such ticks later.
        long t = wake;
        while (t < wake + config.leaderLeaseTicks())
        {
            t += config.leaderLeaseTicks() / 8;
            five.tick(t, 3);
        }
        assertEquals(Role.CANDIDATE, five.role());
    }

    @Test
    void aLeaderThatHearsNobodyForALeaseStepsDown()
    {
        final LeaderElection zero = election(0);
        zero.tick(0, 0);
        zero.onHeard(10);
        for (long t = 1; t <= 10 + config.leaderLeaseTicks(); t++)
        {
            zero.tick(t, 0);
        }
        assertEquals(Role.LEADER, zero.role());
        zero.tick(11 + config.leaderLeaseTicks(), 0);
        assertEquals(Role.CANDIDATE, zero.role());
    }

    @Test
    void deadClaimantIsDroppedImmediately()
    {
        final LeaderElection five = election(5);
        five.onClaim(0, 1, 1, 0, 0, false);
        five.tick(0, 3);
        assertEquals(1, five.leaderId(0));
        five.onMemberDead(1, 1);
        five.tick(1, 3);
        assertEquals(Role.CANDIDATE, five.role());
        five.onClaim(2, 1, 1, 0, 0, true);
        assertEquals(-1, five.leaderId(2), "claims of a member held dead are ignored");
    }

    @Test
    void asksForNewsWhenTheClaimHasUsedHalfItsLease()
    {
        final LeaderElection five = election(5);
        assertEquals(true, five.wantsLeaderNews(0));
        five.onClaim(0, 1, 1, 0, 0, false);
        five.tick(0, 3);
        assertEquals(false, five.wantsLeaderNews(config.leaderLeaseTicks() / 2 - 1));
        assertEquals(true, five.wantsLeaderNews(config.leaderLeaseTicks() / 2 + 1));
        assertEquals(1, five.lastLeaderId());
    }
}
