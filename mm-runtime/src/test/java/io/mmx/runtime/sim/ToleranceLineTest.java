package io.mmx.runtime.sim;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.tolerance.AttackResult;
import io.mmx.planner.tolerance.AttackSearch;
import io.mmx.runtime.core.Status;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * n = 4096, degree 8, live sets grown from one region of the graph: just above the line
 * (|N[S]| > n/2) the log commits with 80% crashed; just below it nothing is decided, the leader
 * says how many acceptors it reaches and needs, and commits resume once enough processes
 * restart; the same holds for the complement of the planner's attack witness. An empty graph
 * (message passing) stops at the minority limit.
 */
class ToleranceLineTest
{
    static final int N = 4096;
    static final long SLOTS_ABOVE = Long.getLong("mmx.sim.scaleSlots", 10_000L);

    static Graph graph()
    {
        return TestGraphs.randomRegular(N, 8, ScaleTest.GRAPH_SEED);
    }

    /** Starts {@code g} with only {@code live} up, clients on, and runs 4 ms of simulated time. */
    static Simulation startOnly(final Graph g, final boolean[] live, final long seed)
    {
        final Simulation sim = new Simulation(ScaleScenarios.config(g), FaultPlan.calm(), seed);
        sim.crashAtStart(ScaleScenarios.complement(live));
        sim.clients(100, 64, Long.MAX_VALUE);
        sim.start(false);
        sim.runFor(4_000);
        return sim;
    }

    @Test
    void eightyPercentCrashedJustAboveTheLineStillCommits()
    {
        final Graph g = graph();
        final boolean[] live = LiveSets.grow(g, 0, N / 2 + 48);
        final int covered = g.closedNeighbourhoodSize(live);
        final int size = LiveSets.size(live);
        final double crashed = 1.0 - size / (double)N;
        System.out.printf("grown live set: |S| = %d (%.1f%% crashed), |N[S]| = %d, line n/2 = %d%n", size,
            100 * crashed, covered, N / 2);
        assertTrue(covered > N / 2, "the grown set must be above the line");
        assertTrue(crashed >= 0.8, "at least 80% crashed");
        final ScaleScenarios.Run run = ScaleScenarios.commit(g, live, SLOTS_ABOVE, 20_000_000, 80);
        System.out.println(run.report("n=4096 d=8 " + String.format("%.1f", 100 * crashed) + "% crashed, |N[S]| = " + covered));
        assertNull(run.sim.checker().violation());
        assertTrue(run.done, "stuck at " + run.sim.checker().chosenThrough() + " " + run.sim.lastStatus(run.sim.leader()));
    }

    @Test
    void justBelowTheLineBlocksSafelyAndResumesAfterRestarts()
    {
        final Graph g = graph();
        final boolean[] live = LiveSets.grow(g, 0, N / 2);
        System.out.println("below the line (grown region): |S| = " + LiveSets.size(live) + ", |N[S]| = " +
            g.closedNeighbourhoodSize(live));
        blocksThenResumes(g, live, 81);
    }

    @Test
    void complementOfThePlannersAttackWitnessBlocksSafelyAndResumes()
    {
        final Graph g = graph();
        final AttackResult attack = new AttackSearch(ScaleTest.GRAPH_SEED, 2_000).search(g);
        final boolean[] live = new boolean[N];
        for (final int p : attack.witness())
        {
            live[p] = true;
        }
        System.out.println("attack witness: |S| = " + attack.witness().length + ", |N[S]| = " +
            attack.closedNeighbourhoodSize() + " (attack_f = " + attack.attackF() + ")");
        assertTrue(attack.witness().length >= 600, "the attack finds a large blocked live set at n = 4096");
        blocksThenResumes(g, live, 83);
    }

    /**
     * With only {@code live} up (|N[S]| <= n/2): nothing is decided, the leader reports the
     * acceptors it reaches and needs; restarting crashed processes until the line is crossed
     * brings commits back, with no safety violation at any point.
     */
    private static void blocksThenResumes(final Graph g, final boolean[] live, final long seed)
    {
        final int covered = g.closedNeighbourhoodSize(live);
        assertTrue(covered <= N / 2);
        final Simulation sim = startOnly(g, live, seed);
        final Status blocked = sim.lastStatus(sim.leader());
        System.out.println("blocked: " + blocked);
        assertNull(sim.checker().violation());
        assertEquals(0, sim.checker().chosenCount(), "nothing may be decided below the line");
        assertTrue(blocked.blocked());
        assertEquals(N / 2 + 1, blocked.neededAcceptors);
        assertTrue(blocked.reachableAcceptors <= covered, "reaches at most the live closed neighbourhood");
        assertTrue(blocked.reachableAcceptors >= covered - 8, "reaches (nearly) all of N[S]: " + blocked);

        // Restart crashed processes, in id order, until the live set crosses the line.
        int restarted = 0;
        for (int p = 0; p < N && sim.liveAcceptors() <= N / 2 + 16; p++)
        {
            if (!sim.isUp(p))
            {
                sim.restart(p);
                restarted++;
            }
        }
        System.out.println("restarted " + restarted + " processes: live acceptors now " + sim.liveAcceptors());
        final boolean resumed = sim.runUntil(() -> sim.checker().chosenThrough() >= 199, 20_000);
        System.out.println("after restarts: chosen through " + sim.checker().chosenThrough() + " " +
            sim.lastStatus(sim.leader()));
        assertNull(sim.checker().violation());
        assertTrue(resumed, "commits must resume above the line");
    }

    @Test
    void emptyGraphStopsAtTheMinorityLimit()
    {
        final Graph g = Graph.empty(N);
        final boolean[] live = LiveSets.random(N, (int)Math.round(N * 0.3), 70);
        final Simulation sim = startOnly(g, live, 82);
        final Status s = sim.lastStatus(sim.leader());
        System.out.println("message passing only, 70% crashed: " + s);
        assertNull(sim.checker().violation());
        assertEquals(0, sim.checker().chosenCount());
        assertTrue(s.blocked());
        assertEquals(LiveSets.size(live), s.reachableAcceptors, "without shared memory only live processes accept");
        assertEquals(N / 2 + 1, s.neededAcceptors);
    }
}
