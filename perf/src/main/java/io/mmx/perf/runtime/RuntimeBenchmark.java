package io.mmx.perf.runtime;

import io.mmx.planner.graph.Graph;
import io.mmx.runtime.sim.SimStats;
import io.mmx.runtime.sim.Simulation;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Simulated m&amp;m Paxos: decided slots per second (wall and process CPU), and per decided slot the
 * messages, memory operations and bytes the cores allocate; per acceptor transition the bytes its
 * record write carries. On random regular graphs of degree 8 (n - 1 below 9), calm network.
 *
 * <p>Usage: {@code RuntimeBenchmark [SLOTS [CRASHED]] [--sizes N,N,...] [--baseline CLASSPATH]
 * [--rounds R]}; defaults 5000 slots, no process crashed, sizes 5,64,1024,4096. Each size runs
 * twice from the same seed: once timed, once with allocation metering (which slows the run).
 * Core bytes per slot are counted after the first quarter of the slots (start-up, such as the
 * acceptor records each process allocates once, is left out; the column "incl. start" keeps it).
 *
 * <p>{@code --baseline CLASSPATH}: also runs {@link RuntimeRate} in child JVMs, alternately
 * against the baseline's classes (CLASSPATH first) and the current ones, R rounds (default 3),
 * and reports the speedup as the ratio of slots per process CPU second, median over the rounds
 * (CPU, not wall time: the machine may be shared), and the same for the simulation thread's
 * own CPU (without the collector and the JIT, which run beside it on an idle machine), and the ratio
 * of wall-clock slots per second from the mean wall times (on an idle machine, the rate a user
 * waits for). {@code bin/perf runtime --baseline REF} builds REF.
 */
public final class RuntimeBenchmark
{
    private static final int[] SIZES = {5, 64, 1024, 4096};

    private RuntimeBenchmark()
    {
    }

    /** Runs the measurement the class comment describes, with {@code args} as its options. */
    public static void main(final String[] args) throws IOException, InterruptedException
    {
        long slots = 5_000;
        double crashed = 0.0;
        int[] sizes = SIZES;
        String baseline = null;
        int rounds = 3;
        int positional = 0;
        for (int i = 0; i < args.length; i++)
        {
            try
            {
            switch (args[i])
            {
                case "--sizes" -> sizes = parseSizes(value(args, ++i, "--sizes"));
                case "--baseline" -> baseline = value(args, ++i, "--baseline");
                case "--rounds" -> rounds = Integer.parseInt(value(args, ++i, "--rounds"));
                default ->
                {
                    if (args[i].startsWith("--") || positional == 2)
                    {
                        usage("unknown argument '" + args[i] + "'");
                    }
                    if (positional++ == 0)
                    {
                        slots = Long.parseLong(args[i]);
                    }
                    else
                    {
                        crashed = Double.parseDouble(args[i]);
                    }
                }
            }
            }
            catch (final NumberFormatException e)
            {
                usage("'" + args[i] + "' is not a number");
            }
        }
        if (slots < 8 || crashed < 0 || crashed >= 1 || rounds < 1)
        {
            usage("SLOTS must be at least 8, CRASHED in [0, 1), --rounds at least 1");
        }
        System.out.printf("%6s %6s %7s %6s %7s %7s %9s %9s %10s %10s %9s %9s %9s %11s%n", "n", "degree", "crashed",
            "slots", "wall s", "cpu s", "slots/s", "slots/cpu", "core B/sl", "incl.start", "msgs/sl", "memops/sl",
            "trans/sl", "B/transit.");
        for (final int n : sizes)
        {
            final Graph graph = RuntimeRate.graph(n);
            final boolean[] live = RuntimeRate.live(n, crashed);
            if (graph.closedNeighbourhoodSize(live) <= n / 2)
            {
                System.out.printf("%6d: live set below the tolerance line, skipped%n", n);
                continue;
            }
            final Result timed = run(graph, live, slots, false);
            final Result metered = run(graph, live, slots, true);
            final SimStats s = timed.stats;
            final double perSlot = 1.0 / timed.slots;
            System.out.printf("%6d %6d %6.0f%% %6d %7.2f %7.2f %9.0f %9.0f %10.0f %10.0f %9.1f %9.1f %9.1f %11.0f%n", n,
                graph.degree(0), 100 * crashed, timed.slots, timed.wallSeconds, timed.cpuSeconds,
                timed.slots / timed.wallSeconds, timed.slots / timed.cpuSeconds, metered.steadyCoreBytesPerSlot,
                metered.stats.coreAllocatedBytes / (double)metered.slots, s.messagesSentTotal() * perSlot,
                s.memoryOpsTotal() * perSlot, s.transitionsPublished * perSlot,
                8.0 * s.recordWordsWritten / Math.max(1, s.transitionsPublished));
            System.out.printf("%6s %s%n", "", s.perSlot(timed.slots));
            System.out.printf("%6s record writes: %d carrying %.0f bytes each on average; %d transitions published%n", "",
                s.recordWrites, 8.0 * s.recordWordsWritten / Math.max(1, s.recordWrites), s.transitionsPublished);
        }
        if (baseline != null)
        {
            compare(baseline, sizes, slots, crashed, rounds);
        }
    }

