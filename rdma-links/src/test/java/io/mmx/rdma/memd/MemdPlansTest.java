package io.mmx.rdma.memd;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.planner.plan.PlanFile;
import io.mmx.rdma.fabric.CompletionSink;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.OpType;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.RegionHeader;
import io.mmx.rdma.region.RegionMemory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One memd serving the regions of several plans at once, as during a plan change: regions are kept
 * per (plan, owner), a link reaches the region of the plan it opened, and each plan's own edges grant access.
 */
class MemdPlansTest
{
    // Plan A: 0 - 1, 1 - 2. Plan B: 0 - 2 only. So 1 is 0's neighbour in A, not in B; 2 the other way round.
    private static final Graph PLAN_A = Graph.fromEdges(3, new int[]{0, 1}, new int[]{1, 2});
    private static final Graph PLAN_B = Graph.fromEdges(3, new int[]{0}, new int[]{2});
    // Plan C: 0 - 1 - 2 - 3, only ever found in the plans directory.
    private static final Graph PLAN_C = Graph.fromEdges(4, new int[]{0, 1, 2}, new int[]{1, 2, 3});
    private static final PlanDigest DIGEST_A = PlanDigest.ofGraph(PLAN_A);
    private static final PlanDigest DIGEST_B = PlanDigest.ofGraph(PLAN_B);
    private static final PlanDigest DIGEST_C = PlanDigest.ofGraph(PLAN_C);
    private static final ClusterKey KEY =
        ClusterKey.of("plans-test-cluster-key-0123456789".getBytes(StandardCharsets.UTF_8));
    private static final long DATA_BYTES = 1024;
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);
    private static final AtomicLong CORRELATION = new AtomicLong();

    private MemoryDaemon daemon;

    @AfterEach
    void tearDown()
    {
        if (daemon != null)
        {
            daemon.close();
        }
    }

    private InetSocketAddress start(final MemoryDaemon.Context context)
    {
        daemon = MemoryDaemon.start(context.listen(new InetSocketAddress("127.0.0.1", 0)).clusterKey(KEY));
        return daemon.boundAddress();
    }

    private static OpStatus create(final InetSocketAddress address, final int owner, final PlanDigest plan)
    {
        return MemdRegionLink.createRegion(address, KEY, owner, DATA_BYTES, plan, TIMEOUT_NS);
    }

    @Test
    void theSameOwnerHasDistinctRegionsUnderTwoPlans()
    {
        final InetSocketAddress address = start(new MemoryDaemon.Context().plan(PLAN_A).plans(PLAN_B));
        assertEquals(OpStatus.OK, create(address, 0, DIGEST_A));
        assertEquals(OpStatus.OK, create(address, 0, DIGEST_B));
        assertEquals(OpStatus.OK, create(address, 0, DIGEST_B), "a restarted owner reattaches to its region of B");
        assertEquals(2, daemon.regionCount());

        final RegionMemory a = daemon.region(DIGEST_A, 0);
        final RegionMemory b = daemon.region(DIGEST_B, 0);
        assertNotNull(a);
        assertNotNull(b);
        assertNotSame(a, b);
        assertEquals(a, daemon.region(0), "region(owner) is the launch plan's");
        assertEquals(DIGEST_A, headerDigest(a), "each header records its own plan");
        assertEquals(DIGEST_B, headerDigest(b), "each header records its own plan");

        try (MemdRegionLink overA = link(address, 0, 0, DIGEST_A); MemdRegionLink overB = link(address, 0, 0, DIGEST_B))
        {
            assertEquals(OpStatus.OK, overA.state(), overA.stateMessage());
            assertEquals(OpStatus.OK, overB.state(), overB.stateMessage());
            assertEquals(OpStatus.OK, call(overA, OpType.WRITE, 8, 5).status);
            assertEquals(0, call(overB, OpType.READ, 8, 0).value, "a write under A is not seen under B");
            assertEquals(OpStatus.OK, call(overB, OpType.WRITE, 8, 7).status);
            assertEquals(5, call(overA, OpType.READ, 8, 0).value, "a write under B does not touch A");
            assertEquals(7, call(overB, OpType.READ, 8, 0).value);
        }
        assertEquals(5, a.buffer().getLongVolatile(RegionHeader.HEADER_BYTES + 8));
        assertEquals(7, b.buffer().getLongVolatile(RegionHeader.HEADER_BYTES + 8));
    }

    @Test
    void eachPlansOwnEdgesGrantAccessToItsRegions() throws Exception
    {
        final InetSocketAddress address = start(new MemoryDaemon.Context().plan(PLAN_A).plans(PLAN_B));
        assertEquals(OpStatus.OK, create(address, 0, DIGEST_A));
        assertEquals(OpStatus.OK, create(address, 0, DIGEST_B));

        // 1 is 0's neighbour in A only.
        try (MemdRegionLink overB = link(address, 1, 0, DIGEST_B); MemdRegionLink overA = link(address, 1, 0, DIGEST_A))
        {
            assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, overB.state(), overB.stateMessage());
            assertEquals(OpStatus.OK, overA.state(), overA.stateMessage());
            assertEquals(OpStatus.OK, call(overA, OpType.WRITE, 0, 11).status);
        }
        assertEquals(11, daemon.region(DIGEST_A, 0).buffer().getLongVolatile(RegionHeader.HEADER_BYTES));
        assertEquals(0, daemon.region(DIGEST_B, 0).buffer().getLongVolatile(RegionHeader.HEADER_BYTES));

        // 2 is 0's neighbour in B only: once its OPEN under B is granted, its writes reach B's region, checked by B.
        try (RawMemdClient client = new RawMemdClient(address))
        {
            client.sendRaw(RawMemdClient.frame(KEY, client.nonce(), MemdProtocol.OP_OPEN_REGION, 2, 1, 0, 0, 0, 0, 0,
                DIGEST_B.toByteArray()));
            assertEquals(OpStatus.OK, client.readResponse().status());
            client.sendRaw(RawMemdClient.frame(KEY, client.nonce(), OpType.WRITE.ordinal(), 2, 2, 0, 0, 0, 22, 0,
                new byte[0]));
            assertEquals(OpStatus.OK, client.readResponse().status());
            // A refused OPEN under A leaves the connection bound to B.
            client.sendRaw(RawMemdClient.frame(KEY, client.nonce(), MemdProtocol.OP_OPEN_REGION, 2, 3, 0, 0, 0, 0, 0,
                DIGEST_A.toByteArray()));
            assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, client.readResponse().status());
        }
        // Without an OPEN, a connection is bound to the launch plan A, where 2 is no neighbour of 0.
        try (RawMemdClient client = new RawMemdClient(address))
        {
            client.sendRaw(RawMemdClient.frame(KEY, client.nonce(), OpType.WRITE.ordinal(), 2, 1, 0, 0, 0, 33, 0,
                new byte[0]));
            assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, client.readResponse().status());
        }
        assertEquals(22, daemon.region(DIGEST_B, 0).buffer().getLongVolatile(RegionHeader.HEADER_BYTES));
        assertEquals(11, daemon.region(DIGEST_A, 0).buffer().getLongVolatile(RegionHeader.HEADER_BYTES));
        assertEquals(3, daemon.counters().get(OpStatus.REFUSED_NOT_NEIGHBOUR));
    }

    @Test
    void aPlanIsLearnedFromThePlansDirectoryAndAnUnknownOneIsRefused(@TempDir final Path plans) throws Exception
    {
        Files.writeString(plans.resolve("broken.json"), "{ not a plan");
        Files.writeString(plans.resolve("notes.txt"), "not a plan file either");
        final InetSocketAddress address = start(new MemoryDaemon.Context().plan(PLAN_A).plansDirectory(plans));
        // Written after the daemon started: it is looked up when first named.
        PlanFile.write(Plan.sealed(PLAN_C, -1, "imported", 0, null, JsonNodeFactory.instance.objectNode()),
            plans.resolve("next.json"));

        assertEquals(OpStatus.REGION_MISMATCH, create(address, 0, DIGEST_B), "B is in no file");
        assertEquals(1, daemon.counters().get(OpStatus.REGION_MISMATCH), "counted for createRegion's CREATE");
        assertEquals(OpStatus.OK, create(address, 3, DIGEST_C), "C's n bounds its owners, not A's");
        assertEquals(OpStatus.OK, create(address, 2, DIGEST_C));
        assertTrue(daemon.planDigests().contains(DIGEST_C), daemon.planDigests().toString());
        assertNull(daemon.region(DIGEST_C, 0));
        assertNull(daemon.region(3), "3 is outside the launch plan");
        assertEquals(DIGEST_C, headerDigest(daemon.region(DIGEST_C, 3)));

        try (MemdRegionLink neighbour = link(address, 2, 3, DIGEST_C);
            MemdRegionLink stranger = link(address, 0, 3, DIGEST_C);
            MemdRegionLink unknown = link(address, 2, 2, DIGEST_B))
        {
            assertEquals(OpStatus.OK, neighbour.state(), neighbour.stateMessage());
            assertEquals(OpStatus.OK, call(neighbour, OpType.WRITE, 16, 44).status);
            assertEquals(44, call(neighbour, OpType.READ, 16, 0).value);
            assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, stranger.state(), stranger.stateMessage());
            assertEquals(OpStatus.REGION_MISMATCH, unknown.state(), unknown.stateMessage());
            assertTrue(unknown.stateMessage().contains("--plans"), unknown.stateMessage());
        }
        assertEquals(2, daemon.counters().get(OpStatus.REGION_MISMATCH), "the CREATE of B, and the OPEN of B");
        assertEquals(44, daemon.region(DIGEST_C, 3).buffer().getLongVolatile(RegionHeader.HEADER_BYTES + 16));
    }

    /**
     * Eras come and go: each owner keeps its regions of the two plans it created regions under last
     * (the era it serves and the one before, still read for a few seconds), and the ones before are
     * released, so a daemon does not fill up after a few plan changes.
     */
    @Test
    void anOwnerKeepsItsRegionsOfItsLatestTwoPlans()
    {
        final Graph planD = Graph.fromEdges(3, new int[]{1}, new int[]{2});
        final Graph planE = Graph.fromEdges(3, new int[]{0, 0}, new int[]{1, 2});
        final InetSocketAddress address = start(new MemoryDaemon.Context().plan(PLAN_A).plans(PLAN_B, planD, planE));
        final PlanDigest[] four = {DIGEST_A, DIGEST_B, PlanDigest.ofGraph(planD), PlanDigest.ofGraph(planE)};
        for (final PlanDigest plan : four)
        {
            for (int owner = 0; owner < 3; owner++)
            {
                assertEquals(OpStatus.OK, create(address, owner, plan));
            }
        }
        assertEquals(6, daemon.regionCount(), "two plans' regions per owner");
        for (int owner = 0; owner < 3; owner++)
        {
            assertEquals(null, daemon.region(DIGEST_A, owner), "released: owner " + owner + "'s region of plan A");
            assertEquals(null, daemon.region(DIGEST_B, owner), "released: owner " + owner + "'s region of plan B");
            assertTrue(daemon.region(four[2], owner) != null && daemon.region(four[3], owner) != null);
        }
        assertEquals(OpStatus.OK, create(address, 0, four[3]), "reattaching to the latest plan's region releases nothing");
        assertEquals(6, daemon.regionCount());
    }

    @Test
    void maxRegionsDefaultsToFourTimesTheLaunchPlansProcessCountAndHolds()
    {
        assertEquals(12, new MemoryDaemon.Context().plan(PLAN_A).listen(new InetSocketAddress("127.0.0.1", 0))
            .clusterKey(KEY).conclude().maxRegions());
        final InetSocketAddress address = start(new MemoryDaemon.Context().plan(PLAN_A).plans(PLAN_B).maxRegions(4));
        for (int owner = 0; owner < 3; owner++)
        {
            assertEquals(OpStatus.OK, create(address, owner, DIGEST_A));
        }
        assertEquals(OpStatus.OK, create(address, 0, DIGEST_B));
        assertEquals(OpStatus.BACK_PRESSURED, create(address, 1, DIGEST_B), "4 regions at most");
    }

    @Test
    void thePlansOptionIsDescribedAndMustBeADirectory(@TempDir final Path dir) throws Exception
    {
        final ByteArrayOutputStream help = new ByteArrayOutputStream();
        assertEquals(0, MemdCommandLine.run(new String[]{"--help"}, new PrintStream(help, true, StandardCharsets.UTF_8),
            new PrintStream(new ByteArrayOutputStream())));
        final String text = help.toString(StandardCharsets.UTF_8).replaceAll("\\s+", " ");
        assertTrue(text.contains("--plans=DIR") && text.contains("several plans at once") &&
            text.contains("4 times the launch plan's n"), text);
        assertEquals(java.util.List.of(),
            io.mmx.planner.cli.UsageCheck.problems(new picocli.CommandLine(new MemdCommandLine())));

        final Path key = Files.write(dir.resolve("cluster.key"), new byte[32]);
        final Path edges = Files.writeString(dir.resolve("plan.edges"), "2\n0 1\n");
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = MemdCommandLine.run(new String[]{"--listen", "127.0.0.1:0",
            "--cluster-key-file", key.toString(), "--plan-edges", edges.toString(),
            "--plans", dir.resolve("absent").toString()},
            new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
        final String message = err.toString(StandardCharsets.UTF_8);
        assertEquals(2, code, message);
        assertTrue(message.contains("--plans " + dir.resolve("absent") + " is not a directory"), message);
        assertEquals(1, message.strip().lines().count(), "one line: " + message);
    }

    private static PlanDigest headerDigest(final RegionMemory region)
    {
        final byte[] bytes = new byte[PlanDigest.LENGTH];
        region.buffer().getBytes(RegionHeader.PLAN_DIGEST_OFFSET, bytes);
        return PlanDigest.of(bytes);
    }

    private static MemdRegionLink link(final InetSocketAddress address, final int self, final int owner,
        final PlanDigest plan)
    {
        return new MemdRegionLink(KEY.processKey(self), owner, address, plan, 2_000);
    }

    // One word op through the link, polled to completion.
    private static Completion call(final MemdRegionLink link, final OpType type, final long offset, final long operand)
    {
        final Completion completion = new Completion();
        final CompletionSink sink = (id, status, value, payload, payloadOffset) ->
        {
            completion.status = status;
            completion.value = value;
        };
        link.submit(1 + CORRELATION.getAndIncrement(), type, offset, operand, 0, null, null, 0, 0, sink);
        final long deadline = System.nanoTime() + TIMEOUT_NS;
        while (completion.status == null && System.nanoTime() < deadline)
        {
            link.doWork(sink);
        }
        assertNotNull(completion.status, "no answer within the timeout");
        return completion;
    }

    private static final class Completion
    {
        private OpStatus status;
        private long value;
    }
}
