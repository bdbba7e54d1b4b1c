package io.mmx.perf.runtime;

import io.mmx.planner.generate.RandomRegularGenerator;
import io.mmx.planner.graph.Graph;
import io.mmx.runtime.core.CoreConfig;
import io.mmx.runtime.sim.FaultPlan;
import io.mmx.runtime.sim.LiveSets;
import io.mmx.runtime.sim.Simulation;

import java.lang.management.ManagementFactory;

/**
 * One timed simulator run in a JVM of its own, for {@link RuntimeBenchmark}'s comparison with a
 * baseline build: it uses only simulator API that earlier builds have too, so the same class runs
 * against the baseline's {@code mm-runtime} classes and against the current ones.
 *
 * <p>Usage: {@code RuntimeRate N SLOTS CRASHED}; prints one line
 * {@code rate N SLOTS CPU_NS WALL_NS MESSAGES MEMORY_OPS THREAD_CPU_NS JIT_NS REFINE_NS COLLECTOR_NS},
 * where CPU_NS is the whole process's CPU (garbage collection and the JIT included) and
 * THREAD_CPU_NS the simulation thread's own, from the start of the run to its end; the last three
 * are the CPU of the JVM's compiler threads, G1's refinement threads and its collector threads
 * over the run (from /proc; -1 where it cannot be read). On two cores those threads take the
 * cores from the simulation thread, so the wall time follows their sum.
 */
public final class RuntimeRate
{
    /** The cluster every runtime measurement simulates: batches of 4, 128 slots in flight, 64 per Accept. */
    static CoreConfig config(final Graph graph)
    {
        return new CoreConfig().graph(graph).maxBatch(4).pipelineSlots(128).maxSlotsPerAccept(64)
            .recordMaxEntries(288).catchupBatch(64).learnerCapacity(1024).decidedCapacity(512).conclude();
    }

    /** The planner's random regular graph of degree min(8, n - 1), seed 42. */
    static Graph graph(final int n)
    {
        return new RandomRegularGenerator().generate(n, Math.min(8, n - 1), 42);
    }

    /** The processes up: all but a {@code crashed} fraction, drawn from seed 7. */
    static boolean[] live(final int n, final double crashed)
    {
        return LiveSets.random(n, Math.max(1, (int)Math.round(n * (1 - crashed))), 7);
    }

    /** A calm simulation of {@code graph} with the processes not in {@code live} crashed and clients started. */
    static Simulation simulation(final Graph graph, final boolean[] live)
    {
        final Simulation sim = new Simulation(config(graph), FaultPlan.calm(), 11);
        final boolean[] crashed = new boolean[live.length];
        for (int i = 0; i < live.length; i++)
        {
            crashed[i] = !live[i];
        }
        sim.crashAtStart(crashed);
        sim.clients(40, 256, Long.MAX_VALUE);
        return sim;
    }

    /** Runs {@code sim} until {@code slots} slots are chosen; fails if it does not get there or breaks safety. */
    static void runToSlots(final Simulation sim, final long slots)
    {
        final boolean done = sim.runUntil(() -> sim.checker().chosenThrough() >= slots - 1, 60_000_000L);
        if (!done || sim.checker().violation() != null)
        {
            throw new IllegalStateException("n=" + sim.n() + ": run did not complete: " + sim.checker().violation() +
                " " + sim.lastStatus(Math.max(0, sim.leader())));
        }
    }

    /** Process CPU time in nanoseconds (every thread of this JVM). */
    static long processCpuNanos()
    {
        return ((com.sun.management.OperatingSystemMXBean)ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** The JVM thread kinds the rate line reports, in its order. */
    static final String[] JVM_KINDS = {"JIT", "refinement", "collector"};

    /** CPU nanoseconds of this JVM's threads of each of {@link #JVM_KINDS}; -1 each without /proc. */
    static long[] jvmThreadNanos()
    {
        final long[] nanos = new long[JVM_KINDS.length];
        final java.util.Map<String, long[]> ticks = io.mmx.perf.idle.ProcFs.threadTicks(ProcessHandle.current().pid());
        for (int k = 0; k < nanos.length; k++)
        {
            final long[] t = ticks.get(JVM_KINDS[k]);
            nanos[k] = ticks.isEmpty() ? -1 : t == null ? 0 : t[0] * 1_000_000_000L / io.mmx.perf.idle.ProcFs.TICKS_PER_SECOND;
        }
        return nanos;
    }

    private RuntimeRate()
    {
    }

    /** Runs the measurement the class comment describes. */
    public static void main(final String[] args)
    {
        if (args.length != 3)
        {
            System.err.println("usage: RuntimeRate N SLOTS CRASHED");
            System.exit(2);
        }
        final int n = Integer.parseInt(args[0]);
        final long slots = Long.parseLong(args[1]);
        final double crashed = Double.parseDouble(args[2]);
        final Simulation sim = simulation(graph(n), live(n, crashed));
        final long[] jvm0 = jvmThreadNanos();
        final long cpu0 = processCpuNanos();
        final long thread0 = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        final long t0 = System.nanoTime();
        sim.start(false);
        runToSlots(sim, slots);
        final long wall = System.nanoTime() - t0;
        final long cpu = processCpuNanos() - cpu0;
        final long thread = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - thread0;
        final long[] jvm = jvmThreadNanos();
        final StringBuilder kinds = new StringBuilder();
        for (int k = 0; k < jvm.length; k++)
        {
            kinds.append(' ').append(jvm[k] < 0 || jvm0[k] < 0 ? -1 : jvm[k] - jvm0[k]);
        }
        System.out.println("rate " + n + " " + (sim.checker().chosenThrough() + 1) + " " + cpu + " " + wall + " " +
            sim.stats().messagesSentTotal() + " " + sim.stats().memoryOpsTotal() + " " + thread + kinds);
    }
}
