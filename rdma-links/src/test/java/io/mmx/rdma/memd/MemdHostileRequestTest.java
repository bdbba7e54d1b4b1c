package io.mmx.rdma.memd;

import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.testing.Await;

import io.mmx.planner.graph.Graph;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.FabricCounters;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.OpType;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.RegionHeader;
import io.mmx.rdma.region.RegionMemory;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static io.mmx.rdma.fabric.FabricTestSupport.OP_TIMEOUT_NS;
import static io.mmx.rdma.fabric.FabricTestSupport.readOk;
import static io.mmx.rdma.fabric.FabricTestSupport.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * memd under hostile input: random bytes, truncated frames, lying lengths, wrong keys, replays,
 * non-neighbours, a connection flood. After each, the daemon must still serve a legitimate
 * client, must have counted the refusal, and must not have written region 0.
 */
class MemdHostileRequestTest
{
    private static final Graph PLAN = Graph.fromEdges(3, new int[]{0}, new int[]{1});
    private static final PlanDigest DIGEST = PlanDigest.ofGraph(PLAN);
    private static final ClusterKey KEY = ClusterKey.ofPassphrase("hostile-test-cluster-key-0123456789");
    private static final ClusterKey WRONG = ClusterKey.ofPassphrase("not-the-cluster-key-at-all-0123456789");
    private static final long DATA_BYTES = 1024;
    private static final int WRITE = OpType.WRITE.ordinal();

    private MemoryDaemon daemon;
    private InetSocketAddress address;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void setUp()
    {
        daemon = MemoryDaemon.start(new MemoryDaemon.Context()
            .listen(new InetSocketAddress("127.0.0.1", 0)).clusterKey(KEY).plan(PLAN).maxConnections(32).maxPendingConnections(32));
        address = daemon.boundAddress();
        for (int q = 0; q < 3; q++)
        {
            assertEquals(OpStatus.OK, MemdRegionLink.createRegion(address, KEY, q, DATA_BYTES, DIGEST,
                TimeUnit.SECONDS.toNanos(5)));
        }
    }

    @AfterEach
    void tearDown() throws Exception
    {
        for (final AutoCloseable c : toClose)
        {
            c.close();
        }
        daemon.close();
    }

    private RawMemdClient raw() throws IOException
    {
        final RawMemdClient client = new RawMemdClient(address);
        toClose.add(client);
        return client;
    }

    @Test
    void randomBytesAreDroppedAndCounted() throws Exception
    {
        final long seed = System.nanoTime();
        System.out.println("randomBytesAreDroppedAndCounted seed=" + seed);
        final Random random = new Random(seed);
        for (int i = 0; i < 20; i++)
        {
            try (RawMemdClient client = new RawMemdClient(address))
            {
                final byte[] junk = new byte[1 + random.nextInt(4000)];
                random.nextBytes(junk);
                client.sendRaw(junk);
            }
        }
        assertDaemonHealthyAndRegionUntouched();
        assertTrue(daemon.counters().get(FabricCounters.Other.MALFORMED_FRAME) +
            daemon.counters().get(OpStatus.BAD_CLUSTER_KEY) > 0, "seed " + seed + ": " + daemon.counters());
    }

