package io.mmx.rdma.verbs;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.FabricTestSupport;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.RegionHeader;
import io.mmx.rdma.shm.ShmRegionStore;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.mmx.rdma.fabric.FabricTestSupport.OP_TIMEOUT_NS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A live plan change on verbs with everything but the native glue real: process 0's links of era 0
 * (plan A) and era 1 (plan B) come from one {@link VerbsQueuePairs} pool, the regions are shm files of
 * each era's directory ({@link ShmRegionStore#eraDirectory}), the host is {@link HostedEdges} serving
 * both plans through {@link ShmRegionStore#eraResolver} behind a real {@link VerbsHandshakeChannel},
 * and queue pairs are a software NIC's ({@link SoftwareHca}), created in the admitted edge's
 * protection domain and reaching memory only through an rkey registered there. Only rdma_cm's events
 * and DiSNI's calls are simulated.
 *
 * <p>Process 0's edges: plan A is the ring 0-1-3-2-0 (neighbours 1, 2), plan B the ring 0-1-2-3-0
 * (neighbours 1, 3): the change keeps 0→0 and 0→1, removes 0→2 and adds 0→3.
 */
class VerbsQueuePairsTest
{
    private static final ClusterKey KEY = ClusterKey.ofPassphrase("verbs-queue-pairs-cluster-key-0123456789");
    private static final Graph PLAN_A = Graph.fromEdges(4, new int[]{0, 1, 3, 2}, new int[]{1, 3, 2, 0});
    private static final Graph PLAN_B = Graph.fromEdges(4, new int[]{0, 1, 2, 3}, new int[]{1, 2, 3, 0});
    private static final PlanDigest DIGEST_A = PlanDigest.ofGraph(PLAN_A);
    private static final PlanDigest DIGEST_B = PlanDigest.ofGraph(PLAN_B);
    private static final long DATA_BYTES = 4096;
    private static final int TIMEOUT_MS = 10_000;

    private final SoftwareHca hca = new SoftwareHca();
    private final SecureRandom random = new SecureRandom();
    private final AtomicInteger nextCmPort = new AtomicInteger(30_000);
    // Queue pairs the NIC made per edge "requester->owner", oldest first.
    private final Map<String, List<SoftwareNic>> queuePairs = new ConcurrentHashMap<>();
    // The grant of each edge's CONNECT, "requester->owner" -> {base, rkey, size}: what a confused host answers BIND with.
    private final Map<String, long[]> connectGrants = new ConcurrentHashMap<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private Path base;
    private HostedEdges<Integer, SoftwareHca.Registration> edges;
    private VerbsHandshakeChannel channel;
    private VerbsQueuePairs pool;
    private volatile boolean confusedHost;

    @BeforeEach
    void setUp() throws Exception
    {
        final Path shm = Path.of("/dev/shm");
        base = Files.createTempDirectory(Files.isDirectory(shm) && Files.isWritable(shm) ? shm :
            Path.of(System.getProperty("java.io.tmpdir")), "mmx-verbs-eras-");
        final ShmRegionStore store = new ShmRegionStore(base.resolve("regions"));
        final VerbsEdgeAcceptor.ServedPlan launch = new VerbsEdgeAcceptor.ServedPlan(DIGEST_A, PLAN_A);
        edges = new HostedEdges<>(new VerbsServedPlans(launch, null).add(PLAN_B), launch, KEY,
            store.eraResolver(KEY), hca, TimeUnit.SECONDS.toNanos(10));
        final VerbsHandshake confusedCodec = new VerbsHandshake(KEY, DIGEST_B);
        channel = VerbsHandshakeChannel.serve(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            (request, length, from) ->
            {
                final byte[] reply = edges.onHandshake(request, length, from.getAddress(), System.nanoTime()).reply();
                final String edge = request[VerbsHandshake.REQ_REQUESTER] + "->" + request[VerbsHandshake.REQ_OWNER];
                if (reply != null && request[VerbsHandshake.REQ_OP] == VerbsHandshake.OP_CONNECT &&
                    reply[VerbsHandshake.RSP_STATUS] == OpStatus.OK.ordinal())
                {
                    final ByteBuffer b = ByteBuffer.wrap(reply).order(ByteOrder.LITTLE_ENDIAN);
                    connectGrants.put(edge, new long[]{b.getLong(VerbsHandshake.RSP_BASE),
                        b.getInt(VerbsHandshake.RSP_RKEY), b.getLong(VerbsHandshake.RSP_DATA_BYTES)});
                }
                if (confusedHost && request[VerbsHandshake.REQ_OP] == VerbsHandshake.OP_BIND)
                {
                    // The deliberate bug: a BIND for plan B answered, validly tagged, with the edge's era-0 grant.
                    final long[] old = connectGrants.get(edge);
                    return confusedCodec.reply(confusedCodec.parseRequest(request, length), OpStatus.OK, old[0],
                        (int)old[1], old[2]);
                }
                return reply;
            }, TIMEOUT_MS);
        pool = new VerbsQueuePairs(new SoftwareConnector(), TIMEOUT_MS);
        for (int owner = 0; owner < 4; owner++)
        {
            store.createOrOpen(owner, DATA_BYTES, DIGEST_A, KEY).close();
        }
    }

    @AfterEach
    void tearDown() throws Exception
    {
        for (final AutoCloseable c : closeables)
        {
            c.close();
        }
        pool.close();
        channel.close();
        edges.close();
        assertEquals(0, hca.liveRegistrations(), "closing the host deregisters everything");
        IoUtil.delete(base.toFile(), true);
    }

    /** The requester's side of DisniVerbsConnector, rdma_cm simulated: the real state machine and handshake. */
    private final class SoftwareConnector implements VerbsEdgeConnector
    {
        @Override
        public VerbsConnector.Connection connect(final VerbsHandshake codec, final byte op, final int self,
            final int owner, final VerbsHostAddress host, final int bindings)
        {
            final int cmPort = nextCmPort.getAndIncrement();
            final SoftwareNic[] qp = new SoftwareNic[1];
            final VerbsConnectAttempt attempt = LoopbackAttempt.run(self, owner, codec, op, random.nextLong(),
                host.handshake(), cmPort, TIMEOUT_MS, () ->
                {
                    final EdgeRegistrations.EdgeDomain<Integer> edge =
                        edges.admit(InetAddress.getLoopbackAddress(), cmPort, System.nanoTime());
                    qp[0] = edge == null ? null : hca.queuePair(edge.pd());
                });
            if (attempt.state() == VerbsConnectAttempt.State.CONNECTING)
            {
                attempt.onCmEvent(qp[0] != null ? CmEvent.ESTABLISHED : CmEvent.REJECTED, System.nanoTime());
            }
            if (attempt.state() != VerbsConnectAttempt.State.ESTABLISHED)
            {
                return VerbsConnector.Connection.failed(attempt.status(), attempt.message());
            }
            queuePairs.computeIfAbsent(self + "->" + owner, (e) -> new CopyOnWriteArrayList<>()).add(qp[0]);
            final VerbsHandshake.Grant grant = attempt.grant();
            return new VerbsConnector.Connection(OpStatus.OK, attempt.message(), qp[0], grant.remoteBase(),
                grant.rkey(), grant.dataBytes(), new UnsafeBuffer(BufferUtil.allocateDirectAligned(
                VerbsRegionLink.SCRATCH_BYTES * bindings, 64)), 0x2000 | self);
        }
    }

    private VerbsHostAddress host()
    {
        return new VerbsHostAddress(channel.boundAddress(), channel.boundAddress());
    }

    // Process 0's fabric in era {@code era} on {@code plan}, its links on the pool.
    private MemoryFabric fabric(final Graph plan, final PlanDigest digest, final int era)
    {
        final ConnectionManager connections = ConnectionManager.open(plan, 0, new VerbsLinkFactory(pool,
            (owner) -> host(), KEY::processKey, digest, era));
        final PlanMemoryFabric fabric = new PlanMemoryFabric(connections, SystemNanoClock.INSTANCE, 64);
        closeables.add(fabric);
        return fabric;
    }

    private void createEra1Regions()
    {
        final ShmRegionStore era1 = new ShmRegionStore(ShmRegionStore.eraDirectory(base.resolve("regions"), 1));
        for (int owner = 0; owner < 4; owner++)
        {
            era1.createOrOpen(owner, DATA_BYTES, DIGEST_B, KEY).close();
        }
    }

    // The word at {@code offset} of {@code owner}'s region file of era {@code era}, read from the file.
    private long fileWord(final int era, final PlanDigest digest, final int owner, final long offset)
    {
        try (ShmRegionStore.MappedRegion region = new ShmRegionStore(ShmRegionStore.eraDirectory(
            base.resolve("regions"), era)).createOrOpen(owner, DATA_BYTES, digest, KEY))
        {
            return region.memory().buffer().getLongVolatile(RegionHeader.HEADER_BYTES + (int)offset);
        }
    }

    /**
     * What is wrong with the two eras' regions after era 0 wrote 11 and era 1 wrote 22 to the first word
     * of process 1's region, each through its own link on the shared queue pair; null when nothing is.
     */
    private String eraIsolation(final MemoryFabric era0, final MemoryFabric era1)
    {
        final long inEra0 = fileWord(0, DIGEST_A, 1, 0);
        final long inEra1 = fileWord(1, DIGEST_B, 1, 0);
        if (inEra0 != 11 || inEra1 != 22)
        {
            return "era 0's region of process 1 holds " + inEra0 + " (wrote 11), era 1's holds " + inEra1 +
                " (wrote 22): an era's link reached another era's region";
        }
        final long read0 = FabricTestSupport.readOk(era0, 1, 0);
        final long read1 = FabricTestSupport.readOk(era1, 1, 0);
        return read0 == 11 && read1 == 22 ? null : "era 0 reads " + read0 + " and era 1 reads " + read1;
    }

    private static void write(final MemoryFabric fabric, final int owner, final long value)
    {
        assertEquals(OpStatus.OK, FabricTestSupport.status(fabric, fabric.write(owner, 0, value, OP_TIMEOUT_NS)));
    }

    @Test
    void sharedEdgesKeepTheirQueuePairAndEachEraReachesItsOwnRegion() throws Exception
    {
        final MemoryFabric era0 = fabric(PLAN_A, DIGEST_A, 0);
        assertEquals(3, pool.queuePairsOpened(), "0->0, 0->1, 0->2");
        write(era0, 1, 11);

        createEra1Regions();
        final MemoryFabric era1 = fabric(PLAN_B, DIGEST_B, 1);
        assertEquals(4, pool.queuePairsOpened(), "era 1 opens a queue pair for the edge it adds (0->3) only");
        assertEquals(4, pool.openQueuePairs());
        assertEquals(1, queuePairs.get("0->1").size(), "the shared edge's queue pair carries both eras");
        assertEquals(1, queuePairs.get("0->0").size(), "and so does the loopback's");
        write(era1, 1, 22);
        write(era1, 3, 33);
        assertNull(eraIsolation(era0, era1));

        // The new era's region is registered in the edge's protection domain, the queue pair's.
        final VerbsRegionLink link1 = (VerbsRegionLink)((PlanMemoryFabric)era1).connections().link(1);
        final VerbsRegionLink link0 = (VerbsRegionLink)((PlanMemoryFabric)era0).connections().link(1);
        assertNotEquals(link0.rkey(), link1.rkey());
        assertEquals(hca.registration(link0.rkey()).pd(), hca.registration(link1.rkey()).pd());

        final int registrations = hca.liveRegistrations();
        closeables.remove(era0);
        era0.close(); // the ended era retires
        assertEquals(1, pool.queuePairsClosed(), "the queue pair of the removed edge (0->2) closes with its link");
        assertEquals(3, pool.openQueuePairs());
        assertTrue(pool.awaitReleases(TIMEOUT_MS));
        assertEquals(registrations - 2, hca.liveRegistrations(), "the host dropped era 0's registrations of the " +
            "shared edges (0->0, 0->1); the removed edge's queue pair is not the host's to see here");
        assertNull(hca.registration(link0.rkey()));
        assertEquals(22, FabricTestSupport.readOk(era1, 1, 0), "era 1 goes on on the kept queue pair");
        assertEquals(1, queuePairs.get("0->1").size());

        closeables.remove(era1);
        era1.close();
        assertEquals(4, pool.queuePairsClosed());
        assertEquals(0, pool.openQueuePairs());
    }

    /** Process 0's edge ends in plan B (0->0, 0->1, 0->3), for connecting ahead of era 1. */
    private List<VerbsQueuePairs.Edge> planBEdges()
    {
        final List<VerbsQueuePairs.Edge> ends = new ArrayList<>();
        for (final int owner : new int[]{0, 1, 3})
        {
            ends.add(new VerbsQueuePairs.Edge(0, owner, host()));
        }
        return ends;
    }

    @Test
    void theAddedEdgesQueuePairIsConnectedAheadAndTheNewEraOnlyBindsOnIt() throws Exception
    {
        final MemoryFabric era0 = fabric(PLAN_A, DIGEST_A, 0);
        write(era0, 1, 11);
        final int registrations = hca.liveRegistrations();

        // Before the change is proposed: era 1 has no regions yet, its plan is served.
        assertEquals(1, pool.connectAhead(planBEdges(), KEY::processKey, DIGEST_B, 1, 0, Long.MAX_VALUE)
            .get(TIMEOUT_MS, TimeUnit.MILLISECONDS), "only 0->3 has no queue pair");
        assertEquals(4, pool.queuePairsOpened());
        assertEquals(4, pool.openQueuePairs());
        assertEquals(1, pool.unbound());
        assertEquals(1, queuePairs.get("0->3").size());
        assertEquals(registrations, hca.liveRegistrations(), "a queue pair opened ahead carries no region");

        // The change takes effect: era 1's links bind on the queue pairs there are, connecting none.
        createEra1Regions();
        final MemoryFabric era1 = fabric(PLAN_B, DIGEST_B, 1);
        assertEquals(4, pool.queuePairsOpened(), "the switch opened no queue pair");
        assertEquals(0, pool.unbound());
        assertEquals(1, queuePairs.get("0->3").size(), "era 1 bound its region on the queue pair opened ahead");
        write(era1, 1, 22);
        write(era1, 3, 33);
        assertEquals(33, FabricTestSupport.readOk(era1, 3, 0));
        assertEquals(33, fileWord(1, DIGEST_B, 3, 0), "the write reached era 1's region of process 3");
        assertNull(eraIsolation(era0, era1));

        pool.expire(Long.MAX_VALUE - 1);
        assertEquals(4, pool.openQueuePairs(), "a bound queue pair does not expire");
    }

    @Test
    void aQueuePairConnectedAheadThatNoEraBindsClosesWhenItsTimeRunsOut() throws Exception
    {
        fabric(PLAN_A, DIGEST_A, 0);
        assertEquals(1, pool.connectAhead(planBEdges(), KEY::processKey, DIGEST_B, 1, 1_000, 500)
            .get(TIMEOUT_MS, TimeUnit.MILLISECONDS));
        pool.expire(1_499);
        assertEquals(1, pool.unbound(), "kept until its time runs out");
        pool.expire(1_500);
        assertEquals(0, pool.unbound());
        assertEquals(1, pool.queuePairsClosed(), "the change did not come: closed");
        assertEquals(3, pool.openQueuePairs(), "era 0's stay");
    }

    @Test
    void aHostRefusesToOpenAQueuePairForANonNeighbourOrAPlanItDoesNotServe() throws Exception
    {
        final List<VerbsQueuePairs.Edge> notInB = List.of(new VerbsQueuePairs.Edge(0, 2, host()));
        assertEquals(0, pool.connectAhead(notInB, KEY::processKey, DIGEST_B, 1, 0, Long.MAX_VALUE)
            .get(TIMEOUT_MS, TimeUnit.MILLISECONDS), "0 and 2 are not neighbours in plan B");
        final PlanDigest unknown = PlanDigest.ofGraph(Graph.fromEdges(4, new int[]{0, 0, 0}, new int[]{1, 2, 3}));
        assertEquals(0, pool.connectAhead(planBEdges(), KEY::processKey, unknown, 1, 0, Long.MAX_VALUE)
            .get(TIMEOUT_MS, TimeUnit.MILLISECONDS), "a plan the host does not serve");
        assertEquals(0, pool.queuePairsOpened());
        assertEquals(0, pool.openQueuePairs());
        assertNull(queuePairs.get("0->2"), "no queue pair was made");
        assertEquals(1, edges.counters().get(OpStatus.REFUSED_NOT_NEIGHBOUR));
        assertEquals(3, edges.counters().get(OpStatus.REGION_MISMATCH));
        assertEquals(0, hca.liveRegistrations());
    }

    @Test
    void aHostThatAnswersABindWithTheOldErasKeyIsCaught()
    {
        final MemoryFabric era0 = fabric(PLAN_A, DIGEST_A, 0);
        write(era0, 1, 11);
        createEra1Regions();
        confusedHost = true;
        final MemoryFabric era1 = fabric(PLAN_B, DIGEST_B, 1);
        write(era1, 1, 22);
        final String problem = eraIsolation(era0, era1);
        assertNotNull(problem, "era 1 wrote through era 0's rkey: the isolation check must see it");
        assertTrue(problem.contains("era 0's region of process 1 holds 22"), problem);
    }

    @Test
    void aFailedSharedQueuePairFailsBothErasAndBothComeBackOnANewOne()
    {
        final MemoryFabric era0 = fabric(PLAN_A, DIGEST_A, 0);
        write(era0, 1, 11);
        createEra1Regions();
        final MemoryFabric era1 = fabric(PLAN_B, DIGEST_B, 1);
        write(era1, 1, 22);

        queuePairs.get("0->1").get(0).failNext = true;
        assertEquals(OpStatus.TIMEOUT, FabricTestSupport.status(era1, era1.read(1, 0, OP_TIMEOUT_NS)),
            "an error completion: outcome unknown");
        final RegionLinkState state0 = new RegionLinkState((PlanMemoryFabric)era0);
        assertEquals(OpStatus.NOT_CONNECTED, state0.of(1), "the RC queue pair is in error for every era on it");

        assertEquals(11, FabricTestSupport.readOk(era0, 1, 0), "era 0 connects a new queue pair (CONNECT)");
        assertEquals(22, FabricTestSupport.readOk(era1, 1, 0), "era 1 binds on it (BIND)");
        assertEquals(2, queuePairs.get("0->1").size(), "one new queue pair for both eras");
        assertEquals(4, pool.queuePairsOpened(), "the same edge end: no queue pair counted twice");
        assertNull(eraIsolation(era0, era1));
    }

    @Test
    void aQueuePairCarriesAtMostFourEras()
    {
        for (int era = 0; era < VerbsQueuePairs.MAX_BINDINGS; era++)
        {
            pool.link(KEY.processKey(0), 1, host(), DIGEST_A, 0);
        }
        final IllegalStateException ex = assertThrows(IllegalStateException.class,
            () -> pool.link(KEY.processKey(0), 1, host(), DIGEST_A, 0));
        assertTrue(ex.getMessage().contains("wait for the ended eras to retire"), ex.getMessage());
        assertEquals(1, pool.openQueuePairs());
    }

    @Test
    void aBindIsRefusedOnAnEdgeWithoutAQueuePairAndAnotherErasRegionIsNotGranted() throws Exception
    {
        createEra1Regions();
        final VerbsHandshake codec = new VerbsHandshake(KEY.processKey(2), DIGEST_B, 1);
        final byte[] reply = VerbsHandshakeChannel.exchange(channel.boundAddress(),
            codec.request(VerbsHandshake.OP_BIND, 2, 1, 0, 7), TIMEOUT_MS);
        assertEquals(OpStatus.NOT_CONNECTED, codec.parseReply(reply, reply.length, VerbsHandshake.OP_BIND, 2, 1, 7)
            .status(), "no queue pair of the edge 2->1 here to bind on");

        // Era 1 on plan A's graph is not era 0: its region is looked up in era-1, whose files name plan B.
        final VerbsHandshake wrongPlan = new VerbsHandshake(KEY.processKey(0), DIGEST_A, 1);
        final byte[] refused = VerbsHandshakeChannel.exchange(channel.boundAddress(),
            wrongPlan.request(0, 1, nextCmPort.getAndIncrement(), 8), TIMEOUT_MS);
        assertEquals(OpStatus.REGION_LOST, wrongPlan.parseReply(refused, refused.length, 0, 1, 8).status());
        assertEquals(0, hca.liveRegistrations(), "refusals register nothing");
    }

    /** The state of process 0's link to an owner in one era's fabric. */
    private record RegionLinkState(PlanMemoryFabric fabric)
    {
        OpStatus of(final int owner)
        {
            return fabric.connections().link(owner).state();
        }
    }
}
