package io.mmx.runtime.node;

import io.mmx.planner.plan.Plan;
import io.mmx.runtime.example.kv.KeyValueClient;
import io.mmx.runtime.example.kv.KeyValueCommand;
import io.mmx.runtime.example.kv.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real nodes switching plans live (docs/protocol.md §8b): two nodes in one JVM (n = 5: processes
 * 0-2 and 3-4), Aeron UDP on loopback and shm regions, a plan change decided in the log.
 */
class LivePlanChangeTest
{
    @TempDir
    Path dir;

    private final List<MmxNode> nodes = new ArrayList<>();

    /** Memory daemons of the memd tests, closed after the nodes. */
    private final List<io.mmx.rdma.memd.MemoryDaemon> daemons = new ArrayList<>();

    @AfterEach
    void close()
    {
        nodes.forEach(MmxNode::close);
        nodes.clear();
        daemons.forEach(io.mmx.rdma.memd.MemoryDaemon::close);
    }

    /**
     * Two nodes (processes 0-2 and 3-4) on {@code plan} with their regions on one memd, which learns
     * {@code next} from the plans directory both nodes hold it in; returns once a process leads.
     */
    private io.mmx.rdma.memd.MemoryDaemon launchOnMemd(final Plan plan, final Plan next) throws Exception
    {
        final Path plans = Files.createDirectories(dir.resolve("plans"));
        io.mmx.planner.plan.PlanFile.write(next, plans.resolve("next.json"));
        final io.mmx.rdma.memd.MemoryDaemon daemon = io.mmx.rdma.memd.MemoryDaemon.start(
            new io.mmx.rdma.memd.MemoryDaemon.Context().listen(new java.net.InetSocketAddress("127.0.0.1", 0))
                .clusterKey(io.mmx.rdma.region.ClusterKey.of(NodeTestSupport.KEY)).plan(plan.graph())
                .plansDirectory(plans));
        daemons.add(daemon);
        final String memd = "0-4@127.0.0.1:" + daemon.boundAddress().getPort();
        final String directory = directory();
        launch(context(plan, directory, 0, 1, 2).plansDirectory(plans).memory(NodeContext.Memory.MEMD).memd(memd));
        launch(context(plan, directory, 3, 4).plansDirectory(plans).memory(NodeContext.Memory.MEMD).memd(memd));
        awaitLeader();
        return daemon;
    }

    /**
     * Both nodes hold the new plan in their plans directory: the change is decided, every node begins
     * era 1 on the new plan over fresh regions and a new stream, the state carries over, and commands
     * submitted before, during and after the change all commit.
     */
    @Test
    void nodesSwitchToTheNewPlanKeepingStateAndCommitting() throws Exception
    {
        final Plan plan = NodeTestSupport.plan(5, 2, 7);
        final Plan next = NodeTestSupport.plan(5, 4, 7);
        assertNotEquals(plan.digest().id64(), next.digest().id64());
        final Path plans = Files.createDirectories(dir.resolve("plans"));
        io.mmx.planner.plan.PlanFile.write(next, plans.resolve("next.json"));
        final String directory = directory();
        launch(context(plan, directory, 0, 1, 2).plansDirectory(plans));
        launch(context(plan, directory, 3, 4).plansDirectory(plans));
        awaitLeader();
        final KeyValueClient a = new KeyValueClient(nodes.get(0));
        final KeyValueClient b = new KeyValueClient(nodes.get(1));
        assertEquals(KeyValueCommand.ABSENT, a.put("x", 1).get(20, TimeUnit.SECONDS));

        // Commands keep arriving while the change is decided and the nodes switch.
        final List<java.util.concurrent.CompletableFuture<Long>> during = new ArrayList<>();
        for (int i = 0; i < 20; i++)
        {
            during.add((i % 2 == 0 ? a : b).put("k" + i, i));
        }
        final long changeIndex = nodes.get(1).proposePlanChange(next.digest().id64()).get(20, TimeUnit.SECONDS);
        assertTrue(changeIndex >= 0, "the change ended era 0 at log index " + changeIndex);
        for (int i = 20; i < 40; i++)
        {
            during.add((i % 2 == 0 ? a : b).put("k" + i, i));
        }
        for (final MmxNode node : nodes)
        {
            NodeTestSupport.await(() -> node.era() == 1, 20_000, "every node to begin era 1");
            assertEquals(next.contentHash(), node.planHash());
            assertTrue(StatusServer.json(node).contains("\"plan\":\"" + next.contentHash() + "\""));
        }
        java.util.concurrent.CompletableFuture.allOf(during.toArray(new java.util.concurrent.CompletableFuture[0]))
            .get(60, TimeUnit.SECONDS);
        assertTrue(Files.exists(dir.resolve("regions").resolve("era-1")), "era 1's regions are in their own directory");

        // The state of era 0 is the state era 1 starts from, and era 1 commits through either node.
        assertEquals(1L, b.get("x").get(20, TimeUnit.SECONDS));
        assertEquals(1L, a.put("x", 2).get(20, TimeUnit.SECONDS));
        assertEquals(2L, b.get("x").get(20, TimeUnit.SECONDS));
        for (int i = 0; i < 40; i++)
        {
            assertEquals((long)i, a.get("k" + i).get(20, TimeUnit.SECONDS), "k" + i);
        }
        for (final MmxNode node : nodes)
        {
            for (final ProcessStatus s : node.status())
            {
                assertEquals(next.graph().degree(s.id()) + 1, s.qps(), "era 1 links process " + s.id() +
                    " along the new plan");
            }
            assertEquals(null, node.failure());
        }
    }

