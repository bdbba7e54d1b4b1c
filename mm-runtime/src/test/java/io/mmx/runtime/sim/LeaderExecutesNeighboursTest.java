package io.mmx.runtime.sim;

import io.mmx.runtime.core.CoreConfig;
import io.mmx.runtime.core.Message;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A leader executes its plan neighbours' acceptors itself (CoreConfig.leaderExecutesNeighbours):
 * on a cycle of 5, N[leader] is 3 acceptors, a quorum, so the leader decides from its own
 * transitions and phase 2 needs almost no Accepted from other executors. The same seed with the
 * option off is the baseline; the switch of leaders hands the acceptors back.
 */
class LeaderExecutesNeighboursTest
{
    private static final long SEED = Long.getLong("mmx.sim.seed", 11);

    @Test
    void leaderRunsItsNeighboursAcceptorsAndNeedsFewerRepliesForTheSameSlots()
    {
        System.out.println("LeaderExecutesNeighboursTest seed " + SEED + " (replay: -Dmmx.sim.seed=" + SEED + ")");
        final Simulation on = run(true);
        final Simulation off = run(false);

        final int leader = on.leader();
        assertEquals(3, on.core(leader).coveredAcceptors(), "the leader of a cycle executes itself and both neighbours");
        for (int p = 0; p < on.n(); p++)
        {
            if (p != leader)
            {
                assertEquals(1, on.core(p).coveredAcceptors(), "a follower executes only its own acceptor: p" + p);
            }
        }
        assertEquals(1, off.core(off.leader()).coveredAcceptors(), "with the option off the leader runs only its own");

        final long acceptedOn = on.stats().messagesSent[Message.Type.ACCEPTED.ordinal()];
        final long acceptedOff = off.stats().messagesSent[Message.Type.ACCEPTED.ordinal()];
        System.out.println("LeaderExecutesNeighboursTest: Accepted messages for 200 slots: " + acceptedOn +
            " with the leader executing its neighbours, " + acceptedOff + " without");
        // Per group, thrifty phase 2 asks 4 acceptors: off, the leader's own reply and 3 other executors'; on, one
        // reply of the leader for its 3 and one other executor's for the margin: about half, 3/4 at most.
        assertTrue(acceptedOn * 4 < acceptedOff * 3, "Accepted messages " + acceptedOn + " on against " + acceptedOff +
            " off: the leader's own transitions should make most other executors' replies unnecessary");
    }

    @Test
    void aLeaderThatStepsDownHandsItsNeighboursAcceptorsBack()
    {
        System.out.println("LeaderExecutesNeighboursTest seed " + SEED + " (replay: -Dmmx.sim.seed=" + SEED + ")");
        final Simulation sim = run(true);
        final int old = sim.leader();
        sim.crash(old);
        assertTrue(sim.runUntil(() -> sim.leader() != old && sim.leader() >= 0 &&
            sim.checker().chosenThrough() >= 260, 40_000_000), "a new leader chooses more slots");
        assertNull(sim.checker().violation());
        final int now = sim.leader();
        assertEquals(3, sim.core(now).coveredAcceptors(), "the new leader executes itself and both neighbours");
        sim.restart(old);
        assertTrue(sim.runUntil(() -> sim.core(old).ready(), 40_000_000), "the old leader restarts");
        sim.runFor(2_000_000);
        assertFalse(sim.leader() == old && sim.core(old).coveredAcceptors() == 1,
            "a leading restarted process must execute its neighbours");
        for (int p = 0; p < sim.n(); p++)
        {
            if (p != sim.leader() && sim.isUp(p))
            {
                assertEquals(1, sim.core(p).coveredAcceptors(), "not leading, p" + p + " executes only its own acceptor");
            }
        }
        assertNull(sim.checker().violation());
    }

    private static Simulation run(final boolean leaderExecutesNeighbours)
    {
        final CoreConfig config = new CoreConfig().graph(TestGraphs.cycle(5))
            .leaderExecutesNeighbours(leaderExecutesNeighbours).conclude();
        final Simulation sim = new Simulation(config, FaultPlan.calm(), SEED);
        sim.clients(50, 16, 2_000);
        sim.start(false);
        assertTrue(sim.runUntil(() -> sim.checker().chosenThrough() >= 199, 20_000_000), "200 slots chosen");
        assertNull(sim.checker().violation());
        return sim;
    }
}
