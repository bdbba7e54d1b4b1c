package io.mmx.runtime.cli;

import io.mmx.planner.plan.Plan;
import io.mmx.runtime.example.kv.KeyValueClient;
import io.mmx.runtime.example.kv.KeyValueStore;
import io.mmx.runtime.local.ClusterLayout;
import io.mmx.runtime.local.LiveNeighbourhood;
import io.mmx.runtime.local.LocalCluster;
import io.mmx.runtime.node.MmxNode;
import io.mmx.runtime.node.NodeListener;
import io.mmx.runtime.node.ProcessStatus;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code mmx demo}: what mmx is for, in under two minutes. Plans a small expander, starts it as a
 * cluster of JVMs on loopback, writes to the key-value store from the first JVM, and SIGKILLs
 * JVMs one by one, more than half of all processes in the end, while commits continue: live
 * processes run the acceptors of their crashed neighbours from memory that outlived them.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = {
        "Plans n processes, runs them in JVMs on loopback, writes to the replicated key-value store, and " +
        "kills JVMs with SIGKILL in steps past half of all processes while commits continue."})
final class DemoCommand implements Callable<Integer>
{
    @CommandLine.Mixin
    ClusterShapeOptions shape = new ClusterShapeOptions();

    @Option(names = "--kill-every", paramLabel = "SECONDS", defaultValue = "6", description = "seconds between kills, " +
        "and each kill waits for a commit after the one before (default ${DEFAULT-VALUE})")
    int killEverySeconds;

    /** The demo fails when nothing commits for this long after a kill. */
    private static final int STALL_LIMIT_SECONDS = 60;
    /** Upper bound on the whole kill phase. */
    private static final int MAX_SECONDS = 600;

    @Option(names = "--in-flight", paramLabel = "K", defaultValue = "32", description = "client commands in flight (default ${DEFAULT-VALUE})")
    int inFlight;

    @Option(names = "--restart", description = "instead of killing processes for good, SIGKILL a JVM (the " +
        "leader's when it may die) and restart it, round after round, while an outside client (MmxClient, not a " +
        "member; every JVM may die) writes; the restarted " +
        "processes come back with their replicas' state from disk. Ends by checking that every replica holds " +
        "the same state at the same log index and that the clients' history is linearizable")
    boolean restart;

    @Option(names = "--rounds", paramLabel = "R", defaultValue = "6", description = "with --restart, kill-and-restart " +
        "rounds (default ${DEFAULT-VALUE})")
    int rounds;

    @Option(names = "--dir", paramLabel = "DIR", description = "cluster directory (default: a temporary one, removed at the end)")
    Path dir;

    @Option(names = "--force", description = "replace the cluster in --dir if one is there; without it an existing " +
        "cluster directory is refused")
    boolean force;

    /** Commands submitted at or after this time count for the failover clock. */
    private volatile long failoverArmedNs = Long.MAX_VALUE;
    /** Completion time of the first command submitted after the leader's JVM was gone. */
    private final AtomicLong failoverCommitNs = new AtomicLong(Long.MAX_VALUE);