    /**
     * A node restarted after a live change serves the era its state directory records: started with
     * the old plan it is refused, naming the plan in service; started with the new one it rejoins
     * era 1 with its state, and commits through it.
     */
    @Test
    void aNodeRestartedAfterTheChangeRejoinsTheNewEra() throws Exception
    {
        final Plan plan = NodeTestSupport.plan(5, 2, 7);
        final Plan next = NodeTestSupport.plan(5, 4, 7);
        final Path plans = Files.createDirectories(dir.resolve("plans"));
        io.mmx.planner.plan.PlanFile.write(next, plans.resolve("next.json"));
        final String directory = directory();
        launch(durable(context(plan, directory, 0, 1, 2).plansDirectory(plans), 0));
        launch(durable(context(plan, directory, 3, 4).plansDirectory(plans), 1));
        awaitLeader();
        assertEquals(KeyValueCommand.ABSENT, new KeyValueClient(nodes.get(0)).put("x", 1).get(20, TimeUnit.SECONDS));
        nodes.get(0).proposePlanChange(next.digest().id64()).get(20, TimeUnit.SECONDS);
        for (final MmxNode node : nodes)
        {
            NodeTestSupport.await(() -> node.era() == 1, 20_000, "every node to begin era 1");
        }
        assertEquals(KeyValueCommand.ABSENT, new KeyValueClient(nodes.get(0)).put("y", 2).get(20, TimeUnit.SECONDS));
        nodes.remove(1).close();

        final IllegalStateException refused = assertThrows(IllegalStateException.class, () -> MmxNode.launch(
            durable(context(plan, directory, 3, 4).plansDirectory(plans), 1), id -> new KeyValueStore(),
            NodeListener.NO_OP));
        assertTrue(refused.getMessage().contains("is in era 1 on plan " + next.contentHash()) &&
            refused.getMessage().contains("restart with --plan naming that plan"), refused.getMessage());

        final MmxNode back = launch(durable(context(next, directory, 3, 4).plansDirectory(plans), 1));
        assertEquals(1, back.era());
        final KeyValueClient c = new KeyValueClient(back);
        assertEquals(1L, c.get("x").get(20, TimeUnit.SECONDS));
        assertEquals(2L, c.get("y").get(20, TimeUnit.SECONDS));
        assertEquals(2L, c.put("y", 3).get(20, TimeUnit.SECONDS));
        assertEquals(3L, new KeyValueClient(nodes.get(0)).get("y").get(20, TimeUnit.SECONDS));
    }

