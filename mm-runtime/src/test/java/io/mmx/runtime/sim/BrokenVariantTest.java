package io.mmx.runtime.sim;

import io.mmx.planner.graph.Graph;
import io.mmx.runtime.core.BrokenVariants;
import io.mmx.runtime.core.CoreConfig;
import org.junit.jupiter.api.Test;

import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The checkers must catch deliberately broken protocols: a quorum of n/2, and an acceptor
 * transition published by a plain write instead of a CAS. Each test sweeps seeds until a
 * safety violation appears, and fails if none does.
 */
class BrokenVariantTest
{
    static final int MAX_SEEDS = 400;

    /** Runs a fault-heavy cluster; returns the first safety violation or null. */
    static String run(final long seed, final Graph graph, final UnaryOperator<CoreConfig> variant,
        final UnaryOperator<FaultPlan> tune)
    {
        final CoreConfig config = variant.apply(new CoreConfig().graph(graph)).conclude();
        final FaultPlan faults = tune.apply(FaultPlan.fromSeed(seed));
        final Simulation sim = new Simulation(config, faults, seed);
        sim.clients(30, 8, Long.MAX_VALUE);
        sim.start(true);
        sim.runFor(60_000);
        return sim.checker().violation();
    }

    static long firstViolatingSeed(final Graph graph, final UnaryOperator<CoreConfig> variant,
        final UnaryOperator<FaultPlan> tune, final StringBuilder found)
    {
        for (long seed = 1; seed <= MAX_SEEDS; seed++)
        {
            final String v = run(seed, graph, variant, tune);
            if (v != null)
            {
                found.append(v);
                return seed;
            }
        }
        return -1;
    }

    @Test
    void halfQuorumIsCaught()
    {
        final StringBuilder found = new StringBuilder();
        final long seed = firstViolatingSeed(Graph.empty(4), BrokenVariants::halfQuorum, f ->
        {
            f.partitionWeight = 2.0;
            f.leaderChurnWeight = 2.0;
            return f;
        }, found);
        System.out.println("half quorum: seed " + seed + " -> " + found);
        assertTrue(seed > 0, "no seed in 1.." + MAX_SEEDS + " exposed the n/2 quorum");
        assertTrue(found.toString().startsWith("agreement"), found.toString());
        // The correct protocol survives the very same run.
        assertNull(run(seed, Graph.empty(4), c -> c, f ->
        {
            f.partitionWeight = 2.0;
            f.leaderChurnWeight = 2.0;
            return f;
        }));
    }

    @Test
    void twoWriteTransitionIsCaught()
    {
        final UnaryOperator<FaultPlan> tune = f ->
        {
            // Many concurrent executors per acceptor and competing leaders, slow memory.
            f.falseSuspicionWeight = 4.0;
            f.leaderChurnWeight = 2.0;
            f.crashWeight = 0.2;
            f.memoryLatencyMaxMicros = f.memoryLatencyMinMicros + 200;
            f.faultDurationMaxMicros = 20_000;
            return f;
        };
        final StringBuilder found = new StringBuilder();
        final long seed = firstViolatingSeed(TestGraphs.complete(3), BrokenVariants::twoWriteTransition, tune, found);
        System.out.println("two-write transition: seed " + seed + " -> " + found);
        assertTrue(seed > 0, "no seed in 1.." + MAX_SEEDS + " exposed the two-write transition");
        assertNull(run(seed, TestGraphs.complete(3), c -> c, tune), "the CAS transition survives the same run");
    }
}
