package io.mmx.perf.idle;

import io.mmx.planner.plan.Plan;
import io.mmx.runtime.local.LocalCluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * What an idle cluster costs: for each member count, a real cluster of that many processes on this
 * machine ({@link LocalCluster}: child JVMs running {@code mmx node}, shm regions, Aeron UDP on
 * loopback) is started, must elect a leader and commit a probe, settles, and is then measured
 * while nobody submits: CPU from {@code /proc} (utime + stime of every child JVM over the window,
 * split by thread) and resident memory per process (anonymous memory, which holds the Java heap,
 * regions and Aeron buffers, from smaps). The baseline of the same run is as many JVMs of the same
 * heap and GC that do nothing but wait on stdin: the floor an idle cluster cannot go below.
 * After the window a second probe must commit, so a cluster that stopped serving is not reported
 * as idle. Every JVM and the cluster's /dev/shm files are removed when a size is done, also on
 * failure or interruption.
 * <pre>
 *   --members N,N,..     cluster sizes (default 32,256,1024)
 *   --procs-per-jvm P    processes per JVM (default 32 up to N = 256, then 256: fewer JVMs, fewer
 *                        media drivers and JIT warm-ups on the machine's few cores; at most N)
 *   --degree D           plan degree (default 8, at most N - 1)
 *   --seconds S          measured window (default 30)
 *   --settle S           wait after the first probe commits, for start-up JIT work to end (default 20)
 *   --idle NAME          the nodes' idle strategy (default: the node's own default)
 *   --heap SIZE          heap of each child JVM (default 256m, 1g for JVMs of more than 32 processes)
 *   --start-timeout-s S  bound on start-up to the first commit, per size (default 300)
 *   --out FILE           also write the report there
 * </pre>
 * Exit 0 when every size was measured, 1 when one failed to start or to commit (its row says why),
 * 2 on bad arguments.
 */
public final class IdleBenchmark
{
    private static final String USAGE = "usage: idle [--members N,N,..] [--procs-per-jvm P] [--degree D] " +
        "[--seconds S] [--settle S] [--idle NAME] [--heap SIZE] [--start-timeout-s S] [--out FILE]";
    private static final int BASELINE_SECONDS = 10;

    /** Parsed command line. */
    record Options(int[] members, int procsPerJvm, int degree, int seconds, int settleS, String idle, String heap,
        int startTimeoutS, Path out)
    {
        static Options parse(final String[] args)
        {
            int[] members = {32, 256, 1024};
            int procsPerJvm = 0; // by size, see perJvm
            int degree = 8;
            int seconds = 30;
            int settleS = 20;
            String idle = null;
            String heap = null; // by processes per JVM, see heapOf
            int startTimeoutS = 300;
            Path out = null;
            for (int i = 0; i < args.length; i++)
            {
                final String option = args[i];
                if (i + 1 >= args.length)
                {
                    throw new IllegalArgumentException("option " + option + " needs a value");
                }
                final String value = args[++i];
                try
                {
                    switch (option)
                    {
                        case "--members" -> members = Arrays.stream(value.split(",")).map(String::trim)
                            .mapToInt(Integer::parseInt).toArray();
                        case "--procs-per-jvm" -> procsPerJvm = atLeastOne(option, Integer.parseInt(value));
                        case "--degree" -> degree = Integer.parseInt(value);
                        case "--seconds" -> seconds = Integer.parseInt(value);
                        case "--settle" -> settleS = Integer.parseInt(value);
                        case "--idle" -> idle = value;
                        case "--heap" -> heap = value;
                        case "--start-timeout-s" -> startTimeoutS = Integer.parseInt(value);
                        case "--out" -> out = Path.of(value);
                        default -> throw new IllegalArgumentException("unknown option '" + option + "'; " + USAGE);
                    }
                }
                catch (final NumberFormatException ex)
                {
                    throw new IllegalArgumentException(option + " takes a number, got '" + value + "'");
                }
            }
            for (final int n : members)
            {
                if (n < 3 || n > 4096)
                {
                    throw new IllegalArgumentException("--members " + n + " is out of range: give 3..4096");
                }
            }
            if (procsPerJvm < 0 || degree < 2 || seconds < 1 || seconds > 600 || settleS < 0 || startTimeoutS < 10)
            {
                throw new IllegalArgumentException("--procs-per-jvm must be at least 1, --degree at least 2, " +
                    "--seconds 1..600, --settle at least 0 and --start-timeout-s at least 10");
            }
            if (idle != null)
            {
                io.mmx.aeron.transport.TransportContext.idleStrategy(idle); // names the valid choices if unknown
            }
            if (heap != null && !heap.matches("[0-9]+[kmgKMG]?"))
            {
                throw new IllegalArgumentException("--heap " + heap + " is not a JVM size: give e.g. 256m");
            }
            return new Options(members, procsPerJvm, degree, seconds, settleS, idle, heap, startTimeoutS, out);
        }
    }

