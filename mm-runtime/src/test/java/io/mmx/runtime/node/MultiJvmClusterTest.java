package io.mmx.runtime.node;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.Plan;
import io.mmx.planner.tolerance.AttackResult;
import io.mmx.planner.tolerance.AttackSearch;
import io.mmx.runtime.example.kv.AppliedLog;
import io.mmx.runtime.example.kv.KeyValueLoad;
import io.mmx.runtime.example.kv.KeyValueCommand;
import io.mmx.runtime.example.kv.KeyValueClient;
import io.mmx.runtime.example.kv.KeyValueStore;
import io.mmx.runtime.history.CheckResult;
import io.mmx.runtime.history.KeyValueModel;
import io.mmx.runtime.history.LinearizabilityChecker;
import io.mmx.runtime.local.ClusterLayout;
import io.mmx.runtime.local.LiveNeighbourhood;
import io.mmx.runtime.local.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.Map;
import java.util.SortedMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Real JVMs on loopback: n = 32 in 8 JVMs of 4 processes, a key-value client in this JVM (which
 * hosts one group of processes), SIGKILL of whole JVMs. Checks the two claims: commits
 * continue past 62.5% crashed where the plan tolerates it, and with exactly the complement of an
 * attack witness alive the cluster blocks, says so, decides nothing wrong, and recovers on restart.
 */
