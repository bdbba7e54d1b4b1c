package io.mmx.runtime.cli;

import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanFile;
import io.mmx.runtime.example.kv.KeyValueClient;
import io.mmx.runtime.example.kv.KeyValueStore;
import io.mmx.runtime.node.MmxNode;
import io.mmx.runtime.node.NodeContext;
import io.mmx.runtime.node.NodeListener;
import io.mmx.runtime.node.StatusServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code mmx reconfigure} against two nodes in this JVM (n = 5: processes 0-2 and 3-4), each with its
 * own plans directory and status port: the checks, the dry run and a live change, with exit codes.
 */
class ReconfigureCommandTest
{
    private static final byte[] KEY = "reconfigure-test-cluster-key-0123".getBytes();

    @TempDir
    Path dir;

    private final List<MmxNode> nodes = new ArrayList<>();
    private final List<StatusServer> servers = new ArrayList<>();
    private final Path[] plansDirs = new Path[2];
    private Plan plan;
    private String endpoints;
    private String directory;
    private StringWriter out;
    private StringWriter err;

    /** The memory daemon of {@link #onMemd}'s cluster, or null. */
    private io.mmx.rdma.memd.MemoryDaemon daemon;

    @BeforeEach
    void start() throws Exception
    {
        start(null);
    }

    /** Two nodes on shm, or with their regions on {@code memd} ("0-4@HOST:PORT"). */
    private void start(final String memd) throws Exception
    {
        plan = io.mmx.runtime.local.LocalCluster.plan(5, 2, 7);
        final List<Integer> ports = io.mmx.runtime.local.LocalCluster.freePorts(2, true);
        directory = "0-2@127.0.0.1:" + ports.get(0) + ";3-4@127.0.0.1:" + ports.get(1);
        final int[][] hosted = {{0, 1, 2}, {3, 4}};
        final List<String> status = new ArrayList<>();
        // The role changes the nodes report: the test starts once a process leads.
        final java.util.concurrent.CountDownLatch led = new java.util.concurrent.CountDownLatch(1);
        final NodeListener leads = new NodeListener()
        {
            @Override
            public void onRoleChange(final io.mmx.runtime.node.ProcessStatus s)
            {
                if (s.leads())
                {
                    led.countDown();
                }
            }
        };
        for (int j = 0; j < 2; j++)
        {
            plansDirs[j] = Files.createDirectories(dir.resolve("plans-" + j));
            PlanFile.write(plan, plansDirs[j].resolve("plan.json"));
            final NodeContext ctx = new NodeContext().plan(plan).hosted(hosted[j]).directory(directory)
                .clusterKey(KEY).aeronDirectory(dir.resolve("aeron-" + j).toString()).plansDirectory(plansDirs[j]);
            final MmxNode node = MmxNode.launch(memd == null ? ctx.shmDirectory(dir.resolve("regions")) :
                ctx.memory(NodeContext.Memory.MEMD).memd(memd), id -> new KeyValueStore(), leads);
            nodes.add(node);
            final StatusServer server = StatusServer.start(new java.net.InetSocketAddress("127.0.0.1", 0), node);
            servers.add(server);
            status.add("127.0.0.1:" + server.address().getPort());
        }
        endpoints = String.join(",", status);
        assertTrue(led.await(60, TimeUnit.SECONDS), "no leader within 60 s");
    }

    @AfterEach
    void stop()
    {
        servers.forEach(StatusServer::close);
        nodes.forEach(MmxNode::close);
        servers.clear();
        nodes.clear();
        if (daemon != null)
        {
            daemon.close();
            daemon = null;
        }
    }

    /**
     * On memd the command reports the sessions the nodes opened and closed at the switch against the
     * plan diff's edge ends at their processes: the links follow the diff when the two agree.
     */
    @Test
    void onMemdReportsTheLinksTheChangeRewiredAgainstTheDiff() throws Exception
    {
        stop();
        final Path daemonPlans = Files.createDirectories(dir.resolve("memd-plans"));
        daemon = io.mmx.rdma.memd.MemoryDaemon.start(new io.mmx.rdma.memd.MemoryDaemon.Context()
            .listen(new java.net.InetSocketAddress("127.0.0.1", 0)).clusterKey(io.mmx.rdma.region.ClusterKey.of(KEY))
            .plan(io.mmx.runtime.local.LocalCluster.plan(5, 2, 7).graph()).plansDirectory(daemonPlans));
        start("0-4@127.0.0.1:" + daemon.boundAddress().getPort());
        final Plan next = io.mmx.runtime.local.LocalCluster.plan(5, 2, 9);
        final io.mmx.planner.change.GraphDiff diff = io.mmx.planner.change.GraphDiff.between(plan.graph(),
            next.graph());
        assertTrue(diff.added().size() > 0 && diff.removed().size() > 0, "the new graph adds and removes edges");
        final Path nextFile = dir.resolve("next.json");
        for (final Path held : new Path[]{nextFile, plansDirs[0].resolve("next.json"),
            plansDirs[1].resolve("next.json"), daemonPlans.resolve("next.json")})
        {
            PlanFile.write(next, held);
        }
        assertEquals(0, run("--plan", nextFile.toString(), "--endpoints", endpoints), err.toString());
        // Every process is hosted by a node that stays, so each edge counts at both ends.
        final int ends = 2 * diff.added().size();
        assertTrue(out.toString().contains("prepared   the staying nodes connected " + ends + " memd sessions for " +
            "the edges the change adds, before proposing it"), out.toString());
        assertTrue(out.toString().contains("links      the staying nodes opened " + ends + " memd sessions for the " +
            "change (" + ends + " before it was proposed), for the " + ends + " edge ends"), out.toString());
        assertTrue(out.toString().contains("links      and closed " + 2 * diff.removed().size() + " when the ended " +
            "era retired, for the " + 2 * diff.removed().size() + " edge ends"), out.toString());
    }