    private static int atLeastOne(final String option, final int value)
    {
        if (value < 1)
        {
            throw new IllegalArgumentException(option + " must be at least 1, got " + value);
        }
        return value;
    }

    /** One measured size. */
    record Row(int n, int jvms, int procsPerJvm, double startS, double firstCommitS, double cores,
        double baselineCores, Map<String, double[]> coresByThread, List<ProcFs.Memory> memory, String failure)
    {
    }

    private IdleBenchmark()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Options options;
        try
        {
            options = Options.parse(args);
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("perf idle: " + ex.getMessage());
            System.exit(2);
            return;
        }
        if (!Files.isDirectory(Path.of("/proc/self/task")))
        {
            System.err.println("perf idle: needs Linux /proc to read CPU time and memory; run it on Linux");
            System.exit(3);
        }
        final List<Row> rows = new ArrayList<>();
        for (final int n : options.members())
        {
            System.err.printf("perf idle: n = %d%n", n);
            rows.add(measure(n, options));
            System.err.println(report(options, rows.subList(rows.size() - 1, rows.size())));
        }
        final String text = report(options, rows);
        System.out.println(text);
        if (options.out() != null)
        {
            Files.writeString(options.out(), text);
        }
        System.exit(rows.stream().anyMatch(r -> r.failure() != null) ? 1 : 0);
    }

    private static Row measure(final int n, final Options o) throws Exception
    {
        final int procsPerJvm = Math.min(o.procsPerJvm() > 0 ? o.procsPerJvm() : n <= 256 ? 32 : LocalCluster.LARGE_CLUSTER_PROCS_PER_JVM, n);
        final int degree = Math.min(o.degree(), n - 1);
        final String heap = o.heap() != null ? o.heap() : procsPerJvm <= 32 ? "256m" : "1g";
        final List<String> jvmArgs = List.of("-Xmx" + heap, "-XX:+UseSerialGC");
        final Path work = Files.createTempDirectory("mmx-idle-");
        final long t0 = System.nanoTime();
        final long deadline = t0 + TimeUnit.SECONDS.toNanos(o.startTimeoutS());
        final Plan plan = LocalCluster.plan(n, degree, 1);
        final LocalCluster cluster = LocalCluster.create(work.resolve("cluster"), plan, procsPerJvm, jvmArgs,
            LocalCluster.Existing.REPLACE);
        final Thread cleanup = new Thread(() -> close(cluster, work, true));
        Runtime.getRuntime().addShutdownHook(cleanup);
        final int jvms = cluster.layout().jvms();
        Row row = null;
        try
        {
            if (o.idle() != null)
            {
                cluster.nodeOptions(List.of("--idle", o.idle()));
            }
            final long startNs = System.nanoTime();
            for (int j = 0; j < jvms; j++)
            {
                cluster.start(j);
            }
            for (int j = 0; j < jvms; j++)
            {
                cluster.awaitReady(j, Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            }
            final double startS = (System.nanoTime() - startNs) / 1e9;
            if (!probeUntil(cluster, deadline))
            {
                return failed(n, jvms, procsPerJvm, "no probe committed within " + o.startTimeoutS() + " s of start; " +
                    "logs in " + cluster.dir().resolve("logs") + " (kept)");
            }
            final double firstCommitS = (System.nanoTime() - startNs) / 1e9;
            pause(TimeUnit.SECONDS.toNanos(o.settleS()));
            final long[] pids = new long[jvms];
            for (int j = 0; j < jvms; j++)
            {
                pids[j] = cluster.pid(j);
            }
            final Window window = Window.measure(pids, o.seconds());
            final List<ProcFs.Memory> memory = new ArrayList<>();
            for (final long pid : pids)
            {
                memory.add(ProcFs.memory(pid));
            }
            for (int j = 0; j < jvms; j++)
            {
                if (!cluster.alive(j))
                {
                    return failed(n, jvms, procsPerJvm, "JVM " + j + " exited while idle; see " +
                        cluster.dir().resolve("logs"));
                }
            }
            if (!probeUntil(cluster, System.nanoTime() + TimeUnit.SECONDS.toNanos(30)))
            {
                return failed(n, jvms, procsPerJvm, "the cluster committed its first probe but not one after " +
                    o.seconds() + " s idle; logs in " + cluster.dir().resolve("logs"));
            }
            cluster.close();
            final double baseline = idleJvms(jvms, jvmArgs);
            row = new Row(n, jvms, procsPerJvm, startS, firstCommitS, window.cores(), baseline, window.coresByKind(),
                memory, null);
            return row;
        }
        catch (final IOException ex)
        {
            return failed(n, jvms, procsPerJvm, ex.getMessage() + " (logs kept)");
        }
        finally
        {
            close(cluster, work, row == null);
            Runtime.getRuntime().removeShutdownHook(cleanup);
        }
    }

    private static Row failed(final int n, final int jvms, final int procsPerJvm, final String why)
    {
        return new Row(n, jvms, procsPerJvm, 0, 0, 0, 0, Map.of(), List.of(), why);
    }

    /**
     * Kills the children and removes their /dev/shm files; removes the work directory too, unless a
     * failure keeps its logs (their path is in the report).
     */
    private static void close(final LocalCluster cluster, final Path work, final boolean keepLogs)
    {
        cluster.close();
        if (keepLogs)
        {
            LocalCluster.deleteTree(work.resolve("cluster").resolve("state"));
            LocalCluster.deleteTree(work.resolve("cluster").resolve("applied"));
        }
        else
        {
            LocalCluster.deleteTree(work);
        }
    }

    /** Probes JVM 0 (a leader's election and phase 1 come first) until one commits or the deadline passes. */
    private static boolean probeUntil(final LocalCluster cluster, final long deadline)
    {
        while (System.nanoTime() < deadline)
        {
            final long left = Math.max(1, Math.min(TimeUnit.SECONDS.toNanos(12), deadline - System.nanoTime()));
            if (cluster.probe(0, Duration.ofNanos(left)))
            {
                return true;
            }
            pause(TimeUnit.MILLISECONDS.toNanos(200)); // a refused probe answers at once: do not hammer the node
        }
        return false;
    }

    private static void pause(final long ns)
    {
        try
        {
            TimeUnit.NANOSECONDS.sleep(ns);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** Cores used by {@code count} JVMs of the same options that only wait on stdin. */
    private static double idleJvms(final int count, final List<String> jvmArgs) throws IOException
    {
        final List<Process> children = new ArrayList<>();
        try
        {
            for (int i = 0; i < count; i++)
            {
                final List<String> command = new ArrayList<>();
                command.add(ProcessHandle.current().info().command().orElse("java"));
                command.addAll(jvmArgs);
                command.addAll(List.of("-XX:-UsePerfData", "-cp", System.getProperty("java.class.path"),
                    IdleJvm.class.getName()));
                children.add(new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
            }
            pause(TimeUnit.SECONDS.toNanos(3)); // their start-up is not idleness
            return Window.measure(children.stream().mapToLong(Process::pid).toArray(), BASELINE_SECONDS).cores();
        }
        finally
        {
            children.forEach(Process::destroyForcibly);
            for (final Process p : children)
            {
                try
                {
                    p.waitFor(10, TimeUnit.SECONDS);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** CPU time of a set of processes over a window of wall-clock time. */
    record Window(double cores, Map<String, double[]> coresByKind)
    {
        static Window measure(final long[] pids, final int seconds)
        {
            final long[] before = new long[pids.length];
            final List<Map<String, long[]>> threadsBefore = new ArrayList<>();
            for (int i = 0; i < pids.length; i++)
            {
                before[i] = ProcFs.cpuTicks(pids[i]);
                threadsBefore.add(ProcFs.threadTicks(pids[i]));
            }
            final long startNs = System.nanoTime();
            pause(TimeUnit.SECONDS.toNanos(seconds));
            final double wallS = (System.nanoTime() - startNs) / 1e9;
            long ticks = 0;
            // Per thread kind: cores, and wake-ups per second per JVM (voluntary context switches).
            final Map<String, double[]> byKind = new TreeMap<>();
            for (int i = 0; i < pids.length; i++)
            {
                ticks += Math.max(0, ProcFs.cpuTicks(pids[i]) - before[i]);
                final Map<String, long[]> was = threadsBefore.get(i);
                ProcFs.threadTicks(pids[i]).forEach((kind, t) ->
                {
                    final long[] w = was.getOrDefault(kind, new long[2]);
                    final double[] sum = byKind.computeIfAbsent(kind, k -> new double[2]);
                    sum[0] += Math.max(0, t[0] - w[0]) / (double)ProcFs.TICKS_PER_SECOND / wallS;
                    sum[1] += Math.max(0, t[1] - w[1]) / wallS / pids.length;
                });
            }
            return new Window(ticks / (double)ProcFs.TICKS_PER_SECOND / wallS, byKind);
        }
    }

    static String report(final Options o, final List<Row> rows)
    {
        final StringBuilder sb = new StringBuilder();
        sb.append("## Idle cluster: CPU and memory of real processes\n\n");
        sb.append(String.format(Locale.ROOT, "%d cores, load average %s; child JVMs %s -XX:+UseSerialGC, node " +
            "idle strategy %s; CPU is utime+stime from /proc over %d s after the first probe committed and %d s " +
            "settling; baseline: as many JVMs that only wait on stdin, over %d s.%n%n",
            Runtime.getRuntime().availableProcessors(), ProcFs.loadAverage(),
            o.heap() != null ? "-Xmx" + o.heap() : "-Xmx256m (1g for JVMs of more than 32 processes)",
            o.idle() == null ? "default" : o.idle(), o.seconds(), o.settleS(), BASELINE_SECONDS));
        sb.append("| n | JVMs × procs | start s | first commit s | cores total | per process | per JVM | " +
            "idle-JVM baseline | × baseline | RSS per process MiB (anon, regions, Aeron, files) |\n");
        sb.append("|---|---|---|---|---|---|---|---|---|---|\n");
        for (final Row r : rows)
        {
            if (r.failure() != null)
            {
                sb.append(String.format(Locale.ROOT, "| %d | %d × %d | failed: %s ||||||||%n", r.n(), r.jvms(),
                    r.procsPerJvm(), r.failure()));
                continue;
            }
            final double perProcessKib = 1.0 / r.n() / 1024;
            final long anon = r.memory().stream().mapToLong(ProcFs.Memory::anonKib).sum();
            final long regions = r.memory().stream().mapToLong(ProcFs.Memory::regionsKib).sum();
            final long aeron = r.memory().stream().mapToLong(ProcFs.Memory::aeronKib).sum();
            final long files = r.memory().stream().mapToLong(ProcFs.Memory::otherFileKib).sum();
            final long total = r.memory().stream().mapToLong(ProcFs.Memory::totalKib).sum();
            sb.append(String.format(Locale.ROOT,
                "| %d | %d × %d | %.1f | %.1f | %.3f | %.5f | %.4f | %.4f | %s | %.1f (%.1f, %.2f, %.1f, %.1f) |%n",
                r.n(), r.jvms(), r.procsPerJvm(), r.startS(), r.firstCommitS(), r.cores(), r.cores() / r.n(),
                r.cores() / r.jvms(), r.baselineCores(), r.baselineCores() >= 0.001 ?
                String.format(Locale.ROOT, "%.1f", r.cores() / r.baselineCores()) : "(baseline < 0.001)",
                total * perProcessKib, anon * perProcessKib, regions * perProcessKib, aeron * perProcessKib,
                files * perProcessKib));
        }
        sb.append("\nBy thread: cores (all JVMs of a size) and wake-ups per second per JVM (voluntary context switches):\n\n");
        for (final Row r : rows)
        {
            if (r.failure() == null)
            {
                sb.append("- n = ").append(r.n()).append(": ");
                final StringBuilder parts = new StringBuilder();
                r.coresByThread().entrySet().stream().filter(e -> e.getValue()[0] >= 0.0005 || e.getValue()[1] >= 1)
                    .sorted((a, b) -> Double.compare(b.getValue()[0], a.getValue()[0]))
                    .forEach(e -> parts.append(parts.length() == 0 ? "" : ", ")
                        .append(String.format(Locale.ROOT, "%s %.3f (%.0f/s)", e.getKey(), e.getValue()[0],
                        e.getValue()[1])));
                sb.append(parts).append('\n');
            }
        }
        return sb.toString();
    }
}
