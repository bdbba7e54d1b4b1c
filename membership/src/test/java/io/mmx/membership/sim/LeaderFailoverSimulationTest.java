package io.mmx.membership.sim;

import io.mmx.membership.MembershipConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The leader's crash through memory, in the simulator (n = 64, each process its own host): its plan
 * neighbours see its heartbeat word stop, tell every member, and the next id claims and tells every
 * member; and without a crash, under message loss, the leader never changes.
 */
class LeaderFailoverSimulationTest
{
    private static long seed()
    {
        final long seed = Long.getLong("mmx.seed", System.nanoTime());
        System.out.println("seed=" + seed + " (replay with -Dmmx.seed=" + seed + ")");
        return seed;
    }

    @Test
    void aCrashedLeaderIsReplacedWithinTheStaleBoundAndTwoMessageDelays()
    {
        final long seed = seed();
        final MembershipSimulation sim = new MembershipSimulation(new MembershipSimulation.Options()
            .processes(64).seed(seed).delayTicks(1, 2));
        assertTrue(sim.runUntilAgreement(2_000) >= 0, "seed=" + seed);
        sim.run(300);
        assertEquals(0, sim.agreedLeader(), "seed=" + seed);
        final long epoch = sim.node(5).leaderEpoch();
        sim.crash(0);
        final long ticks = sim.runUntilAgreement(2_000);
        System.out.println("n=64: every live process follows " + sim.agreedLeader() + " " + ticks + " ticks after " +
            "the leader's crash");
        // Stale bound (5 ticks from the last advance read), then the LEADER_DOWN and the LEADER_CLAIM,
        // each at most 2 ticks on the way, and up to 3 ticks of reading and stepping order.
        final int bound = MembershipConfig.DEFAULT_LEADER_STALE_TICKS + 2 + 2 + 3;
        assertTrue(ticks >= MembershipConfig.DEFAULT_LEADER_STALE_TICKS - 1 && ticks <= bound,
            ticks + " ticks, bound " + bound + ", seed=" + seed);
        assertEquals(1, sim.agreedLeader(), "seed=" + seed);
        assertTrue(sim.node(5).leaderEpoch() > epoch, "seed=" + seed);
        assertEquals(0, sim.malformedMessages(), "seed=" + seed);
    }

    @Test
    void withoutACrashTheLeaderNeverChangesUnderLoss()
    {
        final long seed = seed();
        // A suspicion must outlast the spread of the suspect's refutation: with 5 % loss and hops of 1-3
        // ticks among 64 processes, the default 60 ticks (3 protocol periods) let a false DEAD of the leader
        // through in 18 of seeds 1-150 (its claim is dropped, then followed again); 300 ticks (15 periods),
        // still far below the node's 50 periods, in none of them.
        final MembershipSimulation sim = new MembershipSimulation(new MembershipSimulation.Options()
            .processes(64).seed(seed).lossRate(0.05).delayTicks(1, 3)
            .config(new MembershipConfig().suspicionTimeoutTicks(300)));
        assertTrue(sim.runUntilAgreement(2_000) >= 0, "seed=" + seed);
        sim.run(300);
        final int leader = sim.agreedLeader();
        final long epoch = sim.node(leader).leaderEpoch();
        long downNotices = 0;
        for (int t = 0; t < 20_000; t++)
        {
            sim.step();
            if (t % 50 == 0)
            {
                assertEquals(leader, sim.agreedLeader(), "tick " + t + ", seed=" + seed);
            }
        }
        for (int p = 0; p < 64; p++)
        {
            assertEquals(epoch, sim.node(p).leaderEpoch(), "process " + p + ", seed=" + seed);
            downNotices += sim.node(p).leaderDownNotices();
        }
        assertEquals(0, downNotices, "seed=" + seed);
    }
}