    @Test
    void oversizedAndUndersizedLengthsCloseTheConnection() throws Exception
    {
        for (final int length : new int[]{Integer.MAX_VALUE, -1, MemdProtocol.MAX_REQUEST + 1, 3, 0})
        {
            final RawMemdClient client = raw();
            client.sendRaw(ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN).putInt(length).array());
            assertTrue(client.closedByPeer(), "length " + length + " must close the connection");
        }
        assertEquals(5, daemon.counters().get(FabricCounters.Other.MALFORMED_FRAME));
        assertDaemonHealthyAndRegionUntouched();
    }

    @Test
    void badVersionClosesTheConnection() throws Exception
    {
        final RawMemdClient client = raw();
        final byte[] frame = RawMemdClient.frame(KEY, client.nonce(), WRITE, 1, 1, 0, 0, 0, 7, 0, new byte[0]);
        frame[MemdProtocol.LENGTH_PREFIX] = 99;
        client.sendRaw(frame);
        assertTrue(client.closedByPeer());
        assertDaemonHealthyAndRegionUntouched();
    }

    @Test
    void truncatedFrameIsNeverExecuted() throws Exception
    {
        try (RawMemdClient client = new RawMemdClient(address))
        {
            final byte[] frame = RawMemdClient.frame(KEY, client.nonce(), WRITE, 1, 1, 0, 0, 0, 7, 0, new byte[0]);
            client.sendRaw(java.util.Arrays.copyOf(frame, frame.length - 1));
        }
        awaitCounter(FabricCounters.Other.MALFORMED_FRAME, 1);
        assertDaemonHealthyAndRegionUntouched();
    }

    @Test
    void wrongKeyIsRefused() throws Exception
    {
        final RawMemdClient client = raw();
        client.sendRaw(RawMemdClient.frame(WRONG, client.nonce(), WRITE, 1, 1, 0, 0, 0, 7, 0, new byte[0]));
        assertEquals(OpStatus.BAD_CLUSTER_KEY, client.readResponse().status());
        final byte[] tampered = RawMemdClient.frame(KEY, client.nonce(), WRITE, 1, 2, 0, 0, 0, 7, 0, new byte[0]);
        tampered[MemdProtocol.LENGTH_PREFIX + MemdProtocol.REQ_OPERAND1] ^= 1; // flip one bit after tagging
        client.sendRaw(tampered);
        assertEquals(OpStatus.BAD_CLUSTER_KEY, client.readResponse().status());
        assertEquals(2, daemon.counters().get(OpStatus.BAD_CLUSTER_KEY));
        assertDaemonHealthyAndRegionUntouched();
    }

    @Test
    void replaysAreRefused() throws Exception
    {
        final RawMemdClient client = raw();
        // A harmless read, replayed on the same connection and on another one.
        final byte[] frame = RawMemdClient.frame(KEY, client.nonce(), OpType.READ.ordinal(), 1, 5, 0, 0, 0, 0, 0,
            new byte[0]);
        client.sendRaw(frame);
        assertEquals(OpStatus.OK, client.readResponse().status());
        client.sendRaw(frame);
        assertEquals(OpStatus.PROTOCOL_ERROR, client.readResponse().status());
        assertEquals(1, daemon.counters().get(FabricCounters.Other.REPLAYED_REQUEST));

        final RawMemdClient other = raw();
        other.sendRaw(frame);
        assertEquals(OpStatus.BAD_CLUSTER_KEY, other.readResponse().status(), "another connection has another nonce");
        assertDaemonHealthyAndRegionUntouched();
    }

    @Test
    void nonNeighboursAndStrangersAreRefusedAndCounted() throws Exception
    {
        final RawMemdClient client = raw();
        client.sendRaw(RawMemdClient.frame(KEY, client.nonce(), WRITE, 2, 1, 0, 0, 0, 7, 0, new byte[0]));
        assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, client.readResponse().status());
        final RawMemdClient stranger = raw();
        stranger.sendRaw(RawMemdClient.frame(KEY, stranger.nonce(), WRITE, 999, 1, 0, 0, 0, 7, 0, new byte[0]));
        assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, stranger.readResponse().status());
        final RawMemdClient creator = raw();
        creator.sendRaw(RawMemdClient.frame(KEY, creator.nonce(), MemdProtocol.OP_CREATE_REGION, 1, 1, 2, 0, 0,
            DATA_BYTES, 0, DIGEST.toByteArray()));
        assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, creator.readResponse().status(), "only the owner creates");
        assertEquals(3, daemon.counters().get(OpStatus.REFUSED_NOT_NEIGHBOUR));
        assertDaemonHealthyAndRegionUntouched();
    }

    @Test
    void lyingLengthsAndBadAddressesAreRefused() throws Exception
    {
        final RawMemdClient client = raw();
        long id = 1;
        // Bulk length says 100, payload has 8 bytes.
        client.sendRaw(RawMemdClient.frame(KEY, client.nonce(), OpType.WRITE_BULK.ordinal(), 1, id++, 0, 100, 0, 0, 0,
            new byte[8]));
        assertEquals(OpStatus.PROTOCOL_ERROR, client.readResponse().status());
        // A read asking for 2 GiB.
        client.sendRaw(RawMemdClient.frame(KEY, client.nonce(), OpType.READ_BULK.ordinal(), 1, id++, 0,
            Integer.MAX_VALUE, 0, 0, 0, new byte[0]));
        assertEquals(OpStatus.BAD_LENGTH, client.readResponse().status());
        client.sendRaw(RawMemdClient.frame(KEY, client.nonce(), WRITE, 1, id++, 0, 0, DATA_BYTES, 7, 0, new byte[0]));
        assertEquals(OpStatus.OUT_OF_BOUNDS, client.readResponse().status());
        client.sendRaw(RawMemdClient.frame(KEY, client.nonce(), WRITE, 1, id++, 0, 0, Long.MIN_VALUE, 7, 0,
            new byte[0]));
        assertEquals(OpStatus.OUT_OF_BOUNDS, client.readResponse().status());
        client.sendRaw(RawMemdClient.frame(KEY, client.nonce(), WRITE, 1, id++, 0, 0, 12, 7, 0, new byte[0]));
        assertEquals(OpStatus.MISALIGNED, client.readResponse().status());
        client.sendRaw(RawMemdClient.frame(KEY, client.nonce(), 77, 1, id++, 0, 0, 0, 7, 0, new byte[0]));
        assertEquals(OpStatus.PROTOCOL_ERROR, client.readResponse().status(), "unknown op");
        assertDaemonHealthyAndRegionUntouched();
    }

    @Test
    void connectionFloodIsBoundedAndCounted() throws Exception
    {
        final List<java.net.Socket> sockets = new ArrayList<>();
        try
        {
            for (int i = 0; i < 40; i++)
            {
                final java.net.Socket s = new java.net.Socket();
                s.connect(address, 2_000);
                sockets.add(s);
            }
            awaitCounter(FabricCounters.Other.CONNECTION_REFUSED, 8);
        }
        finally
        {
            for (final java.net.Socket s : sockets)
            {
                s.close();
            }
        }
        Await.until(() -> daemon.connectionCount() == 0, TimeUnit.SECONDS.toNanos(10),
            () -> daemon.connectionCount() + " connections still open after the clients closed theirs");
        assertDaemonHealthyAndRegionUntouched();
    }

    private void awaitCounter(final FabricCounters.Other counter, final long atLeast)
    {
        Await.until(() -> daemon.counters().get(counter) >= atLeast, TimeUnit.SECONDS.toNanos(10),
            () -> counter + " stayed below " + atLeast + ": " + daemon.counters());
    }

    private void assertDaemonHealthyAndRegionUntouched()
    {
        try (MemoryFabric fabric = new PlanMemoryFabric(ConnectionManager.open(PLAN, 1,
            new MemdLinkFactory((owner) -> address, KEY, DIGEST, 2_000)), SystemNanoClock.INSTANCE))
        {
            assertEquals(0, readOk(fabric, 0, 0), "daemon still serves");
            assertEquals(OpStatus.OK, status(fabric, fabric.write(1, 0, 5, OP_TIMEOUT_NS)));
        }
        final RegionMemory region = daemon.region(0);
        for (int i = 0; i < DATA_BYTES; i += 8)
        {
            assertEquals(0, region.buffer().getLongVolatile(RegionHeader.HEADER_BYTES + i),
                "hostile input wrote region 0 at offset " + i);
        }
    }
}
