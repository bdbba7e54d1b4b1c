package io.mmx.perf.failover;

import io.mmx.perf.idle.ProcFs;
import io.mmx.planner.plan.Plan;
import io.mmx.runtime.local.ClusterLayout;
import io.mmx.runtime.local.LocalCluster;
import io.mmx.runtime.node.MmxNode;
import io.mmx.runtime.node.NodeListener;
import io.mmx.runtime.node.ProcessStatus;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Failover of a cluster of real processes: n processes by {@link LocalCluster} (8 JVMs of 4 at
 * n = 32: child JVMs running {@code mmx node}, shm regions, Aeron UDP), this JVM hosting the last
 * group and submitting a command every {@code 1/rate} seconds through it, open loop. Each round
 * SIGKILLs the JVM of the leader this JVM's processes follow, and times from the kill to the first
 * commit of a command submitted after the killed JVM was gone (only a new leader can commit it);
 * then restarts that JVM and lets the cluster settle (one leader named by every process here, commits
 * flowing) before the next round. The baseline of the same run is the steady commit latency of the
 * commands submitted between kills.
 * <p>
 * {@code --no-kill} runs the same cluster and load for {@code --minutes} with {@code --busy} threads
 * spinning on the machine ({@code stress-ng --cpu B} when installed, else {@code sh} loops) and counts
 * leader changes: the sum over every process of {@code mmx_leader_changes_total} from each JVM's
 * metrics, before and after.
 * <pre>
 *   --kills K            rounds (default 20)
 *   --n N                processes (default 32), --procs-per-jvm P (4), --degree D (4)
 *   --rate R             commands submitted per second (default 500)
 *   --settle-s S         seconds after a restart before the next kill (default 3)
 *   --warmup-s W         seconds of load before the first kill (default 20): the JVMs compile their hot
 *                        code first, as in a cluster that has run for a while; 0 kills a cluster seconds old
 *   --no-kill            count leader changes instead, for --minutes M (default 10) under --busy B (default 2)
 *   --out FILE           also write the report there
 *   --keep DIR           run the cluster in DIR and keep it (the JVMs' logs) instead of a temporary directory
 * </pre>
 * Exit 0 when every round (or the whole no-kill run) completed, 1 when one did not, 2 on bad arguments.
 */
public final class FailoverBenchmark
{
    private static final String LEADER_CHANGES = "mmx_leader_changes_total";
    private static final String VETOED = "mmx_leader_stops_vetoed_total";
    private static final String DECLARED = "mmx_leader_stops_declared_total";
    private static final String TAKEOVERS = "mmx_acceptor_takeovers_total";
    private static final String SUSPICIONS_VETOED = "mmx_neighbour_suspicions_vetoed_total";

    private int kills = 20;
    private int n = 32;
    private int procsPerJvm = 4;
    private int degree = 4;
    private int rate = 500;
    private int settleSeconds = 3;
    private int warmupSeconds = 20;
    private boolean noKill;
    private int minutes = 10;
    private int busy = 2;
    private Path out;
    private Path keep;

    private final AtomicLong committed = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    /** Commands submitted at or after this time count for the round's first commit. */
    private volatile long armedNs = Long.MAX_VALUE;
    private final AtomicLong firstCommitNs = new AtomicLong(Long.MAX_VALUE);
    private final Histogram steady = new ConcurrentHistogram(TimeUnit.SECONDS.toNanos(60), 3);
    private volatile boolean steadyRecording;
    private volatile long lastCommitNs;

    private FailoverBenchmark()
    {
    }

    /** Runs the measurement the class comment describes, with {@code args} as its options. */
    public static void main(final String[] args) throws Exception
    {
        final FailoverBenchmark b = new FailoverBenchmark();
        final String problem = b.parse(args);
        if (problem != null)
        {
            System.err.println("perf failover: " + problem);
            System.exit(2);
        }
        System.exit(b.run() ? 0 : 1);
    }

    private String parse(final String[] args)
    {
        try
        {
            for (int i = 0; i < args.length; i++)
            {
                final String a = args[i];
                if (a.equals("--no-kill"))
                {
                    noKill = true;
                    continue;
                }
                if (i + 1 >= args.length)
                {
                    return "option '" + a + "' needs a value (or is unknown); see the class comment or bin/perf --help";
                }
                final String v = args[++i];
                switch (a)
                {
                    case "--kills" -> kills = Integer.parseInt(v);
                    case "--n" -> n = Integer.parseInt(v);
                    case "--procs-per-jvm" -> procsPerJvm = Integer.parseInt(v);
                    case "--degree" -> degree = Integer.parseInt(v);
                    case "--rate" -> rate = Integer.parseInt(v);
                    case "--settle-s" -> settleSeconds = Integer.parseInt(v);
                    case "--warmup-s" -> warmupSeconds = Integer.parseInt(v);
                    case "--minutes" -> minutes = Integer.parseInt(v);
                    case "--busy" -> busy = Integer.parseInt(v);
                    case "--out" -> out = Path.of(v);
                    case "--keep" -> keep = Path.of(v);
                    default ->
                    {
                        return "unknown option '" + a + "'; use --kills K, --n N, --procs-per-jvm P, --degree D, " +
                            "--rate R, --settle-s S, --warmup-s W, --no-kill, --minutes M, --busy B, --out FILE, --keep DIR";
                    }
                }
            }
        }
        catch (final NumberFormatException ex)
        {
            return "a number was expected: " + ex.getMessage();
        }
        if (kills < 1 || kills > 1000 || n < 5 || n > 256 || procsPerJvm < 1 || procsPerJvm > n ||
            (n + procsPerJvm - 1) / procsPerJvm < 3 || degree < 2 || degree >= n || rate < 1 || rate > 5000 ||
            settleSeconds < 0 || warmupSeconds < 0 || warmupSeconds > 600 || minutes < 1 || minutes > 600 || busy < 0 || busy > 64)
        {
            return "out of range: give --kills 1..1000, --n 5..256 in at least 3 JVMs, --degree 2..n-1, --rate 1..5000, " +
                "--settle-s >= 0, --warmup-s 0..600, --minutes 1..600, --busy 0..64";
        }
        return null;
    }

    private boolean run() throws Exception
    {
        final List<String> report = new ArrayList<>();
        final Path dir = keep != null ? keep : Files.createTempDirectory("mmx-perf-failover-");
        final Plan plan = LocalCluster.plan(n, degree, 1);
        final PrintStream log = System.err;
        boolean ok;
        try (LocalCluster cluster = LocalCluster.create(dir, plan, procsPerJvm, LocalCluster.childJvmOptions(plan.n(),
            procsPerJvm, Runtime.getRuntime().availableProcessors()),
            LocalCluster.Existing.REPLACE))
        {
            final ClusterLayout layout = cluster.layout();
            final int clientJvm = layout.jvms() - 1;
            for (int j = 0; j < clientJvm; j++)
            {
                cluster.start(j);
            }
            try (MmxNode node = MmxNode.launch(cluster.contextFor(clientJvm), p -> (index, origin, buffer, offset, length) -> 0,
                NodeListener.NO_OP))
            {
                for (int j = 0; j < clientJvm; j++)
                {
                    cluster.awaitReady(j, Duration.ofSeconds(120));
                }
                node.submit(new byte[8]).get(120, TimeUnit.SECONDS);
                log.printf("perf failover: n = %d in %d JVMs of %d (this JVM hosts %s and submits), degree %d, %d " +
                    "commands/s%n", n, layout.jvms(), procsPerJvm, layout.idsSpec(clientJvm), degree, rate);
                final Thread load = startLoad(node);
                try
                {
                    ok = noKill ? busyRun(cluster, node, report, log) : killRounds(cluster, node, report, log);
                }
                finally
                {
                    load.interrupt();
                    load.join(10_000);
                }
            }
        }
        finally
        {
            if (keep == null)
            {
                LocalCluster.deleteTree(dir);
            }
        }
        final String text = String.join("\n", report) + "\n";
        System.out.print(text);
        if (out != null)
        {
            Files.writeString(out, text);
        }
        return ok;
    }

    private boolean killRounds(final LocalCluster cluster, final MmxNode node, final List<String> report,
        final PrintStream log) throws Exception
    {
        final ClusterLayout layout = cluster.layout();
        final long[] failoverNs = new long[kills];
        final List<String> rounds = new ArrayList<>();
        int done = 0;
        if (warmupSeconds > 0)
        {
            log.printf("perf failover: %d s of load before the first kill (--warmup-s)%n", warmupSeconds);
            Thread.sleep(TimeUnit.SECONDS.toMillis(warmupSeconds));
        }
        for (int round = 0; round < kills; round++)
        {
            steadyRecording = true;
            final int leader = awaitSettled(node, TimeUnit.SECONDS.toNanos(Math.max(1, settleSeconds)),
                TimeUnit.SECONDS.toNanos(120));
            steadyRecording = false;
            if (leader < 0)
            {
                rounds.add("round " + (round + 1) + ": no settled leader within 120 s; stopped");
                break;
            }
            final int victim = layout.jvmOf(leader);
            if (victim == layout.jvms() - 1)
            {
                rounds.add("round " + (round + 1) + ": the leader " + leader + " is in this JVM, which cannot be killed; stopped");
                break;
            }
            firstCommitNs.set(Long.MAX_VALUE);
            final long killNs = System.nanoTime();
            cluster.kill(victim);
            armedNs = System.nanoTime();
            final long deadline = killNs + TimeUnit.SECONDS.toNanos(30);
            while (firstCommitNs.get() == Long.MAX_VALUE && System.nanoTime() < deadline)
            {
                Thread.sleep(1);
            }
            armedNs = Long.MAX_VALUE;
            final long first = firstCommitNs.get();
            if (first == Long.MAX_VALUE)
            {
                rounds.add("round " + (round + 1) + ": SIGKILL of JVM " + victim + " (leader " + leader +
                    "): nothing committed within 30 s; stopped");
                break;
            }
            failoverNs[done++] = first - killNs;
            rounds.add(String.format(Locale.ROOT, "round %d: SIGKILL JVM %d (leader %d), next commit after %.1f ms, " +
                "then leader %d", round + 1, victim, leader, (first - killNs) / 1e6, firstLeader(node)));
            log.println("perf failover: " + rounds.get(rounds.size() - 1));
            cluster.start(victim);
            cluster.awaitReady(victim, Duration.ofSeconds(120));
        }
        final long[] sorted = Arrays.copyOf(failoverNs, done);
        Arrays.sort(sorted);
        report.add("## Failover: SIGKILL of the leader's JVM to the next commit");
        report.add("");
        report.add(String.format(Locale.ROOT, "%s, %d cores, load average %s; n = %d in %d JVMs of %d, degree %d, " +
            "%d commands/s submitted open loop through process %d's JVM; the first kill after %d s of load.",
            java.time.Instant.now().toString().substring(0, 16).replace('T', ' ') + " UTC",
            Runtime.getRuntime().availableProcessors(), ProcFs.loadAverage(), n,
            layout.jvms(), procsPerJvm, degree, rate, layout.ids(layout.jvms() - 1)[0], warmupSeconds));
        report.add("");
        report.add("| kills | p50 ms | p99 ms | max ms | min ms | steady commit p50 ms (baseline) | failover p50 / baseline |");
        report.add("|---|---|---|---|---|---|---|");
        final double steadyMs = steady.getValueAtPercentile(50) / 1e6;
        if (done > 0)
        {
            report.add(String.format(Locale.ROOT, "| %d | %.1f | %.1f | %.1f | %.1f | %.2f | %.0f |", done,
                percentile(sorted, 50) / 1e6, percentile(sorted, 99) / 1e6, sorted[done - 1] / 1e6, sorted[0] / 1e6,
                steadyMs, percentile(sorted, 50) / 1e6 / Math.max(1e-3, steadyMs)));
        }
        report.add("");
        report.add("p99 of " + done + " kills is the nearest-rank value (with fewer than 100 kills, the largest).");
        report.add("Commits " + committed.get() + ", submissions failed " + failed.get() + " (timed out or refused " +
            "while no leader committed).");
        report.add("");
        report.addAll(rounds);
        return done == kills;
    }

    /** Nearest-rank percentile of sorted values. */
    static long percentile(final long[] sorted, final double p)
    {
        final int rank = (int)Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private boolean busyRun(final LocalCluster cluster, final MmxNode node, final List<String> report,
        final PrintStream log) throws Exception
    {
        final ClusterLayout layout = cluster.layout();
        final int leader = awaitSettled(node, TimeUnit.SECONDS.toNanos(Math.max(1, settleSeconds)),
            TimeUnit.SECONDS.toNanos(120));
        final List<Process> spinners = startBusy(log);
        boolean ok;
        try
        {
            final long[] before = perProcess(cluster, node, LEADER_CHANGES);
            final long[] vetoedBefore = perProcess(cluster, node, VETOED);
            final long[] declaredBefore = perProcess(cluster, node, DECLARED);
            final long[] takeoversBefore = perProcess(cluster, node, TAKEOVERS);
            final long[] suspicionsVetoedBefore = perProcess(cluster, node, SUSPICIONS_VETOED);
            final long commitsBefore = committed.get();
            final long start = System.nanoTime();
            final long end = start + TimeUnit.MINUTES.toNanos(minutes);
            int changesSeenHere = 0;
            int last = agreedLeader(node);
            long longestGapNs = 0;
            long lastCount = committed.get();
            long lastMoveNs = start;
            while (System.nanoTime() < end)
            {
                Thread.sleep(10);
                final int now = firstLeader(node);
                if (now != last)
                {
                    changesSeenHere++;
                    log.printf("perf failover: leader %d -> %d at %.1f s%n", last, now, (System.nanoTime() - start) / 1e9);
                    last = now;
                }
                final long c = committed.get();
                if (c != lastCount)
                {
                    lastCount = c;
                    lastMoveNs = System.nanoTime();
                }
                longestGapNs = Math.max(longestGapNs, System.nanoTime() - lastMoveNs);
            }
            final long[] after = perProcess(cluster, node, LEADER_CHANGES);
            final long[] vetoedAfter = perProcess(cluster, node, VETOED);
            final long[] declaredAfter = perProcess(cluster, node, DECLARED);
            final long[] takeoversAfter = perProcess(cluster, node, TAKEOVERS);
            final long[] suspicionsVetoedAfter = perProcess(cluster, node, SUSPICIONS_VETOED);
            long changes = 0;
            long vetoed = 0;
            long declared = 0;
            long takeovers = 0;
            long suspicionsVetoed = 0;
            boolean complete = true;
            for (int p = 0; p < n; p++)
            {
                complete &= before[p] >= 0 && after[p] >= 0;
                changes += after[p] - before[p];
                vetoed += Math.max(0, vetoedAfter[p]) - Math.max(0, vetoedBefore[p]);
                declared += Math.max(0, declaredAfter[p]) - Math.max(0, declaredBefore[p]);
                takeovers += Math.max(0, takeoversAfter[p]) - Math.max(0, takeoversBefore[p]);
                suspicionsVetoed += Math.max(0, suspicionsVetoedAfter[p]) - Math.max(0, suspicionsVetoedBefore[p]);
            }
            ok = complete && changes == 0 && changesSeenHere == 0;
            report.add("## Leader stability on a busy machine, no kill");
            report.add("");
            report.add(String.format(Locale.ROOT, "%s, %d cores, load average %s at the end; n = %d in %d JVMs of %d, " +
                "degree %d, %d commands/s, %d busy threads (%s), %d minutes.", java.time.Instant.now().toString()
                .substring(0, 16).replace('T', ' ') + " UTC",
                Runtime.getRuntime().availableProcessors(), ProcFs.loadAverage(), n,
                layout.jvms(), procsPerJvm, degree, rate, busy, spinnerName(), minutes));
            report.add("");
            report.add("| leader at start | leader changes (all processes, from metrics) | changes seen here (sampled 10 ms) | " +
                "leader declared stopped (LEADER_DOWN) | leader stops vetoed (word still, JVM ran) | commits | " +
                "longest commit gap ms |");
            report.add("|---|---|---|---|---|---|---|");
            report.add(String.format(Locale.ROOT, "| %d | %s | %d | %d | %d | %d | %.0f |", leader, complete ?
                String.valueOf(changes) : "unknown (a JVM did not answer)", changesSeenHere, declared, vetoed,
                committed.get() - commitsBefore, longestGapNs / 1e6));
            report.add("");
            report.add("Acceptor takeovers " + takeovers + " (a neighbour suspected crashed), neighbour suspicions " +
                "held back because the neighbour's JVM ran " + suspicionsVetoed + ".");
        }
        finally
        {
            for (final Process p : spinners)
            {
                p.destroyForcibly();
                p.waitFor();
            }
        }
        return ok;
    }

    /** Each process's value of a counter, -1 where its JVM did not answer. */
    private static long[] perProcess(final LocalCluster cluster, final MmxNode node, final String counter)
    {
        return LocalCluster.counterByProcess(cluster.metricsOfEveryJvm(node.metricsText()), counter, cluster.layout().n());
    }

    private List<Process> startBusy(final PrintStream log) throws IOException
    {
        final List<Process> spinners = new ArrayList<>();
        if (busy == 0)
        {
            return spinners;
        }
        if (stressNg() != null)
        {
            spinners.add(new ProcessBuilder(stressNg(), "--cpu", String.valueOf(busy), "--timeout", (minutes * 60 + 60) + "s")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
        }
        else
        {
            for (int i = 0; i < busy; i++)
            {
                spinners.add(new ProcessBuilder("sh", "-c", "while :; do :; done").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
            }
        }
        log.println("perf failover: " + busy + " busy threads (" + spinnerName() + ")");
        return spinners;
    }

    private String spinnerName()
    {
        return stressNg() != null ? "stress-ng --cpu " + busy : "sh -c 'while :; do :; done' x " + busy;
    }

    private static String stressNg()
    {
        for (final String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":"))
        {
            final Path p = Path.of(d, "stress-ng");
            if (Files.isExecutable(p))
            {
                return p.toString();
            }
        }
        return null;
    }

    /** Submits a command every 1/rate s, open loop; records commit times. */
    private Thread startLoad(final MmxNode node)
    {
        final Thread t = new Thread(() ->
        {
            final long periodNs = 1_000_000_000L / rate;
            final byte[] command = new byte[8];
            long next = System.nanoTime();
            while (!Thread.currentThread().isInterrupted())
            {
                final long now = System.nanoTime();
                if (now < next)
                {
                    LockSupport.parkNanos(next - now);
                    continue;
                }
                next = Math.max(next + periodNs, now - 10 * periodNs);
                final long submitNs = System.nanoTime();
                final boolean recordSteady = steadyRecording;
                node.submit(command).whenComplete((reply, ex) ->
                {
                    if (ex != null)
                    {
                        failed.incrementAndGet();
                        return;
                    }
                    final long doneNs = System.nanoTime();
                    committed.incrementAndGet();
                    lastCommitNs = doneNs;
                    if (submitNs >= armedNs)
                    {
                        firstCommitNs.accumulateAndGet(doneNs, Math::min);
                    }
                    if (recordSteady)
                    {
                        steady.recordValue(Math.min(doneNs - submitNs, steady.getHighestTrackableValue()));
                    }
                });
            }
        }, "perf-failover-load");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /**
     * Waits {@code settleNs}, then until every process of this JVM names one leader and a command
     * committed within the last 100 ms; returns that leader, or -1 at the deadline.
     */
    private int awaitSettled(final MmxNode node, final long settleNs, final long timeoutNs) throws InterruptedException
    {
        final long start = System.nanoTime();
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(settleNs));
        while (System.nanoTime() - start < timeoutNs)
        {
            final int leader = agreedLeader(node);
            if (leader >= 0 && System.nanoTime() - lastCommitNs < 100_000_000L)
            {
                return leader;
            }
            Thread.sleep(10);
        }
        return -1;
    }

    /** The leader every hosted process names, or -1. */
    private static int agreedLeader(final MmxNode node)
    {
        int leader = -2;
        for (final ProcessStatus s : node.status())
        {
            if (leader == -2)
            {
                leader = s.leader();
            }
            else if (s.leader() != leader)
            {
                return -1;
            }
        }
        return Math.max(-1, leader);
    }

    private static int firstLeader(final MmxNode node)
    {
        return node.status().get(0).leader();
    }
}
