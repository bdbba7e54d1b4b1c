package io.mmx.runtime.node;

import io.mmx.planner.analysis.AnalysisOptions;
import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.Planner;
import io.mmx.planner.plan.ProgressListener;

import io.mmx.runtime.example.kv.AppliedLog;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

/** Plans, ports and deadlines for node tests. */
final class NodeTestSupport
{
    static final byte[] KEY = "node-test-cluster-key-0123456789".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    private NodeTestSupport()
    {
    }

    static Plan plan(final int n, final int degree, final long seed)
    {
        return io.mmx.runtime.local.LocalCluster.plan(n, degree, seed);
    }

    /** The same graph with the processes of {@code first} renamed 0..|first|-1, the others after them. */
    static Plan relabel(final Plan plan, final int[] first)
    {
        final int n = plan.n();
        final int[] newId = new int[n];
        java.util.Arrays.fill(newId, -1);
        int next = 0;
        for (final int v : first)
        {
            newId[v] = next++;
        }
        for (int v = 0; v < n; v++)
        {
            if (newId[v] < 0)
            {
                newId[v] = next++;
            }
        }
        final io.mmx.planner.graph.Graph g = plan.graph();
        final List<int[]> edges = new ArrayList<>();
        for (int v = 0; v < n; v++)
        {
            for (final int w : g.neighbours(v))
            {
                if (v < w)
                {
                    edges.add(new int[]{newId[v], newId[w]});
                }
            }
        }
        final int[] us = edges.stream().mapToInt(e -> e[0]).toArray();
        final int[] vs = edges.stream().mapToInt(e -> e[1]).toArray();
        return Planner.analyzeAsPlan(io.mmx.planner.graph.Graph.fromEdges(n, us, vs), null,
            AnalysisOptions.defaults().withAttackBudgetMillis(200), ProgressListener.NONE);
    }

    /**
     * A node hosting {@code ids} of {@code plan} with the test key, its regions in {@code dir}/regions
     * and its media driver in a directory of its own under {@code dir}.
     */
    static NodeContext context(final java.nio.file.Path dir, final Plan plan, final String directory,
        final int... ids)
    {
        return new NodeContext().plan(plan).hosted(ids).directory(directory).clusterKey(KEY)
            .shmDirectory(dir.resolve("regions")).aeronDirectory(dir.resolve("aeron-" + ids[0]).toString());
    }

    /** {@code count} UDP ports free right now on loopback. */
    static List<Integer> freePorts(final int count) throws IOException
    {
        return io.mmx.runtime.local.LocalCluster.freePorts(count, true);
    }

    /**
     * Waits until one of the nodes' processes leads. A submission made before that waits for the
     * election and can outlast the node's submit timeout on a busy machine; 60 s is ample headroom.
     */
    static void awaitLeader(final MmxNode... nodes)
    {
        await(() -> java.util.Arrays.stream(nodes).flatMap(n -> n.status().stream())
            .anyMatch(ProcessStatus::leads), 60_000, "a leader");
    }

    static void await(final BooleanSupplier condition, final long timeoutMs, final String what)
    {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("timed out after " + timeoutMs + " ms waiting for " + what);
            }
            // Poll, do not spin: the cluster under test shares two cores with this thread.
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
    }

    /**
     * Checks replicas' applied logs against each other: no two hold different commands at one index,
     * and together they hold more than {@code atLeast} indexes (else fails). Returns one line per index
     * that some replica applied and another's log, below its own last command, neither holds nor
     * names in a gap or snapshot line: an index that replica lost without saying so.
     */
    static List<String> unexplainedIndexes(final List<Path> logs, final long atLeast) throws IOException
    {
        final List<SortedMap<Long, String>> entries = new ArrayList<>();
        final SortedMap<Long, String> union = new TreeMap<>();
        for (int p = 0; p < logs.size(); p++)
        {
            final SortedMap<Long, String> log = AppliedLog.byIndex(logs.get(p));
            entries.add(log);
            for (final java.util.Map.Entry<Long, String> e : log.entrySet())
            {
                final String other = union.putIfAbsent(e.getKey(), e.getValue());
                if (other != null && !other.equals(e.getValue()))
                {
                    throw new AssertionError(logs.get(p) + " holds another command at log index " + e.getKey() +
                        " than a replica before it: " + e.getValue() + " against " + other);
                }
            }
        }
        if (union.size() <= atLeast)
        {
            throw new AssertionError("the replicas applied only " + union.size() + " log indexes, expected more " +
                "than " + atLeast);
        }
        final List<String> unexplained = new ArrayList<>();
        for (int p = 0; p < logs.size(); p++)
        {
            final SortedMap<Long, String> log = entries.get(p);
            if (log.isEmpty())
            {
                continue;
            }
            final List<long[]> accounted = AppliedLog.accounted(logs.get(p));
            for (final long index : union.headMap(log.lastKey()).keySet())
            {
                if (!log.containsKey(index) && accounted.stream().noneMatch(r -> r[0] <= index && index <= r[1]))
                {
                    unexplained.add(logs.get(p).getFileName() + " misses log index " + index + " below its last (" +
                        log.lastKey() + ") and no gap or snapshot line names it");
                }
            }
        }
        return unexplained;
    }
}
