package io.mmx.rdma.verbs;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.FabricTestSupport;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.MemoryFabricConformanceTest;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.shm.ShmRegionStore;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
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
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The conformance suite on the node's verbs path with everything but the native glue real: each
 * owner creates its region as an shm file ({@link ShmRegionStore#createOrOpen}, then closes its
 * mapping: the file holds the region), the host serves the directory as memd's verbs mode does
 * ({@link ShmRegionStore#resolver} into {@link HostedEdges}: one registration per edge in the
 * edge's own protection domain), requesters run {@link VerbsConnectAttempt} with their own process
 * key and the handshake over {@link VerbsHandshakeChannel} on loopback TCP, and every link, the
 * owner's loopback included, is a {@link VerbsRegionLink} over a queue pair of a software NIC
 * ({@link SoftwareHca}) created in the admitted edge's protection domain. Only rdma_cm's events
 * and DiSNI's calls are simulated; {@link VerbsMemdConformanceTest} runs the same suite through
 * memd and a real device.
 */
class VerbsShmConformanceTest extends MemoryFabricConformanceTest
{
    private static final long GRANT_TTL_NS = TimeUnit.SECONDS.toNanos(10);
    private static final int HANDSHAKE_TIMEOUT_MS = 10_000;

    /** One host's verbs service for one plan, as memd in verbs mode runs it. */
    private record Host(PlanDigest digest, HostedEdges<Integer, SoftwareHca.Registration> edges,
        VerbsHandshakeChannel channel)
    {
    }

    private final SoftwareHca hca = new SoftwareHca();
    private final List<Host> hosts = new ArrayList<>();
    // The queue pairs made for each edge "requester->owner", oldest first.
    private final Map<String, List<SoftwareNic>> queuePairs = new ConcurrentHashMap<>();
    private final AtomicInteger nextCmPort = new AtomicInteger(20_000);
    private final SecureRandom random = new SecureRandom();
    private Path directory;
    private ShmRegionStore store;
    private Host host;

    @Override
    protected void setUpBackend() throws Exception
    {
        final Path shm = Path.of("/dev/shm");
        directory = Files.createTempDirectory(Files.isDirectory(shm) && Files.isWritable(shm) ? shm :
            Path.of(System.getProperty("java.io.tmpdir")), "mmx-verbs-shm-");
        store = new ShmRegionStore(directory.resolve("regions"));
        host = startHost(PLAN, DIGEST);
    }

    @Override
    protected void tearDownBackend()
    {
        hosts.forEach((h) ->
        {
            h.channel().close();
            h.edges().close();
        });
        assertEquals(0, hca.liveRegistrations(), "closing the hosts deregisters everything");
        IoUtil.delete(directory.toFile(), true);
    }

    private Host startHost(final Graph plan, final PlanDigest digest)
    {
        final HostedEdges<Integer, SoftwareHca.Registration> edges =
            new HostedEdges<>(plan, digest, KEY, store.resolver(digest, KEY), hca, GRANT_TTL_NS);
        final VerbsHandshakeChannel channel = VerbsHandshakeChannel.serve(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            (request, length, from) -> edges.onHandshake(request, length, from.getAddress(), System.nanoTime()).reply(),
            HANDSHAKE_TIMEOUT_MS);
        final Host h = new Host(digest, edges, channel);
        hosts.add(h);
        return h;
    }

    @Override
    protected void createRegion(final int owner, final long dataBytes)
    {
        store.createOrOpen(owner, dataBytes, DIGEST, KEY).close(); // the file, not this mapping, holds it
    }

    @Override
    protected void createRegionForPlan(final int owner, final long dataBytes, final PlanDigest digest)
    {
        store.createOrOpen(owner, dataBytes, digest, KEY).close();
    }

    @Override
    protected MemoryFabric openFabric(
        final int self, final Graph plan, final PlanDigest digest, final ClusterKey key, final int maxOutstanding)
    {
        // A plan other than the suite's gets its own host service, as memd started for that plan would.
        Host target = hosts.stream().filter((h) -> h.digest().equals(digest)).findFirst().orElse(null);
        if (target == null)
        {
            target = plan.equals(PLAN) ? host : startHost(plan, digest);
        }
        final VerbsConnector connector = connector(target, new VerbsHandshake(key.processKey(self), digest));
        return new PlanMemoryFabric(ConnectionManager.open(plan, self,
            (s, owner) -> new VerbsRegionLink(s, owner, connector)), SystemNanoClock.INSTANCE, maxOutstanding);
    }

    // The requester's side of DisniVerbsConnector with rdma_cm's events simulated: the real state
    // machine, the real handshake over TCP, and a queue pair in the protection domain the host admits.
    private VerbsConnector connector(final Host target, final VerbsHandshake codec)
    {
        return (self, owner) ->
        {
            final int cmPort = nextCmPort.getAndIncrement();
            final SoftwareNic[] queuePair = new SoftwareNic[1];
            final VerbsConnectAttempt attempt = LoopbackAttempt.run(self, owner, codec, random.nextLong(),
                target.channel().boundAddress(), cmPort, HANDSHAKE_TIMEOUT_MS, () ->
                {
                    // The host's side of rdma_accept: admitted only on a grant, the QP in the edge's PD.
                    final EdgeRegistrations.EdgeDomain<Integer> edge =
                        target.edges().admit(InetAddress.getLoopbackAddress(), cmPort, System.nanoTime());
                    queuePair[0] = edge == null ? null : hca.queuePair(edge.pd());
                });
            if (attempt.state() == VerbsConnectAttempt.State.CONNECTING)
            {
                attempt.onCmEvent(queuePair[0] != null ? CmEvent.ESTABLISHED : CmEvent.REJECTED, System.nanoTime());
            }
            if (attempt.state() != VerbsConnectAttempt.State.ESTABLISHED)
            {
                return VerbsConnector.Connection.failed(attempt.status(), attempt.message());
            }
            queuePairs.computeIfAbsent(self + "->" + owner, (e) -> new CopyOnWriteArrayList<>()).add(queuePair[0]);
            final VerbsHandshake.Grant grant = attempt.grant();
            return new VerbsConnector.Connection(OpStatus.OK, attempt.message(), queuePair[0], grant.remoteBase(),
                grant.rkey(), grant.dataBytes(), new UnsafeBuffer(BufferUtil.allocateDirectAligned(
                VerbsRegionLink.SCRATCH_BYTES, 64)), 0x1000 | self);
        };
    }

    private List<SoftwareNic> queuePairs(final int requester, final int owner)
    {
        return queuePairs.getOrDefault(requester + "->" + owner, List.of());
    }

    @Test
    void theOwnerReachesItsOwnRegionThroughItsLoopbackQueuePair()
    {
        final MemoryFabric owner = fabric(0);
        assertEquals(OpStatus.OK, FabricTestSupport.status(owner, owner.write(0, 8, 42, OP_TIMEOUT_NS)));
        assertEquals(1, queuePairs(0, 0).size(), "the owner's loopback is a queue pair granted by the host");
        assertEquals(1, queuePairs(0, 0).get(0).posted, "the write crossed it");
        try (ShmRegionStore.MappedRegion file = store.createOrOpen(0, DATA_BYTES, DIGEST, KEY))
        {
            assertEquals(42, file.memory().buffer().getLongVolatile(io.mmx.rdma.region.RegionHeader.HEADER_BYTES + 8),
                "and landed in the owner's shm file");
        }
    }

    @Test
    void oneRegistrationPerEdgeReusedByEveryReconnection()
    {
        final MemoryFabric peer = fabric(1);
        assertEquals(0, FabricTestSupport.readOk(peer, 0, 0));
        final int made = hca.registrationsMade();
        final int live = hca.liveRegistrations();
        for (int i = 0; i < 3; i++)
        {
            final List<SoftwareNic> edge = queuePairs(1, 0);
            edge.get(edge.size() - 1).failNext = true;
            assertEquals(OpStatus.TIMEOUT, FabricTestSupport.status(peer, peer.fetchAndAdd(0, 0, 1, OP_TIMEOUT_NS)),
                "a failed queue pair: outcome unknown");
            assertEquals(OpStatus.OK, FabricTestSupport.status(peer, peer.fetchAndAdd(0, 0, 1, OP_TIMEOUT_NS)),
                "reconnected with a new handshake");
        }
        assertEquals(4, queuePairs(1, 0).size(), "a new queue pair per reconnection");
        assertEquals(made, hca.registrationsMade(), "every grant on the edge reused its registration");
        assertEquals(live, hca.liveRegistrations());
        assertEquals(3, FabricTestSupport.readOk(peer, 0, 0), "the failed add never executed; the three others did");
    }

    @Test
    void eachEdgeHasItsOwnKeyAndRevokingOneLeavesTheOthers()
    {
        final MemoryFabric one = fabric(1);
        final MemoryFabric two = fabric(2);
        assertEquals(OpStatus.OK, FabricTestSupport.status(one, one.write(0, 0, 1, OP_TIMEOUT_NS)));
        assertEquals(OpStatus.OK, FabricTestSupport.status(two, two.write(0, 8, 2, OP_TIMEOUT_NS)));
        final int live = hca.liveRegistrations();
        final int made = hca.registrationsMade();

        assertTrue(host.edges().revoke(0, 1));
        assertEquals(live - 1, hca.liveRegistrations(), "only the revoked edge's registration is gone");
        assertEquals(OpStatus.REGION_MISMATCH, FabricTestSupport.status(one, one.read(0, 0, OP_TIMEOUT_NS)),
            "the revoked edge's rkey is dead: remote access error");
        assertEquals(1, FabricTestSupport.readOk(two, 0, 0), "the other edge keeps its key");
        assertEquals(1, FabricTestSupport.readOk(one, 0, 0), "the edge reconnects under a new registration");
        assertEquals(live, hca.liveRegistrations());
        assertEquals(made + 1, hca.registrationsMade());
    }

    @Test
    void aReplacedRegionFileIsServedAnewAndTheOldKeysDie()
    {
        final MemoryFabric one = fabric(1);
        final MemoryFabric two = fabric(2);
        assertEquals(OpStatus.OK, FabricTestSupport.status(one, one.write(0, 0, 5, OP_TIMEOUT_NS)));
        assertEquals(5, FabricTestSupport.readOk(two, 0, 0));

        // The owner's file is deleted and created again (say, by an operator and a restarted owner).
        store.delete(0);
        createRegion(0, DATA_BYTES);
        // Process 1's next handshake (after its queue pair fails) finds the new file: every edge into the
        // old memory loses its registration, so process 2 cannot go on writing the deleted region.
        queuePairs(1, 0).get(0).failNext = true;
        assertEquals(OpStatus.TIMEOUT, FabricTestSupport.status(one, one.read(0, 0, OP_TIMEOUT_NS)));
        assertEquals(0, FabricTestSupport.readOk(one, 0, 0), "the new region");
        assertEquals(OpStatus.REGION_MISMATCH, FabricTestSupport.status(two, two.write(0, 0, 9, OP_TIMEOUT_NS)),
            "edge 2's old rkey is dead");
        assertEquals(OpStatus.OK, FabricTestSupport.status(two, two.write(0, 0, 9, OP_TIMEOUT_NS)));
        assertEquals(9, FabricTestSupport.readOk(one, 0, 0), "both edges reach the same, new region");
    }

    @Test
    void aLeakedKeyIsUselessOnAnotherEdgesQueuePair() throws IOException
    {
        final MemoryFabric one = fabric(1);
        final MemoryFabric two = fabric(2);
        assertEquals(0, FabricTestSupport.readOk(one, 0, 0));
        assertEquals(0, FabricTestSupport.readOk(two, 0, 0));
        final SoftwareNic oneQp = queuePairs(1, 0).get(0);
        final SoftwareNic twoQp = queuePairs(2, 0).get(0);

        // Process 1 asks for its edge once more: the same registration, and the admitted edge is its PD.
        final int cmPort = nextCmPort.getAndIncrement();
        final VerbsHandshake codec = new VerbsHandshake(KEY.processKey(1), DIGEST);
        final long nonce = random.nextLong();
        final byte[] reply = VerbsHandshakeChannel.exchange(host.channel().boundAddress(),
            codec.request(1, 0, cmPort, nonce), HANDSHAKE_TIMEOUT_MS);
        final VerbsHandshake.Grant grant = codec.parseReply(reply, reply.length, 1, 0, nonce);
        assertEquals(OpStatus.OK, grant.status(), grant.message());
        final EdgeRegistrations.EdgeDomain<Integer> edge =
            host.edges().admit(InetAddress.getLoopbackAddress(), cmPort, System.nanoTime());
        assertNotNull(edge);
        assertEquals(1, edge.requester(), "the admitted edge is the granted one");
        assertEquals(0, edge.owner());
        assertEquals(edge.pd().intValue(), hca.registration(grant.rkey()).pd(), "its queue pair goes in its rkey's PD");
        assertNull(host.edges().admit(InetAddress.getLoopbackAddress(), cmPort, System.nanoTime()),
            "one admission per grant");

        // Edge 1's rkey, leaked to process 2, opens nothing on edge 2's queue pair; on its own it works.
        assertEquals(VerbsAbi.IBV_WC_REM_ACCESS_ERR, postCas(twoQp, grant, 0, 99));
        assertEquals(0, FabricTestSupport.readOk(two, 0, 0), "the refused CAS wrote nothing");
        assertEquals(VerbsAbi.IBV_WC_SUCCESS, postCas(oneQp, grant, 0, 7));
        assertEquals(7, FabricTestSupport.readOk(two, 0, 0));
    }

    // Posts one CAS on the granted area's first word through {@code qp}; returns the completion status.
    private static int postCas(final SoftwareNic qp, final VerbsHandshake.Grant grant, final long expected,
        final long desired)
    {
        final UnsafeBuffer scratch = new UnsafeBuffer(BufferUtil.allocateDirectAligned(4096, 64));
        final long wr = SendWorkRequestEncoder.encode(scratch, 0, 77, io.mmx.rdma.fabric.OpType.COMPARE_AND_SWAP,
            scratch.addressOffset() + 1024, 8, 0x1234, grant.remoteBase(), grant.rkey(), expected, desired);
        assertTrue(qp.post(wr));
        final int[] status = {-1};
        assertEquals(1, qp.poll((wrId, wcStatus) -> status[0] = wcStatus, 1));
        return status[0];
    }
}