    /**
     * A host lost with its regions and state is replaced live: the change is decided by the processes
     * left (3 of 5, a majority by themselves, since a process down at the change has no region in the
     * new era), and an empty host joins the new era, takes its state by snapshot and serves.
     */
    @Test
    void anEmptyHostReplacesALostOneThroughAChange() throws Exception
    {
        final Plan plan = NodeTestSupport.plan(5, 2, 7);
        final Plan next = NodeTestSupport.plan(5, 4, 7);
        final Path plans = Files.createDirectories(dir.resolve("plans"));
        io.mmx.planner.plan.PlanFile.write(next, plans.resolve("next.json"));
        final String directory = directory();
        launch(durable(context(plan, directory, 0, 1, 2).plansDirectory(plans), 0));
        launch(durable(context(plan, directory, 3, 4).plansDirectory(plans), 1));
        awaitLeader();
        final KeyValueClient a = new KeyValueClient(nodes.get(0));
        for (int i = 0; i < 30; i++)
        {
            a.put("k" + i, i).get(20, TimeUnit.SECONDS);
        }
        // The host of 3 and 4 is lost: its node, its regions and its state.
        nodes.remove(1).close();
        for (final int id : new int[] {3, 4})
        {
            Files.deleteIfExists(dir.resolve("regions").resolve("process-" + id + ".region"));
        }
        io.mmx.runtime.local.LocalCluster.deleteTree(dir.resolve("state-1"));

        assertTrue(nodes.get(0).proposePlanChange(next.digest().id64()).get(30, TimeUnit.SECONDS) >= 0);
        NodeTestSupport.await(() -> nodes.get(0).era() == 1, 20_000, "the live node to begin era 1");
        assertEquals(29L, a.put("k29", 290).get(20, TimeUnit.SECONDS), "era 1 commits with 3 of 5 processes");

        final MmxNode replacement = launch(durable(context(next, directory, 3, 4).plansDirectory(plans), 1)
            .joinEra(1));
        assertEquals(1, replacement.era());
        final KeyValueClient r = new KeyValueClient(replacement);
        assertEquals(290L, r.get("k29").get(30, TimeUnit.SECONDS));
        assertEquals(5L, r.get("k5").get(20, TimeUnit.SECONDS));
        assertEquals(290L, r.put("k29", 291).get(20, TimeUnit.SECONDS));
        NodeTestSupport.await(() -> replacement.status().stream().allMatch(s -> s.commitIndex() >= 0), 20_000,
            "the joined processes to apply commands");
    }

    /**
     * Grow 5 to 7 and shrink back: the nodes hold the grown plan with its processes' endpoints, the
     * change is decided by the 5 running processes, a third node joins the new era with the 2 new
     * processes; then a change back to 5 processes leaves the third node out, and it leaves: it does
     * not hold that plan, and learns from the change itself that the plan has 5 processes.
     */
    @Test
    void growsByANodeAndShrinksBack() throws Exception
    {
        final Plan plan = NodeTestSupport.plan(5, 2, 7);
        final Plan grown = NodeTestSupport.plan(7, 2, 7);
        final Plan shrunk = NodeTestSupport.plan(5, 4, 7);
        final List<Integer> ports = NodeTestSupport.freePorts(3);
        final String five = "0-2@127.0.0.1:" + ports.get(0) + ";3-4@127.0.0.1:" + ports.get(1);
        final String seven = five + ";5-6@127.0.0.1:" + ports.get(2);
        launch(durable(context(plan, five, 0, 1, 2), 0).heldPlan(grown, seven, null)
            .heldPlan(shrunk, five, null));
        launch(durable(context(plan, five, 3, 4), 1).heldPlan(grown, seven, null)
            .heldPlan(shrunk, five, null));
        awaitLeader();
        final KeyValueClient a = new KeyValueClient(nodes.get(0));
        assertEquals(KeyValueCommand.ABSENT, a.put("x", 1).get(20, TimeUnit.SECONDS));

        assertTrue(nodes.get(0).changePlan(grown.contentHash()).get(30, TimeUnit.SECONDS) >= 0);
        for (final MmxNode node : nodes)
        {
            NodeTestSupport.await(() -> node.era() == 1 && node.plan().n() == 7, 20_000, "every node to begin era 1");
        }
        assertEquals(1L, a.put("x", 2).get(20, TimeUnit.SECONDS), "era 1 commits with 5 of 7 processes");
        final MmxNode third = launch(durable(context(grown, seven, 5, 6), 2).joinEra(1));
        final KeyValueClient c = new KeyValueClient(third);
        assertEquals(2L, c.get("x").get(30, TimeUnit.SECONDS));
        assertEquals(2L, c.put("x", 3).get(20, TimeUnit.SECONDS));

        assertTrue(nodes.get(1).changePlan(shrunk.contentHash()).get(30, TimeUnit.SECONDS) >= 0);
        for (final MmxNode node : nodes.subList(0, 2))
        {
            NodeTestSupport.await(() -> node.era() == 2 && node.plan().n() == 5, 20_000, "nodes 0-4 to begin era 2");
        }
        NodeTestSupport.await(third::left, 20_000, "the third node to leave");
        assertTrue(third.failure().getMessage().contains("so the node leaves the cluster"), third.failure().toString());
        assertTrue(StatusServer.json(third).contains("\"left\":true"));
        assertEquals(3L, a.put("x", 4).get(20, TimeUnit.SECONDS), "era 2 commits with 5 processes");
        assertEquals(4L, new KeyValueClient(nodes.get(1)).get("x").get(20, TimeUnit.SECONDS));

        // Region files follow the eras as memd's regions do: once era 1 retired, era 0's files of the
        // staying nodes' processes are deleted; era 1's and era 2's stay.
        final Path regions = dir.resolve("regions");
        NodeTestSupport.await(() -> java.util.stream.IntStream.range(0, 5).noneMatch(id ->
            Files.exists(regions.resolve("process-" + id + ".region"))), 20_000, "era 0's region files to go");
        for (int id = 0; id < 5; id++)
        {
            assertTrue(Files.exists(regions.resolve("era-1").resolve("process-" + id + ".region")), "era 1, " + id);
            assertTrue(Files.exists(regions.resolve("era-2").resolve("process-" + id + ".region")), "era 2, " + id);
        }
    }

