package io.mmx.rdma.verbs;

import io.mmx.planner.graph.Graph;
import io.mmx.rdma.fabric.FabricCounters;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.region.ClusterKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;

import static io.mmx.rdma.verbs.VerbsHandshakeTest.KEY;
import static io.mmx.rdma.verbs.VerbsHandshakeTest.PLAN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The handshake over its TCP side channel, end to end on loopback: the state machine of the
 * requester, the channel, and the host's acceptor, with only the rdma_cm events simulated.
 */
class VerbsHandshakeChannelTest
{
    private static final Graph PATH = Graph.fromEdges(3, new int[]{0, 1}, new int[]{1, 2});
    private static final int CM_PORT = 40123;

    private final FabricCounters counters = new FabricCounters();
    private final VerbsEdgeAcceptor acceptor = new VerbsEdgeAcceptor(PATH, PLAN, KEY,
        new FakeRegions((owner, requester) -> new VerbsEdgeAcceptor.Registration(0x4000_0000L + owner * 4096L,
        0x300 + owner, 4096)), counters,
        1024, 5_000_000_000L);
    private final VerbsHandshakeChannel host = VerbsHandshakeChannel.serve(
        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
        (request, length, from) ->
        {
            synchronized (acceptor)
            {
                return acceptor.onRequest(request, length, from.getAddress(), 0).reply();
            }
        }, 2000);

    @AfterEach
    void close()
    {
        host.close();
    }

    private VerbsConnectAttempt connect(final int self, final int owner, final ClusterKey key)
    {
        return connect(self, owner, key, 1000L + self);
    }

    private VerbsConnectAttempt connect(final int self, final int owner, final ClusterKey key, final long nonce)
    {
        return LoopbackAttempt.run(self, owner, new VerbsHandshake(key, PLAN), nonce, host.boundAddress(), CM_PORT,
            5000, () -> { });
    }

    @Test
    void aNeighbourGetsItsGrantAndTheHostAdmitsItsConnection()
    {
        final VerbsConnectAttempt a = connect(1, 2, KEY);
        assertEquals(VerbsConnectAttempt.State.CONNECTING, a.state(), a.message());
        assertEquals(0x302, a.grant().rkey());
        assertEquals(0x4000_0000L + 2 * 4096L, a.grant().remoteBase());
        a.onCmEvent(CmEvent.ESTABLISHED, System.nanoTime());
        assertEquals(OpStatus.OK, a.status());
        synchronized (acceptor)
        {
            assertNotNull(acceptor.admit(InetAddress.getLoopbackAddress(), CM_PORT, 1));
        }
    }

