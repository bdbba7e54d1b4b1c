package io.mmx.membership.sim;

import io.mmx.membership.MembershipConfig;
import io.mmx.membership.Role;
import io.mmx.membership.plan.PlanActivation;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MembershipSimulationTest
{
    private static long seed()
    {
        final long seed = Long.getLong("mmx.seed", System.nanoTime());
        System.out.println("seed=" + seed + " (replay with -Dmmx.seed=" + seed + ")");
        return seed;
    }

    @Test
    void smallClusterElectsDetectsAndReElectsAfterSixtyPercentCrash()
    {
        final long seed = seed();
        final MembershipSimulation sim = new MembershipSimulation(new MembershipSimulation.Options()
            .processes(64).seed(seed).lossRate(0.01).delayTicks(1, 2));
        assertTrue(sim.runUntilAgreement(2_000) >= 0, "seed=" + seed);
        sim.run(300);
        assertEquals(0, sim.agreedLeader(), "seed=" + seed);
        for (int p = 0; p < 64; p++)
        {
            assertEquals(PlanActivation.State.ACTIVE, sim.node(p).planState(), "seed=" + seed + " p=" + p);
        }
        final long epochBefore = sim.node(5).leaderEpoch();

        sim.crashRandom(0.6, 0);
        final long ticks = sim.runUntilAgreement(5_000);
        System.out.println("n=64 agreement " + ticks + " ticks after crash, leader=" + sim.agreedLeader());
        assertTrue(ticks >= 0, "seed=" + seed);
        final int leader = sim.agreedLeader();
        assertTrue(sim.node(leader).leaderEpoch() > epochBefore, "new leader has a new epoch, seed=" + seed);
        assertEquals(Role.LEADER, sim.node(leader).electionRole());

        final long bound = new MembershipConfig().conclude(64).detectionBoundTicks(64);
        final long startTick = sim.nowTick();
        while (!sim.viewsAreExact() && sim.nowTick() - startTick < bound)
        {
            sim.step();
        }
        assertTrue(sim.viewsAreExact(), "views exact within " + bound + " ticks, seed=" + seed);
        assertEquals(0, sim.malformedMessages());
    }

    @Test
    void processWithAnotherPlanIsRefusedNamingBothHashes()
    {
        final long seed = seed();
        final MembershipSimulation sim = new MembershipSimulation(new MembershipSimulation.Options()
            .processes(32).seed(seed).foreignPlanProcess(7));
        sim.run(400);
        final String refusal = sim.refusal(7);
        assertNotNull(refusal, "seed=" + seed);
        assertTrue(refusal.matches(".*runs plan [0-9a-f]{64} but this process runs plan [0-9a-f]{64}.*"), refusal);
        assertEquals(PlanActivation.State.REFUSED, sim.node(7).planState());
        assertTrue(sim.node(0).foreignPlanMessages() + sim.node(1).foreignPlanMessages() >= 0);
        System.out.println(refusal);
    }
}