    private static final class Result
    {
        long slots;
        double wallSeconds;
        double cpuSeconds;
        double steadyCoreBytesPerSlot;
        SimStats stats;
    }

    private static Result run(final Graph graph, final boolean[] live, final long slots, final boolean meter)
    {
        final Simulation sim = RuntimeRate.simulation(graph, live);
        sim.measureCoreAllocations(meter);
        final long cpu0 = RuntimeRate.processCpuNanos();
        final long t0 = System.nanoTime();
        sim.start(false);
        final long warm = slots / 4;
        RuntimeRate.runToSlots(sim, warm);
        final long warmSlots = sim.checker().chosenThrough() + 1;
        final long warmBytes = sim.stats().coreAllocatedBytes;
        RuntimeRate.runToSlots(sim, slots);
        final Result r = new Result();
        r.wallSeconds = (System.nanoTime() - t0) / 1e9;
        r.cpuSeconds = (RuntimeRate.processCpuNanos() - cpu0) / 1e9;
        r.slots = sim.checker().chosenThrough() + 1;
        r.steadyCoreBytesPerSlot = (sim.stats().coreAllocatedBytes - warmBytes) / (double)Math.max(1, r.slots - warmSlots);
        r.stats = sim.stats();
        return r;
    }

    /** Baseline and current build, alternately, each in a fresh JVM; the ratio of CPU per slot. */
    private static void compare(final String baseline, final int[] sizes, final long slots, final double crashed,
        final int rounds) throws IOException, InterruptedException
    {
        final String current = System.getProperty("java.class.path");
        System.out.printf("%nspeedup against the baseline (%s), %d rounds each, fresh JVMs in turn:%n", baseline, rounds);
        System.out.printf("%6s %14s %14s %12s %12s %9s %12s %12s%n", "n", "base slots/cpu", "new slots/cpu", "base wall s",
            "new wall s", "speedup", "sim thread", "slots/s");
        for (final int n : sizes)
        {
            final double[] base = new double[rounds];
            final double[] now = new double[rounds];
            final double[] baseThread = new double[rounds];
            final double[] nowThread = new double[rounds];
            double baseWall = 0;
            double nowWall = 0;
            // Per round: the simulation thread, then each of RuntimeRate.JVM_KINDS, in seconds.
            final double[][] baseThreads = new double[1 + RuntimeRate.JVM_KINDS.length][rounds];
            final double[][] nowThreads = new double[1 + RuntimeRate.JVM_KINDS.length][rounds];
            for (int r = 0; r < rounds; r++)
            {
                final long[] b = child(baseline + File.pathSeparator + current, n, slots, crashed);
                final long[] c = child(current, n, slots, crashed);
                base[r] = b[1] / (b[2] / 1e9);
                now[r] = c[1] / (c[2] / 1e9);
                baseThread[r] = b[1] / (b[6] / 1e9);
                nowThread[r] = c[1] / (c[6] / 1e9);
                baseWall += b[3] / 1e9 / rounds;
                nowWall += c[3] / 1e9 / rounds;
                for (int k = 0; k < baseThreads.length; k++)
                {
                    baseThreads[k][r] = (k == 0 ? b[6] : b.length > 6 + k ? b[6 + k] : -1) / 1e9;
                    nowThreads[k][r] = (k == 0 ? c[6] : c.length > 6 + k ? c[6 + k] : -1) / 1e9;
                }
            }
            final double mb = io.mmx.perf.Median.of(base);
            final double mc = io.mmx.perf.Median.of(now);
            // slots/s: the ratio of wall-clock rates (mean wall times), what a user waiting for a run sees.
            System.out.printf("%6d %14.0f %14.0f %12.2f %12.2f %8.2fx %11.2fx %11.2fx%n", n, mb, mc, baseWall, nowWall,
                mc / mb, io.mmx.perf.Median.of(nowThread) / io.mmx.perf.Median.of(baseThread), baseWall / nowWall);
            // On two cores the JVM's own threads take the cores from the simulation thread: the wall
            // time follows their sum, so say what each took.
            final StringBuilder threads = new StringBuilder();
            for (int k = 0; k < baseThreads.length; k++)
            {
                final double bk = io.mmx.perf.Median.of(baseThreads[k]);
                final double ck = io.mmx.perf.Median.of(nowThreads[k]);
                threads.append(String.format(java.util.Locale.ROOT, "%s%s %s -> %s", k == 0 ? "" : ", ",
                    k == 0 ? "simulation thread" : RuntimeRate.JVM_KINDS[k - 1], bk < 0 ? "n/a" : String.format(
                    java.util.Locale.ROOT, "%.2f", bk), ck < 0 ? "n/a" : String.format(java.util.Locale.ROOT, "%.2f", ck)));
            }
            System.out.printf("%6s CPU s by thread (median, baseline -> now): %s%n", "", threads);
        }
    }