    @Override
    public Integer call() throws Exception
    {
        final PrintStream out = System.out;
        if (rounds < 1 || rounds > 1000)
        {
            throw new IllegalArgumentException("--rounds " + rounds + " is out of range: give 1..1000");
        }
        final Plan plan = shape.plan(out);
        final int procsPerJvm = shape.procsPerJvm(plan.n());
        final boolean temporary = dir == null;
        final Path clusterDir = temporary ? Files.createTempDirectory("mmx-demo-") : dir;
        int result = MmxCommand.UNHEALTHY;
        try (LocalCluster cluster = LocalCluster.create(clusterDir, plan, procsPerJvm,
            List.of("-Xmx" + shape.childHeap(plan.n()), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
            force ? LocalCluster.Existing.REPLACE : LocalCluster.Existing.REFUSE))
        {
            final ClusterLayout layout = cluster.layout();
            if (restart)
            {
                // Every JVM is a child that may be killed; the writes come from outside, through MmxClient.
                out.printf("%nstarting %d JVMs x %d processes on loopback (shm regions, Aeron UDP); this JVM is " +
                    "an outside client%n", layout.jvms(), procsPerJvm);
                for (int j = 0; j < layout.jvms(); j++)
                {
                    cluster.start(j);
                }
                for (int j = 0; j < layout.jvms(); j++)
                {
                    cluster.awaitReady(j, Duration.ofSeconds(90));
                }
                result = runRestarts(cluster, out);
                return result;
            }
            // The client's JVM hosts the highest ids; Ω prefers low ids, so leaders sit in JVMs that get killed.
            final int clientJvm = layout.jvms() - 1;
            out.printf("%nstarting %d JVMs x %d processes on loopback (shm regions, Aeron UDP); this JVM hosts %s " +
                "and the client%n", layout.jvms(), procsPerJvm, layout.idsSpec(clientJvm));
            for (int j = 0; j < clientJvm; j++)
            {
                cluster.start(j);
            }
            try (MmxNode node = MmxNode.launch(cluster.contextFor(clientJvm), p -> new KeyValueStore(),
                NodeListener.NO_OP))
            {
                for (int j = 0; j < clientJvm; j++)
                {
                    cluster.awaitReady(j, Duration.ofSeconds(90));
                }
                result = run(cluster, node, clientJvm, out);
                return result;
            }
        }
        finally
        {
            if (temporary && result == MmxCommand.OK)
            {
                LocalCluster.deleteTree(clusterDir);
            }
            else if (temporary)
            {
                out.println("kept the cluster directory " + clusterDir + " (logs, applied commands, history) to look at");
            }
        }
    }

    private int run(final LocalCluster cluster, final MmxNode node, final int clientJvm, final PrintStream out)
        throws Exception
    {
        final ClusterLayout layout = cluster.layout();
        final int n = layout.n();
        final int procsPerJvm = layout.procsPerJvm();
        final boolean[] alive = new boolean[layout.jvms()];
        java.util.Arrays.fill(alive, true);
        final boolean[] killable = alive.clone();
        killable[clientJvm] = false;
        final AtomicLong commits = new AtomicLong();
        final AtomicLong timeouts = new AtomicLong();
        final Thread client = startClient(node, commits, timeouts);
        final int messagePassingF = (n + 1) / 2 - 1;
        out.printf("%n%5s  %-18s %-9s %-7s %-10s %-22s %s%n", "t(s)", "crashed", "commits/s", "leader", "total",
            "live N[S] / quorum", "event");
        final long start = System.nanoTime();
        long lastCommits = 0;
        long nextKillSecond = 5;
        long tailUntil = Long.MAX_VALUE;
        long commitsAtLastKill = 0;
        long commitsAfterLastKill = 0;
        int second = 0;
        String event = "cluster up, client writing";
        long leaderKillNs = -1;
        final List<Long> failoverMs = new java.util.ArrayList<>();
        long lastCommitSecond = 0;
        boolean waitingShown = false;
        boolean stalled = false;
        while (second < MAX_SECONDS)
        {
            second++;
            final long wake = start + TimeUnit.SECONDS.toNanos(second);
            while (System.nanoTime() < wake)
            {
                Thread.sleep(Math.max(1, TimeUnit.NANOSECONDS.toMillis(wake - System.nanoTime())));
            }
            if (leaderKillNs >= 0 && failoverCommitNs.get() != Long.MAX_VALUE)
            {
                final long ms = TimeUnit.NANOSECONDS.toMillis(failoverCommitNs.get() - leaderKillNs);
                failoverMs.add(ms);
                event = (event.isEmpty() ? "" : event + "; ") + "failover: first commit " + ms +
                    " ms after the leader's SIGKILL";
                leaderKillNs = -1;
                failoverArmedNs = Long.MAX_VALUE;
            }
            final long total = commits.get();
            final int live = LiveNeighbourhood.live(layout, alive);
            final int cover = LiveNeighbourhood.closedNeighbourhood(cluster.plan().graph(), layout, alive);
            out.printf("%5d  %-18s %-9d %-7s %-10d %-22s %s%n", second,
                (n - live) + "/" + n + String.format(" (%.0f%%)", 100.0 * (n - live) / n), total - lastCommits,
                leaderOf(node), total, cover + " / " + LiveNeighbourhood.quorum(n), event);
            event = "";
            if (total > lastCommits)
            {
                lastCommitSecond = second;
            }
            lastCommits = total;
            if (second >= tailUntil && total > commitsAtLastKill)
            {
                commitsAfterLastKill = total - commitsAtLastKill;
                break;
            }
            if (second - lastCommitSecond >= STALL_LIMIT_SECONDS)
            {
                stalled = true;
                commitsAfterLastKill = total - commitsAtLastKill;
                out.printf("nothing committed for %d s: stopping%n", STALL_LIMIT_SECONDS);
                break;
            }
            if (second >= nextKillSecond && total == commitsAtLastKill)
            {
                // Commits continue between kills, or the demo shows nothing: the next kill waits for one.
                if (!waitingShown)
                {
                    event = "the next kill waits for a commit after the last";
                    waitingShown = true;
                }
                continue;
            }
            if (second >= nextKillSecond)
            {
                waitingShown = false;
                final int leader = leaderOf(node) >= 0 ? layout.jvmOf(leaderOf(node)) : -1;
                final int victim = LiveNeighbourhood.nextSafeKill(cluster.plan().graph(), layout, alive, killable, leader);
                if (victim < 0 || n - live > n / 2 + procsPerJvm * 2)
                {
                    tailUntil = second + 8;
                    nextKillSecond = Long.MAX_VALUE;
                    event = victim < 0 ? "no JVM left whose death keeps N[S] a quorum: stop killing" : "";
                    continue;
                }
                final long killNs = System.nanoTime();
                cluster.kill(victim);
                if (victim == leader)
                {
                    // Timed to the first commit of a command submitted once the JVM is gone: only a new
                    // leader can commit that one.
                    failoverCommitNs.set(Long.MAX_VALUE);
                    failoverArmedNs = System.nanoTime();
                    leaderKillNs = killNs;
                }
                alive[victim] = false;
                commitsAtLastKill = commits.get();
                event = "SIGKILL JVM " + victim + " (processes " + layout.idsSpec(victim) + ")" +
                    (victim == leader ? ", the leader's" : "");
                nextKillSecond = second + killEverySeconds;
                if (n - LiveNeighbourhood.live(layout, alive) > n / 2 &&
                    LiveNeighbourhood.nextSafeKill(cluster.plan().graph(), layout, alive, killable, -1) < 0)
                {
                    tailUntil = second + 10;
                }
            }
        }
        client.interrupt();
        client.join(5000);
        final int crashed = n - LiveNeighbourhood.live(layout, alive);
        out.printf("%nsurvived: %d of %d processes crashed (%.1f%%) by SIGKILL; %d commands committed after the " +
            "last kill, %d in all (%d client timeouts while leaders changed)%n", crashed, n, 100.0 * crashed / n,
            commitsAfterLastKill, commits.get(), timeouts.get());
        if (!failoverMs.isEmpty())
        {
            out.printf("failover after each SIGKILL of the leader's JVM, to the first commit of a command submitted " +
                "after it: %s ms%n", failoverMs);
        }
        out.printf("message passing alone survives at most %d crashes of %d (%.1f%%): it would have stopped at the " +
            "%d%s crash%n", messagePassingF, n, 100.0 * messagePassingF / n, messagePassingF + 1,
            ordinal(messagePassingF + 1));
        final boolean ok = !stalled && crashed > messagePassingF && commitsAfterLastKill > 0;
        out.println(ok ? "m&m: live processes ran the acceptors of their crashed neighbours from memory that outlived " +
            "them, so a quorum of acceptors stayed reachable." : "the demo did not show commits past the " +
            "message-passing limit; see the logs in " + cluster.dir().resolve("logs"));
        return ok ? MmxCommand.OK : MmxCommand.UNHEALTHY;
    }

    /**
     * Kill-and-restart rounds under a recorded load; exit 0 only if every replica ends at one index
     * with one digest and the history is linearizable.
     */
    private int runRestarts(final LocalCluster cluster, final PrintStream out) throws Exception
    {
        final ClusterLayout layout = cluster.layout();
        final boolean[] alive = new boolean[layout.jvms()];
        java.util.Arrays.fill(alive, true);
        final boolean[] killable = alive.clone();
        final long seed = System.nanoTime();
        final java.util.List<String> members = new java.util.ArrayList<>();
        for (final Integer port : layout.messagePorts())
        {
            members.add("127.0.0.1:" + port);
        }
        final io.mmx.runtime.client.ClientKey key = io.mmx.runtime.client.ClientKey.fromClusterKey(
            java.nio.file.Files.readAllBytes(cluster.keyFile()));
        final com.fasterxml.jackson.databind.ObjectMapper mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        out.printf("%nclients writing from outside the cluster (MmxClient over Aeron, 4 sessions, PUT/GET/CAS, " +
            "recorded; seed %d)%n", seed);
        out.printf("%5s  %-44s %-10s %s%n", "t(s)", "event", "commits", "leader");
        final long start = System.nanoTime();
        final java.util.function.LongSupplier t = () -> TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        final io.mmx.runtime.example.kv.KeyValueLoad load;
        try (io.mmx.runtime.client.MmxClient client = io.mmx.runtime.client.MmxClient.connect(
            new io.mmx.runtime.client.MmxClient.Context().endpoints(members).key(key).timeoutNs(8_000_000_000L)))
        {
            load = new io.mmx.runtime.example.kv.KeyValueLoad(new KeyValueClient(client), 4, seed);
            try
            {
                for (int round = 1; round <= rounds; round++)
                {
                    Thread.sleep(TimeUnit.SECONDS.toMillis(Math.max(1, killEverySeconds / 2)));
                    final int leaderId = leaderOf(cluster, alive, mapper);
                    final int leader = leaderId >= 0 ? layout.jvmOf(leaderId) : -1;
                    final int victim = LiveNeighbourhood.nextSafeKill(cluster.plan().graph(), layout, alive, killable,
                        leader);
                    if (victim < 0)
                    {
                        out.printf("%5d  %-44s%n", t.getAsLong(), "no JVM may die without losing a quorum: no kill");
                        continue;
                    }
                    cluster.kill(victim);
                    alive[victim] = false;
                    out.printf("%5d  %-44s %-10d %d%n", t.getAsLong(), "SIGKILL JVM " + victim + " (processes " +
                        layout.idsSpec(victim) + ")" + (victim == leader ? ", the leader's" : ""), load.completed(),
                        leaderId);
                    Thread.sleep(TimeUnit.SECONDS.toMillis(Math.max(1, killEverySeconds / 2)));
                    cluster.start(victim);
                    cluster.awaitReady(victim, Duration.ofSeconds(90));
                    alive[victim] = true;
                    out.printf("%5d  %-44s %-10d %d%n", t.getAsLong(), "restarted JVM " + victim + ", serving",
                        load.completed(), leaderOf(cluster, alive, mapper));
                }
                Thread.sleep(TimeUnit.SECONDS.toMillis(2));
            }
            finally
            {
                load.close();
            }
        }
        final io.mmx.runtime.history.History history = load.history().history();
        out.printf("clients stopped: %d calls completed, %d with an unknown outcome (timed out while leaders " +
            "changed)%n", load.completed(), load.unknown());
        // Idle now: every replica reaches the last decided index; compare them there.
        final ReplicaAgreement replicas = new ReplicaAgreement();
        ReplicaAgreement.Result agreement = null;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline)
        {
            replicas.clear();
            for (int j = 0; j < layout.jvms(); j++)
            {
                replicas.add(mapper, cluster.status(j));
            }
            agreement = replicas.result();
            if (agreement.complete(layout.n()) || !agreement.agree())
            {
                break;
            }
            Thread.sleep(200);
        }
        out.println(agreement.line());
        final io.mmx.runtime.history.CheckResult check = io.mmx.runtime.history.LinearizabilityChecker.check(history,
            new io.mmx.runtime.history.KeyValueModel(), 50_000_000);
        out.printf("history: %d operations, %s (%d states explored)%n", history.ops().size(),
            check.verdict() == io.mmx.runtime.history.CheckResult.Verdict.OK ? "linearizable" :
            "NOT linearizable: " + check.verdict() + " at key " + check.key(), check.statesExplored());
        final boolean ok = agreement.complete(layout.n()) && check.verdict() == io.mmx.runtime.history.CheckResult.Verdict.OK;
        if (!ok)
        {
            io.mmx.runtime.history.HistoryFile.save(history, cluster.dir().resolve("history.txt"));
        }
        return ok ? MmxCommand.OK : MmxCommand.UNHEALTHY;
    }

