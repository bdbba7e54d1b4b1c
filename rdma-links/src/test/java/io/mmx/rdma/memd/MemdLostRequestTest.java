package io.mmx.rdma.memd;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.FabricTestSupport;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.region.ClusterKey;
import org.agrona.CloseHelper;
import io.mmx.rdma.testing.Await;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A request that memd read but never answered, lost when its connection fails: the link must
 * complete it (NOT_CONNECTED), exactly once, because the fabric's fence on a timed-out operation
 * lifts only when that operation completes. A proxy between the link and a real memd swallows
 * the request, then cuts the connection.
 */
class MemdLostRequestTest
{
    private static final Graph PLAN = Graph.fromEdges(2, new int[]{0}, new int[]{1});
    private static final PlanDigest DIGEST = PlanDigest.ofGraph(PLAN);
    private static final ClusterKey KEY = ClusterKey.ofPassphrase("lost-request-test-cluster-key-0123456789");
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(20);

    @Test
    void aRequestLostWithItsConnectionCompletesOnceAndLiftsTheFence() throws Exception
    {
        final MemoryDaemon daemon = MemoryDaemon.start(new MemoryDaemon.Context()
            .listen(new InetSocketAddress("127.0.0.1", 0)).clusterKey(KEY).plan(PLAN));
        try (CuttingProxy proxy = new CuttingProxy(daemon.boundAddress()))
        {
            assertEquals(OpStatus.OK, MemdRegionLink.createRegion(daemon.boundAddress(), KEY, 0, 64, DIGEST,
                TimeUnit.SECONDS.toNanos(5)));
            try (MemoryFabric fabric = new PlanMemoryFabric(ConnectionManager.open(PLAN, 1,
                new MemdLinkFactory((owner) -> proxy.address(), KEY, DIGEST, 2000)), SystemNanoClock.INSTANCE))
            {
                assertEquals(OpStatus.OK, FabricTestSupport.status(fabric,
                    fabric.write(0, 0, 7, FabricTestSupport.OP_TIMEOUT_NS)), "a write through the proxy");

                // memd never sees the next request; it times out and fences the region.
                proxy.swallow();
                final long swallowedBefore = proxy.swallowedBytes();
                final long lost = fabric.compareAndSwap(0, 0, 7, 8, TimeUnit.MILLISECONDS.toNanos(200));
                assertEquals(OpStatus.TIMEOUT, FabricTestSupport.status(fabric, lost), "the swallowed CAS");
                Await.until(() -> proxy.swallowedBytes() != swallowedBefore, DEADLINE_NS,
                    () -> "the CAS never left the link");
                assertEquals(OpStatus.FENCED, FabricTestSupport.status(fabric,
                    fabric.read(0, 0, FabricTestSupport.OP_TIMEOUT_NS)), "the region is fenced while the CAS is out");

                // The connection fails: the link completes the lost CAS late, and the fence lifts.
                proxy.cutAndForwardAgain();
                final long lateBefore = fabric.counters().get(io.mmx.rdma.fabric.FabricCounters.Other.LATE_COMPLETION);
                final OpStatus[] after = {OpStatus.FENCED};
                Await.until(() ->
                {
                    after[0] = FabricTestSupport.status(fabric, fabric.read(0, 0, FabricTestSupport.OP_TIMEOUT_NS));
                    return after[0] == OpStatus.OK;
                }, DEADLINE_NS, () -> "the region stayed unusable after its connection failed: last status " + after[0]);
                assertEquals(7, FabricTestSupport.readOk(fabric, 0, 0), "the lost CAS never landed");
                assertEquals(1, fabric.counters().get(io.mmx.rdma.fabric.FabricCounters.Other.LATE_COMPLETION) -
                    lateBefore, "the lost CAS completed exactly once");
            }
        }
        finally
        {
            daemon.close();
        }
    }

    /** Forwards TCP to memd; can swallow what the client sends, and cut every open connection. */
    private static final class CuttingProxy implements AutoCloseable
    {
        private final ServerSocket server;
        private final InetSocketAddress target;
        private final AtomicBoolean swallowing = new AtomicBoolean();
        private final AtomicLong swallowed = new AtomicLong();
        private final List<Socket> open = new ArrayList<>();
        private final Thread acceptor;

        CuttingProxy(final InetSocketAddress target) throws IOException
        {
            this.target = target;
            this.server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
            this.acceptor = new Thread(this::acceptLoop, "cutting-proxy-accept");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        InetSocketAddress address()
        {
            return new InetSocketAddress("127.0.0.1", server.getLocalPort());
        }

        void swallow()
        {
            swallowing.set(true);
        }

        long swallowedBytes()
        {
            return swallowed.get();
        }

        /** Closes every connection so far; new connections are forwarded in full. */
        void cutAndForwardAgain()
        {
            synchronized (open)
            {
                swallowing.set(false);
                open.forEach(CloseHelper::quietClose);
                open.clear();
            }
        }

        private void acceptLoop()
        {
            while (!server.isClosed())
            {
                try
                {
                    final Socket client = server.accept();
                    final Socket upstream = new Socket(target.getAddress(), target.getPort());
                    synchronized (open)
                    {
                        open.add(client);
                        open.add(upstream);
                    }
                    pump(client, upstream, true);
                    pump(upstream, client, false);
                }
                catch (final IOException ex)
                {
                    return; // closed
                }
            }
        }

        private void pump(final Socket from, final Socket to, final boolean fromClient)
        {
            final Thread t = new Thread(() ->
            {
                final byte[] buffer = new byte[8192];
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream())
                {
                    int n;
                    while ((n = in.read(buffer)) >= 0)
                    {
                        if (fromClient && swallowing.get())
                        {
                            swallowed.addAndGet(n);
                            continue;
                        }
                        out.write(buffer, 0, n);
                        out.flush();
                    }
                }
                catch (final IOException ex)
                {
                    // the other side closed, or the test cut the connection
                }
                finally
                {
                    CloseHelper.quietClose(from);
                    CloseHelper.quietClose(to);
                }
            }, "cutting-proxy-pump");
            t.setDaemon(true);
            t.start();
        }

        @Override
        public void close() throws IOException
        {
            server.close();
            cutAndForwardAgain();
        }
    }
}