    @Test
    void aNonNeighbourIsRefusedOverTheWireAndNothingIsAdmitted()
    {
        final VerbsConnectAttempt a = connect(0, 2, KEY);
        assertEquals(VerbsConnectAttempt.State.REFUSED, a.state());
        assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, a.status());
        assertTrue(a.message().contains("process 0") && a.message().contains("plan neighbour of process 2"),
            a.message());
        synchronized (acceptor)
        {
            assertEquals(null, acceptor.admit(InetAddress.getLoopbackAddress(), CM_PORT, 1));
            assertEquals(1, counters.get(OpStatus.REFUSED_NOT_NEIGHBOUR));
        }
    }

    @Test
    void aWrongKeyIsRefusedOverTheWire()
    {
        final VerbsConnectAttempt a = connect(1, 2, ClusterKey.ofPassphrase("a key from another cluster"));
        assertEquals(OpStatus.BAD_CLUSTER_KEY, a.status(), a.message());
        synchronized (acceptor)
        {
            assertEquals(1, counters.get(OpStatus.BAD_CLUSTER_KEY));
        }
    }

    @Test
    void garbledOrShortRequestsGetNoReply() throws Exception
    {
        assertThrows(IOException.class, () -> VerbsHandshakeChannel.exchange(host.boundAddress(), new byte[VerbsHandshake.REQUEST_LENGTH], 2000));
        try (Socket s = new Socket())
        {
            s.connect(host.boundAddress(), 2000);
            s.setSoTimeout(2000);
            s.getOutputStream().write(new VerbsHandshake(KEY, PLAN).request(1, 2, CM_PORT, 5), 0, 20);
            s.shutdownOutput();
            assertEquals(-1, s.getInputStream().read(), "closed without a reply");
        }
        synchronized (acceptor)
        {
            assertEquals(2, counters.get(FabricCounters.Other.MALFORMED_FRAME));
        }
    }

    @Test
    void silentPeersDoNotDelayOthersAndAreClosedAtTheirTimeout() throws Exception
    {
        final java.util.List<Socket> silent = new java.util.ArrayList<>();
        try
        {
            openIdleOrHalfSent(64, silent);
            // 16 requesters at once, behind 64 silent peers: each is served well within one I/O timeout.
            final long startNs = System.nanoTime();
            final java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(16);
            try
            {
                final java.util.List<java.util.concurrent.Future<VerbsConnectAttempt>> attempts = new java.util.ArrayList<>();
                for (int i = 0; i < 16; i++)
                {
                    final long nonce = 5000L + i;
                    attempts.add(pool.submit(() -> connect(1, 2, KEY, nonce)));
                }
                for (final java.util.concurrent.Future<VerbsConnectAttempt> attempt : attempts)
                {
                    final VerbsConnectAttempt a = attempt.get(30, java.util.concurrent.TimeUnit.SECONDS);
                    assertEquals(VerbsConnectAttempt.State.CONNECTING, a.state(), a.message());
                }
            }
            finally
            {
                pool.shutdownNow();
            }
            final long servedMs = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
            System.out.println("VerbsHandshakeChannelTest: 16 concurrent exchanges behind 64 silent peers took " +
                servedMs + " ms (I/O timeout 2000 ms)");
            assertTrue(servedMs < 2000, "served only after " + servedMs + " ms: silent peers delayed them");
            for (final Socket s : silent)
            {
                s.setSoTimeout(10_000);
                assertEquals(-1, s.getInputStream().read(), "a silent peer is closed at its timeout, without a reply");
            }
            io.mmx.rdma.testing.Await.until(() -> host.openConnections() == 0, 10_000_000_000L,
                () -> host.openConnections() + " handshake connections still open");
        }
        finally
        {
            for (final Socket s : silent)
            {
                s.close();
            }
        }
    }

    @Test
    void aFloodOf2000IdleOrHalfSentConnectionsLeavesRoomForAnExchange() throws Exception
    {
        final java.util.List<Socket> flood = new java.util.ArrayList<>();
        try
        {
            openIdleOrHalfSent(2000, flood);
            final long startNs = System.nanoTime();
            final VerbsConnectAttempt a = connect(1, 2, KEY, 7000L);
            final long servedMs = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
            System.out.println("VerbsHandshakeChannelTest: after 2000 idle or half-sent connections an exchange took " +
                servedMs + " ms; " + host.openConnections() + " handshake connections open (at most " +
                VerbsHandshakeChannel.MAX_CONNECTIONS + ")");
            assertEquals(VerbsConnectAttempt.State.CONNECTING, a.state(), a.message());
            assertTrue(servedMs < 2000, "served only after " + servedMs + " ms");
            assertTrue(host.openConnections() <= VerbsHandshakeChannel.MAX_CONNECTIONS, host.openConnections() + " open");
        }
        finally
        {
            for (final Socket s : flood)
            {
                s.close();
            }
        }
    }

    // Half of them send nothing, the other half half a request; all are kept open by the caller.
    private void openIdleOrHalfSent(final int count, final java.util.List<Socket> into) throws IOException
    {
        for (int i = 0; i < count; i++)
        {
            final Socket s = new Socket();
            into.add(s);
            s.connect(host.boundAddress(), 10_000);
            if ((i & 1) == 1)
            {
                s.getOutputStream().write(new byte[10]);
            }
        }
    }

    @Test
    void anUnreachableHostFailsTheAttemptWithTheAddress() throws Exception
    {
        final InetSocketAddress closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            closed = (InetSocketAddress)s.getLocalSocketAddress();
        }
        final IOException ex = assertThrows(IOException.class,
            () -> VerbsHandshakeChannel.exchange(closed, new byte[VerbsHandshake.REQUEST_LENGTH], 2000));
        assertNotNull(ex.getMessage());
    }
}