class MultiJvmClusterTest
{
    private static final int N = 32;
    private static final int DEGREE = 4;
    private static final int PROCS_PER_JVM = 4;
    private static final long SEED = Long.getLong("mmx.node.seed", 1);
    private static final List<String> CHILD_JVM = List.of("-Xmx160m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    @TempDir
    Path dir;

    @Test
    void fiveJvmsKilledCommitsContinueLogsArePrefixesHistoryIsLinearizable() throws Exception
    {
        System.out.println("MultiJvmClusterTest seed " + SEED + " (replay: -Dmmx.node.seed=" + SEED + ")");
        final Plan plan = NodeTestSupport.plan(N, DEGREE, SEED);
        try (LocalCluster cluster = LocalCluster.create(dir, plan, PROCS_PER_JVM, CHILD_JVM))
        {
            final ClusterLayout layout = cluster.layout();
            final int clientJvm = layout.jvms() - 1;
            final List<AppliedLog> logs = new ArrayList<>();
            for (int j = 0; j < clientJvm; j++)
            {
                cluster.start(j);
            }
            try (MmxNode node = MmxNode.launch(cluster.contextFor(clientJvm), p -> store(cluster, p, logs),
                NodeListener.NO_OP))
            {
                for (int j = 0; j < clientJvm; j++)
                {
                    cluster.awaitReady(j, Duration.ofSeconds(120));
                }
                final boolean[] alive = new boolean[layout.jvms()];
                Arrays.fill(alive, true);
                final boolean[] killable = alive.clone();
                killable[clientJvm] = false;
                final io.mmx.runtime.history.HistoryRecorder recorder;
                try (KeyValueLoad load = new KeyValueLoad(node, 4, SEED))
                {
                    recorder = load.history();
                    awaitCompleted(load, 200, 60_000, "the first 200 operations");
                    for (int kill = 0; kill < 5; kill++)
                    {
                        final int leader = leaderJvm(node, layout);
                        final int victim = LiveNeighbourhood.nextSafeKill(plan.graph(), layout, alive, killable, leader);
                        assertTrue(victim >= 0, "the plan (seed " + SEED + ") tolerates no further JVM kill after " +
                            kill + "; pick another seed");
                        cluster.kill(victim);
                        alive[victim] = false;
                        System.out.println("SIGKILL JVM " + victim + " (" + layout.idsSpec(victim) + "), live N[S] = " +
                            LiveNeighbourhood.closedNeighbourhood(plan.graph(), layout, alive));
                        awaitCompleted(load, load.completed() + 100, 60_000, "100 operations after kill " + (kill + 1));
                    }
                    assertEquals(20, N - LiveNeighbourhood.live(layout, alive), "processes killed");
                    final long before = load.completed();
                    awaitCompleted(load, before + 300, 60_000, "300 operations with 20 of 32 processes dead");
                }
                checkHistory(recorder.history(), cluster);
            }
            finally
            {
                logs.forEach(AppliedLog::close);
            }
            assertLogsArePrefixesOfOne(cluster, N, 500);
        }
    }

    @Test
    void complementOfAttackWitnessBlocksDecidesNothingWrongAndRecoversOnRestart() throws Exception
    {
        System.out.println("MultiJvmClusterTest seed " + SEED + " (replay: -Dmmx.node.seed=" + SEED + ")");
        // Relabel the plan so an attack witness S (|N[S]| <= n/2) takes the lowest ids: then whole
        // JVMs can be S exactly, and SIGKILL of every other JVM leaves the complement dead.
        final Plan original = NodeTestSupport.plan(N, DEGREE, SEED);
        final AttackResult attack = new AttackSearch(SEED, 2000).search(original.graph());
        final int alivePrefix = attack.witness().length / PROCS_PER_JVM * PROCS_PER_JVM;
        assertTrue(alivePrefix >= PROCS_PER_JVM, "attack witness of " + attack.witness().length +
            " processes fills no whole JVM; pick another seed");
        final Plan plan = NodeTestSupport.relabel(original, attack.witness());
        try (LocalCluster cluster = LocalCluster.create(dir, plan, PROCS_PER_JVM, CHILD_JVM))
        {
            final ClusterLayout layout = cluster.layout();
            final List<AppliedLog> logs = new ArrayList<>();
            for (int j = 1; j < layout.jvms(); j++)
            {
                cluster.start(j);
            }
            try (MmxNode node = MmxNode.launch(cluster.contextFor(0), p -> store(cluster, p, logs), NodeListener.NO_OP))
            {
                for (int j = 1; j < layout.jvms(); j++)
                {
                    cluster.awaitReady(j, Duration.ofSeconds(120));
                }
                final boolean[] alive = new boolean[layout.jvms()];
                Arrays.fill(alive, true);
                final io.mmx.runtime.history.HistoryRecorder recorder;
                try (KeyValueLoad load = new KeyValueLoad(node, 4, SEED))
                {
                    recorder = load.history();
                    awaitCompleted(load, 200, 60_000, "the first 200 operations");
                    final int firstDead = alivePrefix / PROCS_PER_JVM;
                    for (int j = firstDead; j < layout.jvms(); j++)
                    {
                        cluster.kill(j);
                        alive[j] = false;
                    }
                    final int cover = LiveNeighbourhood.closedNeighbourhood(plan.graph(), layout, alive);
                    System.out.println("alive: processes 0-" + (alivePrefix - 1) + " (inside the witness), |N[S]| = " +
                        cover + ", a quorum needs " + LiveNeighbourhood.quorum(N));
                    assertTrue(cover < LiveNeighbourhood.quorum(N));
                    NodeTestSupport.await(() -> node.status().stream().anyMatch(ProcessStatus::blocked) ||
                        childReportsBlocked(cluster, firstDead), 60_000, "a process to report BLOCKED");
                    // Blocked means nothing new is decided. Commands decided before the last kill may still
                    // be learned (how long that takes depends on the machine), so the test asks of every
                    // operation invoked after the BLOCKED report that it does not complete before the restarts,
                    // however fast or slow the machine: it waits until such operations exist, and a while more.
                    final long blockedNs = System.nanoTime();
                    NodeTestSupport.await(() -> recorder.history().ops().stream().filter(o -> o.invokeNs() > blockedNs)
                        .count() >= 2, 60_000, "two operations invoked while blocked");
                    final long until = System.nanoTime() + 3_000_000_000L;
                    NodeTestSupport.await(() -> System.nanoTime() > until, 10_000, "3 s of blocked operation");
                    final long restartNs = System.nanoTime();
                    final long stalled = load.completed();
                    for (int j = firstDead; j < layout.jvms(); j++)
                    {
                        cluster.start(j);
                    }
                    for (final io.mmx.runtime.history.Operation o : recorder.history().ops())
                    {
                        assertTrue(o.invokeNs() <= blockedNs || o.unknown() || o.completeNs() > restartNs,
                            "an operation invoked while the cluster was blocked completed before the restarts: " + o);
                    }
                    awaitCompleted(load, stalled + 200, 120_000, "200 operations after the restarts");
                    // The reachable-acceptor count follows replies over a window, so it may trail the first commits.
                    NodeTestSupport.await(() -> node.status().stream().noneMatch(ProcessStatus::blocked), 30_000,
                        "the BLOCKED report to clear after the restarts");
                }
                checkHistory(recorder.history(), cluster);
                // The states themselves: every replica reporting a digest holds one state at one index, and at
                // least as many report as were restarted (a replica of this JVM keeps no --state-dir, so one
                // that fell behind every decided log reports no digest).
                final int restarted = N - alivePrefix / PROCS_PER_JVM * PROCS_PER_JVM;
                System.out.println(awaitAgreement(node, cluster, 1, layout.jvms(), r -> r.agree() &&
                    r.there() == r.total() && r.total() + r.uncomparable() == N && r.total() >= restarted,
                    "every replica reporting a digest to hold one state at one index after the restarts"));
            }
            finally
            {
                logs.forEach(AppliedLog::close);
            }
            assertLogsAgree(cluster, N);
            // Restarted replicas restored their state from disk (--state-dir), each said so, and every log
            // is still a prefix of one log. A restarted replica may still skip ahead (a gap line, filled by
            // a peer's snapshot) if, on a starved machine, it fell behind every decided log it can reach
            // while the cluster committed after the restarts: that is the protocol's rule, not a lost state.
            assertLogsArePrefixesOfOne(cluster, N, 400);
            final int firstDead = alivePrefix / PROCS_PER_JVM;
            for (int p = firstDead * PROCS_PER_JVM; p < N; p++)
            {
                final String jvmLog = Files.readString(cluster.dir().resolve("logs")
                    .resolve("jvm-" + layout.jvmOf(p) + ".log"));
                assertTrue(jvmLog.contains("event=state_restored process=" + p + " "),
                    "restarted process " + p + " did not restore its state from disk: " + jvmLog);
            }
        }
    }

    @Test
    void aJvmRestartedAfterTheDecidedLogsMovedOnCatchesUpFromAPeersSnapshot() throws Exception
    {
        System.out.println("MultiJvmClusterTest seed " + SEED + " (replay: -Dmmx.node.seed=" + SEED + ")");
        final Plan plan = NodeTestSupport.plan(8, 3, SEED);
        try (LocalCluster cluster = LocalCluster.create(dir, plan, 2, CHILD_JVM))
        {
            final ClusterLayout layout = cluster.layout();
            final int clientJvm = layout.jvms() - 1;
            for (int j = 0; j < clientJvm; j++)
            {
                cluster.start(j);
            }
            try (MmxNode node = MmxNode.launch(cluster.contextFor(clientJvm), p -> new KeyValueStore(),
                NodeListener.NO_OP))
            {
                for (int j = 0; j < clientJvm; j++)
                {
                    cluster.awaitReady(j, Duration.ofSeconds(120));
                }
                final KeyValueClient kv = new KeyValueClient(node);
                assertEquals(KeyValueCommand.ABSENT, kv.put("before", 1).get(30, TimeUnit.SECONDS));
                final boolean[] alive = new boolean[layout.jvms()];
                Arrays.fill(alive, true);
                final boolean[] killable = alive.clone();
                killable[clientJvm] = false;
                final int victim = LiveNeighbourhood.nextSafeKill(plan.graph(), layout, alive, killable, -1);
                assertTrue(victim >= 0, "no JVM of the plan (seed " + SEED + ") may die");
                cluster.kill(victim);
                // One command per slot until the log has moved well past what any region's decided log holds.
                final long killedAt = node.status().get(0).commitIndex();
                final int reach = cluster.contextFor(clientJvm).core().decidedCapacity();
                int i = 0;
                while (node.status().get(0).commitIndex() < killedAt + 2L * reach + 20)
                {
                    kv.put("k" + (i % 16), i++).get(30, TimeUnit.SECONDS);
                }
                cluster.start(victim);
                cluster.awaitReady(victim, Duration.ofSeconds(120));
                System.out.println(awaitAgreement(node, cluster, clientJvm, layout.n(),
                    "every replica, the restarted ones included, to hold one state at one index"));
                final String log = Files.readString(cluster.dir().resolve("logs").resolve("jvm-" + victim + ".log"));
                assertTrue(log.contains("installed a peer's snapshot"), "the restarted JVM caught up without a " +
                    "peer's snapshot, so this test did not test that: " + log);
            }
        }
    }

    @Test
    void everyJvmKilledAndEveryRegionDeletedTheClusterComesBackWithAColdStart() throws Exception
    {
        System.out.println("MultiJvmClusterTest seed " + SEED + " (replay: -Dmmx.node.seed=" + SEED + ")");
        final Plan plan = NodeTestSupport.plan(6, 3, SEED);
        try (LocalCluster cluster = LocalCluster.create(dir, plan, 2, CHILD_JVM))
        {
            final ClusterLayout layout = cluster.layout();
            final int clientJvm = layout.jvms() - 1;
            final Path state = cluster.dir().resolve("state");
            final List<Integer> acknowledged = new ArrayList<>();
            for (int j = 0; j < clientJvm; j++)
            {
                cluster.start(j);
            }
            try (MmxNode node = MmxNode.launch(cluster.contextFor(clientJvm).stateDirectory(state),
                p -> new KeyValueStore(), NodeListener.NO_OP))
            {
                for (int j = 0; j < clientJvm; j++)
                {
                    cluster.awaitReady(j, Duration.ofSeconds(120));
                }
                final KeyValueClient kv = new KeyValueClient(node);
                for (int i = 0; i < 200; i++)
                {
                    assertEquals(KeyValueCommand.ABSENT, kv.put("k" + i, i).get(30, TimeUnit.SECONDS));
                    acknowledged.add(i);
                }
                for (int j = 0; j < clientJvm; j++)
                {
                    cluster.kill(j); // SIGKILL: no final snapshot, the journal is all there is
                }
            }
            LocalCluster.deleteTree(cluster.regionDir());
            final long startNs = System.nanoTime();
            cluster.nodeOptions(List.of("--cold-start"));
            for (int j = 0; j < clientJvm; j++)
            {
                cluster.start(j);
            }
            try (MmxNode node = MmxNode.launch(cluster.contextFor(clientJvm).stateDirectory(state)
                .coldStart(true, false), p -> new KeyValueStore(), NodeListener.NO_OP))
            {
                for (int j = 0; j < clientJvm; j++)
                {
                    cluster.awaitReady(j, Duration.ofSeconds(120));
                }
                final KeyValueClient kv = new KeyValueClient(node);
                assertEquals(KeyValueCommand.ABSENT, kv.put("after", 1).get(60, TimeUnit.SECONDS));
                System.out.println("cold start to a new command committed: " +
                    (System.nanoTime() - startNs) / 1_000_000 + " ms");
                for (final int i : acknowledged)
                {
                    assertEquals(i, kv.get("k" + i).get(30, TimeUnit.SECONDS), "acknowledged put k" + i);
                }
                System.out.println(awaitAgreement(node, cluster, clientJvm, layout.n(),
                    "every replica to hold one state at one index after the cold start"));
                for (int j = 0; j < clientJvm; j++)
                {
                    final String log = Files.readString(cluster.dir().resolve("logs").resolve("jvm-" + j + ".log"));
                    // A replica sees the era start at its slot, or, if it fell behind every decided log it could
                    // reach (a starved machine), skips past that slot and installs a peer's snapshot of the era.
                    assertTrue(log.contains("era 1 started") || log.contains("event=snapshot_installed"),
                        "JVM " + j + " neither started era 1 nor installed a snapshot of it: " + log);
                }
            }
        }
    }

    /**
     * Waits until every replica (the test's own node and the child JVMs 0..jvms-1) holds one state at
     * one index, and returns the agreement line.
     */
    private static String awaitAgreement(final MmxNode node, final LocalCluster cluster, final int jvms, final int n,
        final String what)
    {
        return awaitAgreement(node, cluster, 0, jvms, r -> r.complete(n), what);
    }

    /**
     * Waits until the replicas of the test's own node and of child JVMs {@code fromJvm..toJvm-1} meet
     * {@code done}, and returns the agreement line. Replicas at one index with two digests fail at once.
     */
    private static String awaitAgreement(final MmxNode node, final LocalCluster cluster, final int fromJvm,
        final int toJvm, final java.util.function.Predicate<io.mmx.runtime.cli.ReplicaAgreement.Result> done,
        final String what)
    {
        final com.fasterxml.jackson.databind.ObjectMapper mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        final io.mmx.runtime.cli.ReplicaAgreement replicas = new io.mmx.runtime.cli.ReplicaAgreement();
        final StringBuilder lastLine = new StringBuilder();
        try
        {
            NodeTestSupport.await(() ->
            {
                replicas.clear();
                try
                {
                    replicas.add(mapper, StatusServer.json(node));
                    for (int j = fromJvm; j < toJvm; j++)
                    {
                        replicas.add(mapper, cluster.status(j));
                    }
                }
                catch (final java.io.IOException ex)
                {
                    return false;
                }
                final io.mmx.runtime.cli.ReplicaAgreement.Result r = replicas.result();
                assertTrue(r.agree(), r::line);
                lastLine.setLength(0);
                lastLine.append(r.line());
                return done.test(r);
            }, 120_000, what);
        }
        catch (final AssertionError timedOut)
        {
            throw new AssertionError(timedOut.getMessage() + "; last seen: " + lastLine, timedOut);
        }
        return replicas.result().line();
    }

    private static KeyValueStore store(final LocalCluster cluster, final int p, final List<AppliedLog> logs)
    {
        final AppliedLog log = new AppliedLog(cluster.appliedLog(p));
        logs.add(log);
        return new KeyValueStore(log);
    }

    private static int leaderJvm(final MmxNode node, final ClusterLayout layout)
    {
        for (final ProcessStatus s : node.status())
        {
            if (s.leader() >= 0)
            {
                return layout.jvmOf(s.leader());
            }
        }
        return -1;
    }

    private static boolean childReportsBlocked(final LocalCluster cluster, final int jvms)
    {
        for (int j = 1; j < jvms; j++)
        {
            final String s = cluster.status(j);
            if (s != null && s.contains("\"blocked\":true"))
            {
                return true;
            }
        }
        return false;
    }

    private static void awaitCompleted(final KeyValueLoad load, final long target, final long timeoutMs,
        final String what)
    {
        NodeTestSupport.await(() -> load.completed() >= target, timeoutMs, what + " (completed " +
            load.completed() + ", unknown " + load.unknown() + ")");
    }

    private static void checkHistory(final io.mmx.runtime.history.History history, final LocalCluster cluster)
        throws Exception
    {
        final CheckResult result = LinearizabilityChecker.check(history, new KeyValueModel(), 50_000_000);
        System.out.println("history: " + history.ops().size() + " operations, verdict " + result.verdict() +
            " (" + result.statesExplored() + " states)");
        if (result.verdict() != CheckResult.Verdict.OK)
        {
            io.mmx.runtime.history.HistoryFile.save(history, cluster.dir().resolve("history.txt"));
            fail("history not linearizable (" + result.verdict() + ") at key " + result.key() + "; saved to " +
                cluster.dir().resolve("history.txt"));
        }
    }

    /**
     * Every replica's log is a prefix of one log: at each log index a replica holds, it holds the command
     * every other replica holding that index holds, and every index some replica applied below a
     * replica's last one is in that replica's log or inside one of its gap or snapshot lines (a restarted
     * replica that installed a peer's snapshot names the indexes the snapshot brought it).
     */
    private static void assertLogsArePrefixesOfOne(final LocalCluster cluster, final int n, final int atLeast)
        throws Exception
    {
        final List<Path> logs = new ArrayList<>();
        for (int p = 0; p < n; p++)
        {
            logs.add(cluster.appliedLog(p));
        }
        final List<String> unexplained = NodeTestSupport.unexplainedIndexes(logs, atLeast);
        long gapLines = 0;
        long snapshotLines = 0;
        for (final Path log : logs)
        {
            for (final String line : Files.readAllLines(log))
            {
                gapLines += line.startsWith("gap ") ? 1 : 0;
                snapshotLines += line.startsWith("snapshot ") ? 1 : 0;
            }
        }
        System.out.println("UNEXPLAINED indexes (a replica's applied log misses them without a line): " +
            unexplained.size() + "; gap lines " + gapLines + ", snapshot lines " + snapshotLines);
        assertTrue(unexplained.isEmpty(), unexplained.size() + " indexes unexplained, the first: " +
            unexplained.subList(0, Math.min(10, unexplained.size())));
    }

    /** Where replicas restarted: every log index holds one command across all replicas. */
    private static void assertLogsAgree(final LocalCluster cluster, final int n) throws Exception
    {
        final Map<Long, String> agreed = new HashMap<>();
        for (int p = 0; p < n; p++)
        {
            if (!Files.exists(cluster.appliedLog(p)))
            {
                continue;
            }
            final SortedMap<Long, String> log = AppliedLog.byIndex(cluster.appliedLog(p));
            for (final Map.Entry<Long, String> e : log.entrySet())
            {
                final String other = agreed.putIfAbsent(e.getKey(), e.getValue());
                assertTrue(other == null || other.equals(e.getValue()), "process " + p + " applied a different " +
                    "command at log index " + e.getKey());
            }
        }
        assertTrue(agreed.size() > 400, "only " + agreed.size() + " log indexes applied");
    }
}