    @Test
    void checksThenChangesThePlanOnEveryNode() throws Exception
    {
        final Plan next = io.mmx.runtime.local.LocalCluster.plan(5, 4, 7);
        final Path nextFile = dir.resolve("next.json");
        PlanFile.write(next, nextFile);
        assertEquals(io.mmx.runtime.example.kv.KeyValueCommand.ABSENT, new KeyValueClient(nodes.get(0)).put("x", 7).get(20, TimeUnit.SECONDS));

        // Neither node holds it yet: refused, naming both nodes and the fix.
        assertEquals(2, run("--plan", nextFile.toString(), "--endpoints", endpoints, "--dry-run"));
        assertTrue(err.toString().contains("do not hold") && err.toString().contains(endpoints.split(",")[1]) &&
            err.toString().contains("plans directory"), err.toString());
        assertTrue(out.toString().contains("tolerance"), "the diff is shown before the refusal: " + out);

        PlanFile.write(next, plansDirs[0].resolve("next.json"));
        assertEquals(2, run("--plan", nextFile.toString(), "--endpoints", endpoints, "--dry-run"));
        assertTrue(err.toString().contains("nodes " + endpoints.split(",")[1] + " do not hold"), err.toString());

        PlanFile.write(next, plansDirs[1].resolve("next.json"));
        assertEquals(0, run("--plan", nextFile.toString(), "--endpoints", endpoints, "--dry-run"), err.toString());
        assertTrue(out.toString().contains("dry run: nothing proposed") &&
            out.toString().contains("live after 5 live processes reach |N[S]| = 5"), out.toString());
        assertEquals(plan.contentHash(), nodes.get(1).planHash(), "a dry run changes nothing");

        assertEquals(0, run("--plan", nextFile.toString(), "--endpoints", endpoints), err.toString());
        assertTrue(out.toString().contains("active     plan " + next.contentHash() + " in era 1 on every node"),
            out.toString());
        for (final MmxNode node : nodes)
        {
            assertEquals(next.contentHash(), node.planHash());
            assertEquals(1, node.era());
        }
        assertEquals(7L, new KeyValueClient(nodes.get(1)).get("x").get(20, TimeUnit.SECONDS));

        // Again: nothing to do.
        assertEquals(0, run("--plan", nextFile.toString(), "--endpoints", endpoints));
        assertTrue(out.toString().contains("already in service"), out.toString());
    }

    @Test
    void refusesWhatARunningClusterCannotDo() throws Exception
    {
        final Plan bigger = io.mmx.runtime.local.LocalCluster.plan(6, 2, 7);
        final Path biggerFile = dir.resolve("bigger.json");
        PlanFile.write(bigger, biggerFile);
        assertEquals(2, run("--plan", biggerFile.toString(), "--endpoints", endpoints, "--dry-run"));
        assertTrue(out.toString().contains("new        processes 5-5 are new") ||
            out.toString().contains("the 5 live processes' regions are its acceptors until the 1 others join"),
            out.toString());
        assertTrue(err.toString().contains("do not hold"), err.toString());
        // Held by both nodes but without its processes' endpoints (no bigger.directory beside it): each node's
        // preparation refuses it before anything is proposed, naming the file that is missing.
        PlanFile.write(bigger, plansDirs[0].resolve("bigger.json"));
        PlanFile.write(bigger, plansDirs[1].resolve("bigger.json"));
        assertEquals(2, run("--plan", biggerFile.toString(), "--endpoints", endpoints), out + "\n" + err);
        assertTrue(err.toString().contains("cannot prepare the change") && err.toString().contains(".directory"),
            err.toString());
        // A plan of 4 would keep 3 of node 3-4's processes and drop 4: refused.
        final Plan four = io.mmx.runtime.local.LocalCluster.plan(4, 2, 7);
        PlanFile.write(four, dir.resolve("four.json"));
        assertEquals(2, run("--plan", dir.resolve("four.json").toString(), "--endpoints", endpoints, "--dry-run"));
        assertTrue(err.toString().contains("keeps some of the processes of node " + endpoints.split(",")[1]),
            err.toString());

        // Only the node of processes 3 and 4 answers: 2 of 5 cannot begin the new era by themselves.
        final Plan next = io.mmx.runtime.local.LocalCluster.plan(5, 4, 7);
        final Path nextFile = dir.resolve("next.json");
        PlanFile.write(next, nextFile);
        PlanFile.write(next, plansDirs[1].resolve("next.json"));
        final String second = endpoints.split(",")[1];
        assertEquals(2, run("--plan", nextFile.toString(), "--endpoints", second + ",127.0.0.1:1"));
        assertTrue(out.toString().contains("down       127.0.0.1:1"), out.toString());
        assertTrue(err.toString().contains("refused: 2 live processes of n = 5 would begin the new era"),
            err.toString());
        assertEquals(1, run("--plan", nextFile.toString(), "--endpoints", "127.0.0.1:1"));
        assertTrue(err.toString().contains("no node answers at 127.0.0.1:1"), err.toString());

        Files.writeString(dir.resolve("broken.json"), "{\"not\": \"a plan\"}");
        assertEquals(2, run("--plan", dir.resolve("broken.json").toString(), "--endpoints", endpoints));
        assertTrue(err.toString().contains("broken.json"), err.toString());
        for (final MmxNode node : nodes)
        {
            assertEquals(plan.contentHash(), node.planHash(), "nothing was proposed");
        }
    }

