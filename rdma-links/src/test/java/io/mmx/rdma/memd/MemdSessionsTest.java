package io.mmx.rdma.memd;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.CompletionSink;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.OpType;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.RegionHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One memd session per edge, shared by the links of several plans (a node's eras): a link is a
 * binding of one plan's region on its edge's session, so a plan change opens sessions only for
 * the edges it adds and closes only those of the edges it removes.
 */
class MemdSessionsTest
{
    // P: 0-1, 1-2. Q: 0-1, 0-2 (shares 0-1 with P). R: 1-2 only (0 and 1 are not neighbours there).
    private static final Graph P = Graph.fromEdges(3, new int[]{0, 1}, new int[]{1, 2});
    private static final Graph Q = Graph.fromEdges(3, new int[]{0, 0}, new int[]{1, 2});
    private static final Graph R = Graph.fromEdges(3, new int[]{1}, new int[]{2});
    private static final PlanDigest DIGEST_P = PlanDigest.ofGraph(P);
    private static final PlanDigest DIGEST_Q = PlanDigest.ofGraph(Q);
    private static final PlanDigest DIGEST_R = PlanDigest.ofGraph(R);
    private static final ClusterKey KEY =
        ClusterKey.of("sessions-test-cluster-key-0123456789".getBytes(StandardCharsets.UTF_8));
    private static final long DATA_BYTES = 1024;
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);

    private MemoryDaemon daemon;
    private MemdSessions sessions;

    @AfterEach
    void tearDown()
    {
        if (sessions != null)
        {
            sessions.close();
        }
        if (daemon != null)
        {
            daemon.close();
        }
    }

    private InetSocketAddress start(final MemoryDaemon.Context context)
    {
        daemon = MemoryDaemon.start(context.listen(new InetSocketAddress("127.0.0.1", 0)).clusterKey(KEY)
            .plan(P).plans(Q, R));
        final InetSocketAddress address = daemon.boundAddress();
        // Each owner keeps its regions of its latest two plans: P's and Q's (R refuses the edge tried).
        for (final PlanDigest plan : new PlanDigest[]{DIGEST_P, DIGEST_Q})
        {
            for (int owner = 0; owner < 3; owner++)
            {
                assertEquals(OpStatus.OK, MemdRegionLink.createRegion(address, KEY, owner, DATA_BYTES, plan,
                    TIMEOUT_NS));
            }
        }
        sessions = new MemdSessions(2_000);
        return address;
    }

    private long word(final PlanDigest plan, final int owner, final long offset)
    {
        return daemon.region(plan, owner).buffer().getLongVolatile((int)(RegionHeader.HEADER_BYTES + offset));
    }

    @Test
    void oneSessionCarriesAnEdgeInTwoPlansAndClosesWithItsLastLink()
    {
        final InetSocketAddress address = start(new MemoryDaemon.Context());
        final MemdRegionLink overP = sessions.link(KEY.processKey(0), 1, address, DIGEST_P, 0);
        final MemdRegionLink overQ = sessions.link(KEY.processKey(0), 1, address, DIGEST_Q, 0);
        assertEquals(1, sessions.sessionsOpened(), "the edge 0-1 is in both plans: one session");
        assertEquals(OpStatus.OK, overP.state(), overP.stateMessage());
        assertEquals(DIGEST_Q, overQ.plan());

        // Both plans' operations in flight at once, each fabric numbering its own from 1: each answer
        // reaches the sink of the operation that asked, and each write the region of its own plan.
        final Op viaP = new Op();
        final Op viaQ = new Op();
        overP.submit(1, OpType.WRITE, 8, 5, 0, null, null, 0, 0, viaP);
        overQ.submit(1, OpType.WRITE, 8, 7, 0, null, null, 0, 0, viaQ);
        await(overQ, viaP, viaQ);
        assertEquals(OpStatus.OK, viaP.status);
        assertEquals(OpStatus.OK, viaQ.status);
        assertEquals(5, word(DIGEST_P, 1, 8));
        assertEquals(7, word(DIGEST_Q, 1, 8));
        assertEquals(1, daemon.connectionCount(), "one connection carried both");

        overP.close();
        assertEquals(1, sessions.openSessions(), "the ended plan's link closes, the edge's session stays");
        assertEquals(OpStatus.OK, call(overQ, OpType.READ, 8, 0).status);
        final MemdRegionLink added = sessions.link(KEY.processKey(0), 2, address, DIGEST_Q, 0);
        assertEquals(2, sessions.sessionsOpened(), "an edge only Q has gets a session of its own");
        overQ.close();
        added.close();
        assertEquals(0, sessions.openSessions());
        assertEquals(2, sessions.sessionsClosed());
        assertEquals(OpStatus.CLOSED, overQ.state());
    }

    /**
     * The daemon's answers say whether the owner of the region they are about holds a connection to it
     * (its node's JVM runs), so a peer tells a slow owner from a dead one: set while process 1's own
     * session is open, clear once it closed (as the kernel closes it when the JVM dies), unknown
     * before any answer or once the answers are older than asked.
     */
    @Test
    void answersSayWhetherTheOwnerHoldsAConnection() throws Exception
    {
        final InetSocketAddress address = start(new MemoryDaemon.Context());
        final long sinceStart = System.nanoTime();
        assertEquals(-1, sessions.ownerConnected(1, sinceStart), "no session, no answer");
        final MemdRegionLink zeroToOne = sessions.link(KEY.processKey(0), 1, address, DIGEST_P, 0);
        assertEquals(OpStatus.OK, call(zeroToOne, OpType.READ, 8, 0).status);
        assertEquals(0, sessions.ownerConnected(1, sinceStart), "process 1 holds no connection to its daemon");

        final MemdSessions ones = new MemdSessions(2_000);
        try
        {
            final MemdRegionLink own = ones.link(KEY.processKey(1), 1, address, DIGEST_P, 0);
            assertEquals(OpStatus.OK, call(own, OpType.READ, 8, 0).status, "its node's link to its own region");
            assertEquals(OpStatus.OK, call(zeroToOne, OpType.READ, 8, 0).status);
            assertEquals(1, sessions.ownerConnected(1, sinceStart), "process 1's node runs");
            assertEquals(-1, sessions.ownerConnected(0, sinceStart), "nothing was asked about process 0's region");
        }
        finally
        {
            ones.close(); // its JVM dies: the kernel closes its connections
        }
        final long deadline = System.nanoTime() + TIMEOUT_NS;
        int said = 1;
        while (said != 0 && System.nanoTime() < deadline)
        {
            assertEquals(OpStatus.OK, call(zeroToOne, OpType.READ, 8, 0).status);
            said = sessions.ownerConnected(1, sinceStart);
        }
        assertEquals(0, said, "the daemon saw process 1's connection close");
        assertEquals(-1, sessions.ownerConnected(1, System.nanoTime() + 1), "answers older than asked count for nothing");
        zeroToOne.close();
    }

    /**
     * Two eras of one graph (a plan change that moves processes, not edges): each era has regions of
     * its own, and a link of each era reaches its own, though one session carries both.
     */
    @Test
    void twoErasOfOnePlanHaveRegionsOfTheirOwn()
    {
        final InetSocketAddress address = start(new MemoryDaemon.Context());
        assertEquals(OpStatus.OK, MemdRegionLink.createRegion(address, KEY.processKey(1), DATA_BYTES, DIGEST_Q, 5,
            TIMEOUT_NS));
        final MemdRegionLink era0 = sessions.link(KEY.processKey(0), 1, address, DIGEST_Q, 0);
        final MemdRegionLink era5 = sessions.link(KEY.processKey(0), 1, address, DIGEST_Q, 5);
        assertEquals(1, sessions.sessionsOpened());
        assertEquals(OpStatus.OK, call(era0, OpType.WRITE, 40, 1).status);
        assertEquals(OpStatus.OK, call(era5, OpType.WRITE, 40, 2).status);
        assertEquals(1, word(DIGEST_Q, 1, 40));
        assertEquals(2, daemon.region(DIGEST_Q, 5, 1).buffer().getLongVolatile(RegionHeader.HEADER_BYTES + 40));
        final MemdRegionLink era6 = sessions.link(KEY.processKey(0), 1, address, DIGEST_Q, 6);
        assertEquals(OpStatus.REGION_LOST, call(era6, OpType.READ, 40, 0).status, "era 6's region is not made yet");
        era0.close();
        era5.close();
        era6.close();
    }

    /**
     * A binding reused after its plan's link closed, for a plan that refuses the edge: the operation
     * sent right behind the OPEN (before its answer) must not reach the region of the plan the binding
     * held before. The daemon unbinds a binding whose OPEN it refuses.
     */
    @Test
    void anOperationRightBehindARefusedOpenIsNeverServedFromTheBindingsOldPlan()
    {
        final InetSocketAddress address = start(new MemoryDaemon.Context());
        final MemdRegionLink overP = sessions.link(KEY.processKey(0), 1, address, DIGEST_P, 0);
        final MemdRegionLink overQ = sessions.link(KEY.processKey(0), 1, address, DIGEST_Q, 0);
        assertEquals(OpStatus.OK, call(overP, OpType.WRITE, 16, 5).status);
        overP.close(); // binding 0 is free on the client; the daemon still has it bound to P

        final MemdRegionLink overR = sessions.link(KEY.processKey(0), 1, address, DIGEST_R, 0);
        final Op behind = new Op();
        overR.submit(2, OpType.WRITE, 16, 99, 0, null, null, 0, 0, behind);
        await(overR, behind);
        assertNotEquals(OpStatus.OK, behind.status, "0 and 1 are not neighbours in R");
        assertEquals(5, word(DIGEST_P, 1, 16), "nothing reached P's region through the reused binding");
        assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, overR.state(), overR.stateMessage());
        assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, call(overR, OpType.READ, 16, 0).status,
            "later operations are refused without a round trip");
        assertEquals(OpStatus.OK, call(overQ, OpType.READ, 16, 0).status, "the other binding is unharmed");
        overR.close();
        overQ.close();
    }

    @Test
    void theDaemonRefusesUnboundAndOutOfRangeBindings() throws Exception
    {
        final InetSocketAddress address = start(new MemoryDaemon.Context());
        try (RawMemdClient client = new RawMemdClient(address))
        {
            client.sendRaw(write(client, 1, 1));
            assertEquals(OpStatus.REGION_MISMATCH, client.readResponse().status(), "binding 1 is bound to nothing");
            client.sendRaw(write(client, MemdProtocol.MAX_BINDINGS, 2));
            assertEquals(OpStatus.PROTOCOL_ERROR, client.readResponse().status());
            client.sendRaw(write(client, 0, 3));
            assertEquals(OpStatus.OK, client.readResponse().status(), "binding 0 starts bound to the launch plan");
        }
        assertEquals(3, word(DIGEST_P, 1, 8));
        assertEquals(0, word(DIGEST_Q, 1, 8));
    }

    /** A raw WRITE of 3 by process 0 to word 8 of process 1's region, on {@code binding}. */
    private static byte[] write(final RawMemdClient client, final int binding, final long requestId)
    {
        return RawMemdClient.onBinding(RawMemdClient.frame(KEY.processKey(0), client.nonce(), OpType.WRITE.ordinal(),
            0, requestId, 1, 0, 8, 3, 0, new byte[0]), binding, KEY.processKey(0), client.nonce());
    }

    /** A connection the daemon closed (idle) comes back with every plan's binding opened again. */
    @Test
    void aReconnectedSessionOpensEveryBindingAgain() throws Exception
    {
        final InetSocketAddress address = start(new MemoryDaemon.Context().idleTimeoutMs(200));
        final MemdRegionLink overP = sessions.link(KEY.processKey(0), 1, address, DIGEST_P, 0);
        final MemdRegionLink overQ = sessions.link(KEY.processKey(0), 1, address, DIGEST_Q, 0);
        assertEquals(OpStatus.OK, call(overP, OpType.WRITE, 24, 1).status);
        // Wait for the daemon to drop the idle connection, then for the session to notice and come back.
        final long deadline = System.nanoTime() + TIMEOUT_NS;
        while (daemon.connectionCount() > 0 && System.nanoTime() < deadline)
        {
            Thread.sleep(10);
        }
        assertEquals(0, daemon.connectionCount(), "the idle connection was closed");
        Op written = new Op();
        while (written.status != OpStatus.OK && System.nanoTime() < deadline)
        {
            written = new Op();
            overQ.submit(3, OpType.WRITE, 24, 2, 0, null, null, 0, 0, written);
            await(overQ, written);
            overQ.doWork(null); // as the fabric polls: notices the closed connection, reconnects once a second
            Thread.sleep(written.status == OpStatus.OK ? 0 : 50);
        }
        assertEquals(OpStatus.OK, written.status, "Q's binding came back with the connection");
        assertEquals(OpStatus.OK, call(overP, OpType.WRITE, 24, 3).status, "and P's");
        assertEquals(3, word(DIGEST_P, 1, 24));
        assertEquals(2, word(DIGEST_Q, 1, 24));
        assertEquals(1, sessions.sessionsOpened(), "the same session reconnected");
        overP.close();
        overQ.close();
    }

    /**
     * Sessions connected ahead of a change: a link of the new plan then binds on the edge's session
     * without connecting; one no link binds closes when its time runs out; an edge that has a session
     * gets no second one.
     */
    @Test
    void sessionsConnectedAheadAreBoundByTheNextPlansLinksOrExpire() throws Exception
    {
        final InetSocketAddress address = start(new MemoryDaemon.Context());
        final MemdRegionLink overP = sessions.link(KEY.processKey(0), 1, address, DIGEST_P, 0);
        final java.util.List<MemdSessions.Edge> edges = java.util.List.of(new MemdSessions.Edge(0, 1, address),
            new MemdSessions.Edge(0, 2, address), new MemdSessions.Edge(1, 2, address));
        assertEquals(2, sessions.connectAhead(edges, KEY::processKey, 0, 1_000).get(10, TimeUnit.SECONDS),
            "0-1 has its session already");
        assertEquals(3, sessions.sessionsOpened());
        assertEquals(2, sessions.unbound());

        final MemdRegionLink overQ = sessions.link(KEY.processKey(0), 2, address, DIGEST_Q, 0);
        assertEquals(3, sessions.sessionsOpened(), "Q's new edge 0-2 binds on the session connected ahead");
        assertEquals(OpStatus.OK, call(overQ, OpType.WRITE, 32, 9).status);
        assertEquals(9, word(DIGEST_Q, 2, 32));
        assertEquals(1, sessions.unbound());

        sessions.expire(999);
        assertEquals(3, sessions.openSessions(), "not yet");
        sessions.expire(1_000);
        assertEquals(0, sessions.unbound());
        assertEquals(2, sessions.openSessions(), "1-2 was never bound: closed");
        assertEquals(1, sessions.sessionsClosed());
        assertEquals(OpStatus.OK, call(overQ, OpType.READ, 32, 0).status, "a bound one stays");
        overP.close();
        overQ.close();
    }

    private static void await(final MemdRegionLink link, final Op... ops)
    {
        final long deadline = System.nanoTime() + TIMEOUT_NS;
        while (System.nanoTime() < deadline)
        {
            boolean done = true;
            for (final Op op : ops)
            {
                done &= op.status != null;
            }
            if (done)
            {
                return;
            }
            link.doWork(null);
        }
        throw new AssertionError("no answer within " + TimeUnit.NANOSECONDS.toSeconds(TIMEOUT_NS) + " s");
    }

    private static Op call(final MemdRegionLink link, final OpType type, final long offset, final long operand)
    {
        final Op op = new Op();
        link.submit(100, type, offset, operand, 0, null, null, 0, 0, op);
        await(link, op);
        return op;
    }

    private static final class Op implements CompletionSink
    {
        private OpStatus status;
        private long value;

        @Override
        public void complete(final long correlationId, final OpStatus status, final long value,
            final org.agrona.DirectBuffer payload, final int payloadOffset)
        {
            assertTrue(this.status == null, "one completion per operation");
            this.status = status;
            this.value = value;
        }
    }
}