    /**
     * A node stopped between its replicas beginning an era and its record of it: the record names the
     * era before, the replicas' logs the new one. Restarted on the recorded era it is refused, naming
     * the fix; restarted with the new plan and {@code joinEra} it rejoins with its state.
     */
    @Test
    void aNodeStoppedBeforeRecordingItsNewEraIsToldToJoinIt() throws Exception
    {
        final Plan plan = NodeTestSupport.plan(5, 2, 7);
        final Plan next = NodeTestSupport.plan(5, 4, 7);
        final Plan third = NodeTestSupport.plan(5, 2, 8);
        final String directory = directory();
        launch(durable(context(plan, directory, 0, 1, 2).heldPlans(next, third), 0));
        launch(durable(context(plan, directory, 3, 4).heldPlans(next, third), 1));
        awaitLeader();
        final KeyValueClient a = new KeyValueClient(nodes.get(0));
        assertEquals(KeyValueCommand.ABSENT, a.put("x", 1).get(20, TimeUnit.SECONDS));
        for (final Plan p : new Plan[] {next, third})
        {
            nodes.get(0).changePlan(p.contentHash()).get(30, TimeUnit.SECONDS);
            for (final MmxNode node : nodes)
            {
                NodeTestSupport.await(() -> node.planHash().equals(p.contentHash()), 20_000, "every node to switch");
            }
        }
        assertEquals(1L, a.put("x", 2).get(20, TimeUnit.SECONDS));
        nodes.remove(1).close();
        // As if it stopped before recording era 2: the record still names era 1 and its plan.
        for (final int id : new int[] {3, 4})
        {
            Files.writeString(dir.resolve("state-1").resolve("process-" + id).resolve(NodeEra.RECORD_FILE),
                "era 1 plan " + next.contentHash() + "\n");
        }
        final IllegalStateException refused = assertThrows(IllegalStateException.class, () -> MmxNode.launch(
            durable(context(next, directory, 3, 4), 1), id -> new KeyValueStore(), NodeListener.NO_OP));
        assertTrue(refused.getMessage().contains("log is in era 2 but this node's record says era 1") &&
            refused.getMessage().contains("--join-era 2"), refused.getMessage());
        final MmxNode back = launch(durable(context(third, directory, 3, 4), 1).joinEra(2));
        assertEquals(2, back.era());
        assertEquals(2L, new KeyValueClient(back).get("x").get(30, TimeUnit.SECONDS));
    }

    private NodeContext durable(final NodeContext ctx, final int node)
    {
        return ctx.stateDirectory(dir.resolve("state-" + node));
    }

