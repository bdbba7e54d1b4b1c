package io.mmx.runtime.node;

import io.mmx.planner.plan.Plan;
import io.mmx.runtime.example.kv.KeyValueClient;
import io.mmx.runtime.example.kv.KeyValueCommand;
import io.mmx.runtime.example.kv.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Two real nodes in one JVM (n = 5: processes 0-2 and 3-4), Aeron UDP on loopback and shm
 * regions: commands commit, every replica applies the same ones, replies come back.
 */
class InJvmClusterTest
{
    @TempDir
    Path dir;

    private final List<MmxNode> nodes = new ArrayList<>();

    @AfterEach
    void close()
    {
        nodes.forEach(MmxNode::close);
    }

    @Test
    void commitsThroughEitherNodeAndEveryReplicaAgrees() throws Exception
    {
        final Plan plan = NodeTestSupport.plan(5, 2, 7);
        final List<Integer> ports = NodeTestSupport.freePorts(2);
        final String directory = "0-2@127.0.0.1:" + ports.get(0) + ";3-4@127.0.0.1:" + ports.get(1);
        final KeyValueStore[] stores = new KeyValueStore[5];
        nodes.add(MmxNode.launch(context(plan, directory, 0, 1, 2), id -> stores[id] = new KeyValueStore(),
            NodeListener.NO_OP));
        nodes.add(MmxNode.launch(context(plan, directory, 3, 4), id -> stores[id] = new KeyValueStore(),
            NodeListener.NO_OP));
        NodeTestSupport.await(() -> nodes.stream().flatMap(n -> n.status().stream())
            .anyMatch(ProcessStatus::leads), 20_000, "a leader");

        final KeyValueClient a = new KeyValueClient(nodes.get(0));
        final KeyValueClient b = new KeyValueClient(nodes.get(1));
        assertEquals(KeyValueCommand.ABSENT, a.put("x", 1).get(20, TimeUnit.SECONDS));
        assertEquals(1L, b.put("x", 2).get(20, TimeUnit.SECONDS));
        assertEquals(2L, a.get("x").get(20, TimeUnit.SECONDS));
        assertEquals(KeyValueCommand.CAS_OK, b.compareAndSet("x", 2, 3).get(20, TimeUnit.SECONDS));
        assertEquals(KeyValueCommand.CAS_FAILED, a.compareAndSet("x", 2, 4).get(20, TimeUnit.SECONDS));

        final List<CompletableFuture<Long>> burst = new ArrayList<>();
        for (int i = 0; i < 500; i++)
        {
            burst.add((i % 2 == 0 ? a : b).put("k" + (i % 10), i));
        }
        CompletableFuture.allOf(burst.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
        final long total = 5 + 500;
        NodeTestSupport.await(() ->
        {
            for (final KeyValueStore s : stores)
            {
                if (s.applied() != total)
                {
                    return false;
                }
            }
            return true;
        }, 20_000, "every replica to apply " + total + " commands");
        for (int k = 0; k < 10; k++)
        {
            final Long v0 = stores[0].valueOf("k" + k);
            for (final KeyValueStore s : stores)
            {
                assertEquals(v0, s.valueOf("k" + k), "replicas disagree on k" + k);
            }
        }
        assertEquals(3L, stores[4].valueOf("x"));
        // Statuses are published on the agent thread at least every 50 ticks: poll for the applied slots.
        NodeTestSupport.await(() -> nodes.stream().flatMap(n -> n.status().stream()).allMatch(s -> s.commitIndex() >= 0),
            5_000, "every process to publish a commit index");
        for (final MmxNode node : nodes)
        {
            for (final ProcessStatus s : node.status())
            {
                assertEquals(plan.graph().degree(s.id()) + 1, s.qps(), "QPs of " + s.id());
            }
        }
    }

    @Test
    void aThrowingStateMachineFailsTheNodeLoudly() throws Exception
    {
        final Plan plan = NodeTestSupport.plan(3, 2, 7);
        final String directory = "0-2@127.0.0.1:" + NodeTestSupport.freePorts(1).get(0);
        final java.util.concurrent.atomic.AtomicInteger applied = new java.util.concurrent.atomic.AtomicInteger();
        final MmxNode node = MmxNode.launch(context(plan, directory, 0, 1, 2), id -> (index, origin, b, o, l) ->
        {
            if (applied.incrementAndGet() > 3)
            {
                throw new IllegalStateException("state machine bug");
            }
            return 0;
        }, NodeListener.NO_OP);
        nodes.add(node);
        NodeTestSupport.awaitLeader(node);
        assertEquals(0L, node.submit(new byte[1]).get(20, TimeUnit.SECONDS));
        final CompletableFuture<Long> doomed = node.submit(new byte[2]);
        final java.util.concurrent.ExecutionException ex = org.junit.jupiter.api.Assertions.assertThrows(
            java.util.concurrent.ExecutionException.class, () -> doomed.get(20, TimeUnit.SECONDS));
        org.junit.jupiter.api.Assertions.assertTrue(ex.getCause().getMessage().contains("node failed"), ex.toString());
        org.junit.jupiter.api.Assertions.assertNotNull(node.failure());
        org.junit.jupiter.api.Assertions.assertTrue(StatusServer.json(node).contains("state machine bug"));
        final java.util.concurrent.ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(
            java.util.concurrent.ExecutionException.class, () -> node.submit(new byte[1]).get(1, TimeUnit.SECONDS));
        org.junit.jupiter.api.Assertions.assertInstanceOf(SubmitRefusedException.class, refused.getCause());
    }

    @Test
    void theStatusSaysWhetherTheProcessesOwnRegionsAreServed() throws Exception
    {
        final Plan plan = NodeTestSupport.plan(3, 2, 7);
        final io.mmx.rdma.memd.MemoryDaemon daemon = io.mmx.rdma.memd.MemoryDaemon.start(
            new io.mmx.rdma.memd.MemoryDaemon.Context().listen(new java.net.InetSocketAddress("127.0.0.1", 0))
                .clusterKey(io.mmx.rdma.region.ClusterKey.of(NodeTestSupport.KEY)).plan(plan.graph()));
        try
        {
            final String memd = "0-2@127.0.0.1:" + daemon.boundAddress().getPort();
            final MmxNode node = MmxNode.launch(context(plan, "0-2@127.0.0.1:" + NodeTestSupport.freePorts(1).get(0),
                0, 1, 2).memory(NodeContext.Memory.MEMD).memd(memd), id -> new KeyValueStore(), NodeListener.NO_OP);
            nodes.add(node);
            NodeTestSupport.await(() -> node.status().stream().allMatch(ProcessStatus::regionServed), 20_000,
                "every process to report its region served by memd");
            org.junit.jupiter.api.Assertions.assertTrue(StatusServer.json(node).contains("\"regionServed\":true"));
            daemon.close();
            NodeTestSupport.await(() -> node.status().stream().noneMatch(ProcessStatus::regionServed), 20_000,
                "every process to report its region no longer served once memd stopped");
        }
        finally
        {
            daemon.close();
        }
    }

    @Test
    void nodesHoldingOnlyTheirHostsKeysCommitThroughMemd() throws Exception
    {
        final Plan plan = NodeTestSupport.plan(3, 2, 7);
        final io.mmx.rdma.region.ClusterKey clusterKey = io.mmx.rdma.region.ClusterKey.of(NodeTestSupport.KEY);
        final io.mmx.rdma.memd.MemoryDaemon daemon = io.mmx.rdma.memd.MemoryDaemon.start(
            new io.mmx.rdma.memd.MemoryDaemon.Context().listen(new java.net.InetSocketAddress("127.0.0.1", 0))
                .clusterKey(clusterKey).plan(plan.graph()));
        try
        {
            final String memd = "0-2@127.0.0.1:" + daemon.boundAddress().getPort();
            final java.util.List<Integer> ports = NodeTestSupport.freePorts(2);
            final String directory = "0-1@127.0.0.1:" + ports.get(0) + ";2@127.0.0.1:" + ports.get(1);
            // A host key file for processes 0-1 does not let a node host process 2.
            final IllegalStateException refused = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalStateException.class, () -> keyed(plan, directory, clusterKey.hostKeys(0, 1), 2)
                    .memory(NodeContext.Memory.MEMD).memd(memd).conclude());
            org.junit.jupiter.api.Assertions.assertTrue(refused.getMessage().contains("not of hosted process 2"),
                refused.getMessage());
            final MmxNode first = MmxNode.launch(keyed(plan, directory, clusterKey.hostKeys(0, 1), 0, 1)
                .memory(NodeContext.Memory.MEMD).memd(memd), id -> new KeyValueStore(), NodeListener.NO_OP);
            nodes.add(first);
            final MmxNode second = MmxNode.launch(keyed(plan, directory, clusterKey.hostKeys(2), 2)
                .memory(NodeContext.Memory.MEMD).memd(memd), id -> new KeyValueStore(), NodeListener.NO_OP);
            nodes.add(second);
            NodeTestSupport.awaitLeader(first, second);
            assertEquals(KeyValueCommand.ABSENT, new KeyValueClient(first).put("k", 1).get(30, TimeUnit.SECONDS));
            NodeTestSupport.await(() -> first.status().stream().allMatch(ProcessStatus::regionServed) &&
                second.status().stream().allMatch(ProcessStatus::regionServed), 20_000,
                "every process to report its region served by memd");
        }
        finally
        {
            daemon.close();
        }
    }

