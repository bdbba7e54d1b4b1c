package io.mmx.runtime.sim;

import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** n = 4096, degree 8: the tolerance line of DESIGN section 1, on both sides, and the message-passing contrast. */
class ScaleTest
{
    static final int N = 4096;
    static final int DEGREE = 8;
    static final long GRAPH_SEED = 4096_8L;
    static final long SLOTS = Long.getLong("mmx.sim.scaleSlots", 10_000L);

    @Test
    void seventyPercentCrashedAtRandomKeepsCommitting()
    {
        final Graph g = TestGraphs.randomRegular(N, DEGREE, GRAPH_SEED);
        final boolean[] live = LiveSets.random(N, (int)Math.round(N * 0.3), 70);
        final int covered = g.closedNeighbourhoodSize(live);
        System.out.println("70% crashed: |S| = " + LiveSets.size(live) + ", |N[S]| = " + covered + " (need > " + N / 2 + ")");
        assertTrue(covered > N / 2);
        final ScaleScenarios.Run run = ScaleScenarios.commit(g, live, SLOTS, 10_000_000, 70);
        System.out.println(run.report("n=4096 d=8 70% crashed"));
        assertNull(run.sim.checker().violation());
        assertTrue(run.done, "stuck at " + run.sim.checker().chosenThrough() + " " + run.sim.lastStatus(run.sim.leader()));
    }
}