    /** The status port's prepare endpoint: POST only, a content hash, a plan the node holds and can run. */
    @Test
    void thePrepareEndpointNamesWhatIsWrong() throws Exception
    {
        final java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        final String at = "http://" + endpoints.split(",")[0];
        final java.util.function.BiFunction<String, String, java.net.http.HttpResponse<String>> send = (method, path) ->
        {
            try
            {
                return http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(at + path))
                    .method(method, java.net.http.HttpRequest.BodyPublishers.noBody()).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            }
            catch (final java.io.IOException | InterruptedException ex)
            {
                throw new AssertionError(ex);
            }
        };
        assertEquals(405, send.apply("GET", "/prepare?plan=x").statusCode());
        final java.net.http.HttpResponse<String> malformed = send.apply("POST", "/prepare?plan=sha256:beef");
        assertEquals(400, malformed.statusCode());
        assertTrue(malformed.body().contains("POST /prepare?plan=sha256:"), malformed.body());
        final Plan next = io.mmx.runtime.local.LocalCluster.plan(5, 4, 7);
        final java.net.http.HttpResponse<String> unheld = send.apply("POST", "/prepare?plan=" + next.contentHash());
        assertEquals(409, unheld.statusCode());
        assertTrue(unheld.body().contains("does not hold plan " + next.contentHash()), unheld.body());
        PlanFile.write(next, plansDirs[0].resolve("next.json"));
        final java.net.http.HttpResponse<String> held = send.apply("POST", "/prepare?plan=" + next.contentHash());
        assertEquals(200, held.statusCode(), held.body());
        assertEquals("{\"prepared\":true,\"connected\":0}", held.body(), "shm has no sessions to connect");
    }

    /** A shrink by a whole node: the node whose processes the plan leaves out leaves, and the command waits for it. */
    @Test
    void aShrinkByAWholeNodeWaitsForItToLeave() throws Exception
    {
        final Plan small = io.mmx.runtime.local.LocalCluster.plan(3, 2, 7);
        final Path smallFile = dir.resolve("small.json");
        PlanFile.write(small, smallFile);
        for (final Path plans : plansDirs)
        {
            PlanFile.write(small, plans.resolve("small.json"));
            Files.writeString(plans.resolve("small.directory"), directory.substring(0, directory.indexOf(';')) + "\n");
        }
        assertEquals(0, run("--plan", smallFile.toString(), "--endpoints", endpoints), err.toString());
        final String second = endpoints.split(",")[1];
        assertTrue(out.toString().contains("leaving    " + second) && out.toString().contains("left       " + second),
            out.toString());
        assertEquals(1, nodes.get(0).era());
        assertEquals(3, nodes.get(0).plan().n());
        assertTrue(nodes.get(1).left());
        assertEquals(io.mmx.runtime.example.kv.KeyValueCommand.ABSENT,
            new KeyValueClient(nodes.get(0)).put("z", 1).get(20, TimeUnit.SECONDS));
        // Asked again, the node that left is named and passed over, not taken for a failed one.
        assertEquals(0, run("--plan", smallFile.toString(), "--endpoints", endpoints), err.toString());
        assertTrue(out.toString().contains("left       " + second + ": it left the cluster") &&
            out.toString().contains("already in service"), out.toString());
    }

    private int run(final String... args)
    {
        out = new StringWriter();
        err = new StringWriter();
        final CommandLine line = MmxCommand.commandLine();
        line.setOut(new PrintWriter(out, true));
        line.setErr(new PrintWriter(err, true));
        final String[] all = new String[args.length + 1];
        all[0] = "reconfigure";
        System.arraycopy(args, 0, all, 1, args.length);
        return line.execute(all);
    }

}