    /**
     * On memd the new era's regions are made on the same daemons, which learn the new plan from their
     * plans directory and keep serving the old era's regions beside them.
     */
    @Test
    void nodesOnMemdSwitchTheirRegionsToo() throws Exception
    {
        final Plan plan = NodeTestSupport.plan(5, 2, 7);
        final Plan next = NodeTestSupport.plan(5, 2, 9);
        final int[][] hosted = {{0, 1, 2}, {3, 4}};
        assertTrue(added(plan, next, hosted[0]) > 0 && added(next, plan, hosted[0]) > 0,
            "the new graph adds edges at node 0 and removes others");
        final io.mmx.rdma.memd.MemoryDaemon daemon = launchOnMemd(plan, next);
        final KeyValueClient a = new KeyValueClient(nodes.get(0));
        assertEquals(KeyValueCommand.ABSENT, a.put("x", 1).get(20, TimeUnit.SECONDS));
        assertEquals(5, daemon.regionCount(), "era 0's regions");
        final long[] openedBefore = new long[2];
        for (int j = 0; j < 2; j++)
        {
            assertEquals(sessions(plan, hosted[j]), link(nodes.get(j), "open"),
                "a session per edge end of a hosted process and one to its own region");
            openedBefore[j] = link(nodes.get(j), "opened");
        }
        // Node 0 is prepared: it connects the sessions of its added edges before the change is proposed.
        assertEquals(added(plan, next, hosted[0]), (long)nodes.get(0).preparePlan(next.contentHash())
            .get(20, TimeUnit.SECONDS));
        assertEquals(added(plan, next, hosted[0]), link(nodes.get(0), "opened") - openedBefore[0]);
        nodes.get(1).proposePlanChange(next.digest().id64()).get(20, TimeUnit.SECONDS);
        for (final MmxNode node : nodes)
        {
            NodeTestSupport.await(() -> node.era() == 1, 20_000, "every node to begin era 1");
        }
        // The links follow the plan diff: node 0's switch bound era 1's regions on the sessions it had,
        // node 1's opened sessions for its added edges only; the shared edges' sessions (and each
        // process's own) carry era 1's regions too.
        for (int j = 0; j < 2; j++)
        {
            assertEquals(added(plan, next, hosted[j]), link(nodes.get(j), "opened") - openedBefore[j],
                "sessions node " + j + " opened at the switch");
        }
        assertEquals(1L, new KeyValueClient(nodes.get(1)).put("x", 2).get(20, TimeUnit.SECONDS));
        assertEquals(10, daemon.regionCount(), "era 1's regions beside era 0's");
        assertTrue(daemon.planDigests().contains(io.mmx.planner.plan.PlanDigest.ofGraph(next.graph())),
            "the daemon learnt the new plan from its plans directory");
        for (final MmxNode node : nodes)
        {
            NodeTestSupport.await(() -> node.status().stream().allMatch(ProcessStatus::regionServed), 20_000,
                "every process of era 1 to report its region served");
        }
        for (int j = 0; j < 2; j++)
        {
            final MmxNode node = nodes.get(j);
            final long closed = added(next, plan, hosted[j]);
            NodeTestSupport.await(() -> link(node, "closed") == closed, 20_000,
                "the ended era to retire, closing the sessions of the edges the change removed");
            assertEquals(sessions(next, hosted[j]), link(node, "open"));
        }
    }

    /**
     * A change to a plan of the same graph (another placement, say): the new era must still begin on
     * fresh regions, though memd finds the plan by the graph's digest, and each era's acceptors see
     * only their own era's state.
     */
    @Test
    void aChangeToAPlanOfTheSameGraphBeginsOnFreshRegions() throws Exception
    {
        final Plan plan = NodeTestSupport.plan(5, 2, 7);
        final Plan next = Plan.sealed(plan.graph(), plan.degree(), "same-graph", plan.seed(), null,
            com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode());
        assertNotEquals(plan.contentHash(), next.contentHash());
        final io.mmx.rdma.memd.MemoryDaemon daemon = launchOnMemd(plan, next);
        final KeyValueClient a = new KeyValueClient(nodes.get(0));
        assertEquals(KeyValueCommand.ABSENT, a.put("x", 1).get(20, TimeUnit.SECONDS));
        assertEquals(5, daemon.regionCount());
        nodes.get(0).changePlan(next.contentHash()).get(20, TimeUnit.SECONDS);
        for (final MmxNode node : nodes)
        {
            NodeTestSupport.await(() -> node.era() == 1, 20_000, "every node to begin era 1");
        }
        assertEquals(10, daemon.regionCount(), "era 1's regions are fresh, beside era 0's, for the same graph");
        assertEquals(1L, new KeyValueClient(nodes.get(1)).put("x", 2).get(20, TimeUnit.SECONDS));
    }

    /** The memd sessions of {@code hosted} under {@code plan}: one per edge end, one per own region. */
    private static long sessions(final Plan plan, final int[] hosted)
    {
        return java.util.Arrays.stream(hosted).map(p -> plan.graph().neighbours(p).length + 1).sum();
    }