    @Test
    void aRestartedNodeComesBackWithItsReplicasState() throws Exception
    {
        final Plan plan = NodeTestSupport.plan(3, 2, 7);
        final String directory = "0-2@127.0.0.1:" + NodeTestSupport.freePorts(1).get(0);
        final java.nio.file.Path state = dir.resolve("state");
        final KeyValueStore[] before = new KeyValueStore[3];
        final MmxNode first = MmxNode.launch(context(plan, directory, 0, 1, 2).stateDirectory(state)
            .snapshotEveryCommands(50), id -> before[id] = new KeyValueStore(), NodeListener.NO_OP);
        NodeTestSupport.awaitLeader(first);
        final KeyValueClient client = new KeyValueClient(first);
        for (int i = 0; i < 120; i++)
        {
            assertEquals(KeyValueCommand.ABSENT, client.put("k" + i, i).get(20, TimeUnit.SECONDS));
        }
        NodeTestSupport.await(() -> java.util.Arrays.stream(before).allMatch(s -> s.applied() == 120), 20_000,
            "every replica to apply 120 puts");
        final String digest = before[0].digest();
        first.close();
        final KeyValueStore[] after = new KeyValueStore[3];
        final MmxNode second = MmxNode.launch(context(plan, directory, 0, 1, 2).stateDirectory(state),
            id -> after[id] = new KeyValueStore(), NodeListener.NO_OP);
        nodes.add(second);
        for (final KeyValueStore s : after)
        {
            assertEquals(digest, s.digest(), "a replica restored its state before serving");
        }
        // A put returns the value before it: the restarted cluster remembers the first run's writes.
        NodeTestSupport.awaitLeader(second);
        assertEquals(7L, new KeyValueClient(second).put("k7", 700).get(20, TimeUnit.SECONDS));
        NodeTestSupport.await(() -> java.util.Arrays.stream(after).allMatch(s -> Long.valueOf(700).equals(
            s.valueOf("k7"))), 20_000, "every replica to apply the put after the restart");
        // The status shows the replicas' agreement: one applied index, one digest, the stores' own.
        NodeTestSupport.await(() -> second.status().stream().allMatch(p -> after[0].digest().equals(p.stateDigest())),
            20_000, "the replicas' status to report the stores' digest");
        org.junit.jupiter.api.Assertions.assertTrue(StatusServer.json(second).contains("\"stateDigest\":\"" +
            after[0].digest() + "\""), StatusServer.json(second));
    }

