package io.mmx.perf.runtime;

import io.mmx.planner.generate.RandomRegularGenerator;
import io.mmx.planner.graph.Graph;
import io.mmx.runtime.core.CoreConfig;
import io.mmx.runtime.sim.FaultPlan;
import io.mmx.runtime.sim.LiveSets;
import io.mmx.runtime.sim.Simulation;

/**
 * Simulated m&amp;m Paxos throughput: decided slots per second of wall time, and bytes the cores
 * allocate per decided slot ({@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes},
 * counted inside core calls only), for n in {5, 64, 1024, 4096} on random regular graphs.
 *
 * <p>Usage: {@code RuntimeBenchmark [slots-per-size] [crashed-fraction]}; defaults 5000 and 0.
 * Each size runs twice from the same seed: once timed, once with allocation metering (which
 * slows the run), so the metering does not distort the rate.
 */
public final class RuntimeBenchmark
{
    private static final int[] SIZES = {5, 64, 1024, 4096};

    private RuntimeBenchmark()
    {
    }

    /** Runs the measurement the class comment describes, with {@code args} as its options. */
    public static void main(final String[] args)
    {
        final long slots = args.length > 0 ? Long.parseLong(args[0]) : 5_000;
        final double crashed = args.length > 1 ? Double.parseDouble(args[1]) : 0.0;
        System.out.printf("%6s %6s %8s %8s %10s %12s %14s %12s %12s%n", "n", "degree", "crashed", "slots",
            "wall s", "slots/s", "core B/slot", "msgs/slot", "memops/slot");
        for (final int n : SIZES)
        {
            final int degree = Math.min(8, n - 1);
            final Graph graph = randomRegular(n, degree, 42);
            final boolean[] live = LiveSets.random(n, Math.max(1, (int)Math.round(n * (1 - crashed))), 7);
            if (graph.closedNeighbourhoodSize(live) <= n / 2)
            {
                System.out.printf("%6d: live set below the tolerance line, skipped%n", n);
                continue;
            }
            final Result timed = run(graph, live, slots, false);
            final Result metered = run(graph, live, slots, true);
            System.out.printf("%6d %6d %7.0f%% %8d %10.2f %12.0f %14.0f %12.1f %12.1f%n", n, degree, 100 * crashed,
                timed.slots, timed.wallSeconds, timed.slots / timed.wallSeconds,
                metered.coreBytes / (double)metered.slots, timed.messages / (double)timed.slots,
                timed.memoryOps / (double)timed.slots);
        }
    }

    private static final class Result
    {
        long slots;
        double wallSeconds;
        long coreBytes;
        long messages;
        long memoryOps;
    }

    private static Result run(final Graph graph, final boolean[] live, final long slots, final boolean meter)
    {
        final CoreConfig config = new CoreConfig().graph(graph).maxBatch(4).pipelineSlots(128).maxSlotsPerAccept(64)
            .recordMaxEntries(288).catchupBatch(64).learnerCapacity(1024).decidedCapacity(512).conclude();
        final Simulation sim = new Simulation(config, FaultPlan.calm(), 11);
        final boolean[] crashed = new boolean[live.length];
        for (int i = 0; i < live.length; i++)
        {
            crashed[i] = !live[i];
        }
        sim.crashAtStart(crashed);
        sim.clients(40, 256, Long.MAX_VALUE);
        sim.measureCoreAllocations(meter);
        final long t0 = System.nanoTime();
        sim.start(false);
        final boolean done = sim.runUntil(() -> sim.checker().chosenThrough() >= slots - 1, 60_000_000L);
        final Result r = new Result();
        r.wallSeconds = (System.nanoTime() - t0) / 1e9;
        if (!done || sim.checker().violation() != null)
        {
            throw new IllegalStateException("n=" + graph.n() + ": run did not complete: " + sim.checker().violation() +
                " " + sim.lastStatus(Math.max(0, sim.leader())));
        }
        r.slots = sim.checker().chosenThrough() + 1;
        r.coreBytes = sim.stats().coreAllocatedBytes;
        r.messages = sim.stats().messagesSentTotal();
        r.memoryOps = sim.stats().memoryOpsTotal();
        return r;
    }

    /** The planner's random regular graph, as plans use it. */
    static Graph randomRegular(final int n, final int degree, final long seed)
    {
        return new RandomRegularGenerator().generate(n, degree, seed);
    }
}