    /** The edges of {@code after} at {@code hosted} that {@code before} lacks, counted at each hosted end. */
    private static long added(final Plan before, final Plan after, final int[] hosted)
    {
        long count = 0;
        for (final int p : hosted)
        {
            for (final int q : after.graph().neighbours(p))
            {
                count += before.graph().hasEdge(p, q) ? 0 : 1;
            }
        }
        return count;
    }

    /** One number of the node's {@code /status} {@code links}. */
    private static long link(final MmxNode node, final String field)
    {
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"links\":\\{[^}]*\"" + field +
            "\":(\\d+)").matcher(StatusServer.json(node));
        assertTrue(m.find(), StatusServer.json(node));
        return Long.parseLong(m.group(1));
    }

    /** A node that does not hold the plan a decided change names stops, naming it and the fix. */
    @Test
    void aNodeWithoutTheNewPlanStopsNamingIt() throws Exception
    {
        final Plan plan = NodeTestSupport.plan(5, 2, 7);
        final String directory = directory();
        launch(context(plan, directory, 0, 1, 2));
        launch(context(plan, directory, 3, 4));
        awaitLeader();
        assertEquals(KeyValueCommand.ABSENT, new KeyValueClient(nodes.get(1)).put("x", 1).get(20, TimeUnit.SECONDS));
        nodes.get(1).proposePlanChange(0xC0FFEEL);
        for (final MmxNode node : nodes)
        {
            NodeTestSupport.await(() -> node.failure() != null, 20_000, "the node to stop on the decided change");
            assertTrue(node.failure().getMessage().contains("plan c0ffee") &&
                node.failure().getMessage().contains("does not hold that plan"), node.failure().toString());
            assertTrue(StatusServer.json(node).contains("does not hold that plan"));
        }
        final ExecutionException refused = assertThrows(ExecutionException.class,
            () -> new KeyValueClient(nodes.get(0)).put("y", 1).get(5, TimeUnit.SECONDS));
        assertInstanceOf(SubmitRefusedException.class, refused.getCause());
    }

    /**
     * On memd a node that stopped lets go of its memd sessions at once: the daemon then answers that
     * its processes hold no connection, so their peers declare them gone instead of waiting them out as
     * slow (MemdLiveness), while the JVM still runs.
     */
    @Test
    void aStoppedNodeOnMemdClosesItsSessions() throws Exception
    {
        final Plan plan = NodeTestSupport.plan(5, 2, 7);
        final io.mmx.rdma.memd.MemoryDaemon daemon = launchOnMemd(plan, NodeTestSupport.plan(5, 4, 7));
        assertTrue(daemon.connectionCount() > 0);
        for (final MmxNode node : nodes)
        {
            assertTrue(link(node, "open") > 0, StatusServer.json(node));
        }
        nodes.get(1).proposePlanChange(0xC0FFEEL); // a plan neither node holds: both stop once it is decided
        for (final MmxNode node : nodes)
        {
            NodeTestSupport.await(() -> node.failure() != null, 20_000, "the node to stop on the decided change");
            // Its agent lets go of them right after it records the failure.
            NodeTestSupport.await(() -> link(node, "open") == 0, 20_000, "the stopped node to close its sessions");
            assertEquals(link(node, "opened"), link(node, "closed"), StatusServer.json(node));
        }
        NodeTestSupport.await(() -> daemon.connectionCount() == 0, 20_000,
            "the daemon to see every connection of the stopped nodes close");
    }

    private void awaitLeader()
    {
        NodeTestSupport.awaitLeader(nodes.toArray(new MmxNode[0]));
    }

    /** Starts a node of key-value stores on {@code ctx}, closed after the test. */
    private MmxNode launch(final NodeContext ctx)
    {
        final MmxNode node = MmxNode.launch(ctx, id -> new KeyValueStore(), NodeListener.NO_OP);
        nodes.add(node);
        return node;
    }

    private static String directory() throws java.io.IOException
    {
        final List<Integer> ports = NodeTestSupport.freePorts(2);
        return "0-2@127.0.0.1:" + ports.get(0) + ";3-4@127.0.0.1:" + ports.get(1);
    }

    private NodeContext context(final Plan plan, final String directory, final int... ids)
    {
        return NodeTestSupport.context(dir, plan, directory, ids);
    }
}