    @Test
    void probesCommitThroughTheStatusPortAndNeverReachTheStateMachine() throws Exception
    {
        final Plan plan = NodeTestSupport.plan(3, 2, 7);
        final String directory = "0-2@127.0.0.1:" + NodeTestSupport.freePorts(1).get(0);
        final KeyValueStore[] stores = new KeyValueStore[3];
        final MmxNode node = MmxNode.launch(context(plan, directory, 0, 1, 2), id -> stores[id] = new KeyValueStore(),
            NodeListener.NO_OP);
        nodes.add(node);
        NodeTestSupport.awaitLeader(node);
        try (StatusServer status = StatusServer.start(new java.net.InetSocketAddress("127.0.0.1", 0), node))
        {
            final java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
            final java.net.URI probe = java.net.URI.create("http://127.0.0.1:" + status.address().getPort() + "/probe");
            final java.net.http.HttpRequest post = java.net.http.HttpRequest.newBuilder(probe)
                .POST(java.net.http.HttpRequest.BodyPublishers.noBody()).timeout(java.time.Duration.ofSeconds(30)).build();
            final java.util.regex.Pattern index = java.util.regex.Pattern.compile("\"logIndex\":(\\d+)");
            long previous = -1;
            for (int i = 0; i < 2; i++)
            {
                final java.net.http.HttpResponse<String> r = http.send(post,
                    java.net.http.HttpResponse.BodyHandlers.ofString());
                assertEquals(200, r.statusCode(), r.body());
                final java.util.regex.Matcher m = index.matcher(r.body());
                org.junit.jupiter.api.Assertions.assertTrue(m.find(), r.body());
                final long at = Long.parseLong(m.group(1));
                org.junit.jupiter.api.Assertions.assertTrue(at > previous, "probe log indexes grow: " + r.body());
                previous = at;
            }
            assertEquals(KeyValueCommand.ABSENT, new KeyValueClient(node).put("x", 1).get(20, TimeUnit.SECONDS));
            NodeTestSupport.await(() -> java.util.Arrays.stream(stores).allMatch(s -> s.applied() >= 1), 20_000,
                "every replica to apply the put");
            for (final KeyValueStore s : stores)
            {
                assertEquals(1, s.applied(), "a probe reached a state machine");
            }
            final java.net.http.HttpResponse<String> get = http.send(java.net.http.HttpRequest.newBuilder(probe).GET()
                .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(405, get.statusCode());

            // The same commits, seen by an operator's scraper on /metrics.
            final java.net.URI metricsUri = java.net.URI.create("http://127.0.0.1:" + status.address().getPort() +
                "/metrics");
            final java.net.http.HttpRequest scrape = java.net.http.HttpRequest.newBuilder(metricsUri).GET()
                .timeout(java.time.Duration.ofSeconds(30)).build();
            final java.util.Map<String, Double> metrics = new java.util.HashMap<>();
            NodeTestSupport.await(() ->
            {
                final java.net.http.HttpResponse<String> r;
                try
                {
                    r = http.send(scrape, java.net.http.HttpResponse.BodyHandlers.ofString());
                }
                catch (final java.io.IOException | InterruptedException ex)
                {
                    throw new AssertionError("GET /metrics failed", ex);
                }
                assertEquals(200, r.statusCode(), r.body());
                org.junit.jupiter.api.Assertions.assertTrue(r.headers().firstValue("Content-Type").orElse("")
                    .startsWith("text/plain; version=0.0.4"), r.headers().toString());
                metrics.clear();
                metrics.putAll(prometheusSamples(r.body()));
                return metrics.getOrDefault("mmx_submissions_total{outcome=\"committed\"}", 0.0) >= 3;
            }, 20_000, "two probes and a put counted as committed on /metrics");
            assertEquals(3.0, metrics.get("mmx_submissions_total{outcome=\"committed\"}"), metrics.toString());
            assertEquals(0.0, metrics.get("mmx_submissions_total{outcome=\"timeout\"}"), metrics.toString());
            assertEquals(3.0, metrics.get("mmx_commit_latency_seconds_count"), metrics.toString());
            assertEquals(3.0, metrics.get("mmx_commit_latency_seconds_bucket{le=\"+Inf\"}"), metrics.toString());
            org.junit.jupiter.api.Assertions.assertTrue(metrics.get("mmx_commit_latency_seconds_bucket{le=\"10.0\"}")
                >= metrics.get("mmx_commit_latency_seconds_bucket{le=\"0.001\"}"), "buckets are cumulative");
            for (int id = 0; id < 3; id++)
            {
                org.junit.jupiter.api.Assertions.assertTrue(metrics.get("mmx_process_commit_index{process=\"" + id +
                    "\"}") >= 0, "process " + id + " committed something: " + metrics);
                org.junit.jupiter.api.Assertions.assertTrue(metrics.get("mmx_fabric_ops_total{process=\"" + id +
                    "\",outcome=\"ok\"}") > 0, "process " + id + "'s memory operations: " + metrics);
            }
            org.junit.jupiter.api.Assertions.assertTrue(metrics.get("mmx_frames_sent_total") > 0, metrics.toString());
            assertEquals(1.0, metrics.get("mmx_build_info{version=\"" + io.mmx.planner.cli.ReleaseVersion.get() +
                "\"}"), metrics.toString());
        }
    }

    /** Each sample line of a Prometheus text exposition: its name with labels, and its value. */
    private static java.util.Map<String, Double> prometheusSamples(final String text)
    {
        final java.util.Map<String, Double> samples = new java.util.HashMap<>();
        for (final String line : text.split("\n"))
        {
            if (line.isBlank() || line.startsWith("#"))
            {
                continue;
            }
            final int space = line.lastIndexOf(' ');
            org.junit.jupiter.api.Assertions.assertNull(samples.put(line.substring(0, space),
                Double.parseDouble(line.substring(space + 1))), "a sample appears twice: " + line);
        }
        return samples;
    }

    private NodeContext keyed(final Plan plan, final String directory, final io.mmx.rdma.region.HostKeys keys,
        final int... ids)
    {
        return new NodeContext().plan(plan).hosted(ids).directory(directory).hostKeys(keys)
            .shmDirectory(dir.resolve("regions")).aeronDirectory(dir.resolve("aeron-" + ids[0]).toString());
    }

    private NodeContext context(final Plan plan, final String directory, final int... ids)
    {
        return NodeTestSupport.context(dir, plan, directory, ids);
    }
}