    private static long[] child(final String classpath, final int n, final long slots, final double crashed)
        throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of(
            new File(System.getProperty("java.home"), "bin/java").getPath(), "-Xmx2g", "-cp", classpath,
            RuntimeRate.class.getName(), Integer.toString(n), Long.toString(slots), Double.toString(crashed)));
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String result = null;
        final StringBuilder output = new StringBuilder();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)))
        {
            for (String line = in.readLine(); line != null; line = in.readLine())
            {
                output.append(line).append('\n');
                if (line.startsWith("rate "))
                {
                    result = line;
                }
            }
        }
        if (p.waitFor() != 0 || result == null)
        {
            throw new IllegalStateException("the child run of n=" + n + " failed:\n" + output);
        }
        final String[] f = result.split(" ");
        final long[] v = new long[f.length - 1];
        for (int i = 1; i < f.length; i++)
        {
            v[i - 1] = Long.parseLong(f[i]);
        }
        return v;
    }

    private static int[] parseSizes(final String list)
    {
        final String[] parts = list.split(",");
        final int[] sizes = new int[parts.length];
        for (int i = 0; i < parts.length; i++)
        {
            sizes[i] = Integer.parseInt(parts[i].trim());
            if (sizes[i] < 2)
            {
                usage("--sizes: each size must be at least 2, got " + sizes[i]);
            }
        }
        return sizes;
    }

    private static String value(final String[] args, final int i, final String option)
    {
        if (i >= args.length)
        {
            usage(option + " needs a value");
        }
        return args[i];
    }

    private static void usage(final String problem)
    {
        System.err.println("perf runtime: " + problem +
            "; usage: bin/perf runtime [SLOTS [CRASHED]] [--sizes N,N,...] [--baseline REF] [--rounds R]");
        System.exit(2);
    }
}