    private Thread startClient(final MmxNode node, final AtomicLong commits, final AtomicLong timeouts)
    {
        final KeyValueClient kv = new KeyValueClient(node);
        final Semaphore window = new Semaphore(inFlight);
        final Thread t = new Thread(() ->
        {
            long i = 0;
            try
            {
                while (!Thread.currentThread().isInterrupted())
                {
                    window.acquire();
                    final long submitNs = System.nanoTime();
                    kv.put("k" + (i % 64), i).whenComplete((r, ex) ->
                    {
                        if (ex == null)
                        {
                            commits.incrementAndGet();
                            if (submitNs >= failoverArmedNs)
                            {
                                failoverCommitNs.accumulateAndGet(System.nanoTime(), Math::min);
                            }
                        }
                        else
                        {
                            timeouts.incrementAndGet();
                        }
                        window.release();
                    });
                    i++;
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }, "mmx-demo-client");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** The leader a live JVM's first process knows, from its status; -1 if none answers with one. */
    private static int leaderOf(final LocalCluster cluster, final boolean[] alive,
        final com.fasterxml.jackson.databind.ObjectMapper mapper) throws java.io.IOException
    {
        for (int j = 0; j < alive.length; j++)
        {
            final String status = alive[j] ? cluster.status(j) : null;
            if (status != null)
            {
                for (final com.fasterxml.jackson.databind.JsonNode p : mapper.readTree(status).get("processes"))
                {
                    if (p.get("leader").asInt() >= 0)
                    {
                        return p.get("leader").asInt();
                    }
                }
            }
        }
        return -1;
    }

    private static int leaderOf(final MmxNode node)
    {
        for (final ProcessStatus s : node.status())
        {
            if (s.leader() >= 0)
            {
                return s.leader();
            }
        }
        return -1;
    }

    private static String ordinal(final int k)
    {
        return k % 10 == 1 && k % 100 != 11 ? "st" : k % 10 == 2 && k % 100 != 12 ? "nd" :
            k % 10 == 3 && k % 100 != 13 ? "rd" : "th";
    }
}
