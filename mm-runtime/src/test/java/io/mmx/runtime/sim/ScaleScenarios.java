package io.mmx.runtime.sim;

import io.mmx.planner.graph.Graph;
import io.mmx.runtime.core.CoreConfig;

/** Shared set-up of the n = 4096 tolerance scenarios (tests and the perf harness use the same). */
final class ScaleScenarios
{
    private ScaleScenarios()
    {
    }

    static CoreConfig config(final Graph graph)
    {
        return new CoreConfig().graph(graph).maxBatch(4).pipelineSlots(128).maxSlotsPerAccept(64).recordMaxEntries(288)
            .catchupBatch(64).learnerCapacity(1024).decidedCapacity(512).conclude();
    }

    static boolean[] complement(final boolean[] live)
    {
        final boolean[] crashed = new boolean[live.length];
        for (int i = 0; i < live.length; i++)
        {
            crashed[i] = !live[i];
        }
        return crashed;
    }

    /** Outcome of one committed run. */
    static final class Run
    {
        final Simulation sim;
        final boolean done;
        final double wallSeconds;

        Run(final Simulation sim, final boolean done, final double wallSeconds)
        {
            this.sim = sim;
            this.done = done;
            this.wallSeconds = wallSeconds;
        }

        String report(final String name)
        {
            final long slots = sim.checker().chosenThrough() + 1;
            return String.format("%s: %d slots decided in %.2f s wall (%.0f slots/s), %.1f ms simulated, %d events; %s",
                name, slots, wallSeconds, slots / wallSeconds, sim.nowMicros() / 1000.0, sim.stats().events,
                sim.stats().perSlot(slots));
        }
    }

    /** Starts {@code graph} with only {@code live} up and runs until {@code slots} are decided or {@code maxMicros}. */
    static Run commit(final Graph graph, final boolean[] live, final long slots, final long maxMicros, final long seed)
    {
        final Simulation sim = new Simulation(config(graph), FaultPlan.calm(), seed);
        sim.crashAtStart(complement(live));
        sim.clients(40, 256, Long.MAX_VALUE);
        final long t0 = System.nanoTime();
        sim.start(false);
        final boolean done = sim.runUntil(() -> sim.checker().chosenThrough() >= slots - 1, maxMicros);
        return new Run(sim, done, (System.nanoTime() - t0) / 1e9);
    }
}
