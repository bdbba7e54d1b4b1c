package io.mmx.rdma.memd;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.FabricTestSupport;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.region.ClusterKey;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** memd failures become values: a dead daemon, a silent peer, bad command lines. */
class MemdFailureTest
{
    private static final Graph PLAN = Graph.fromEdges(2, new int[]{0}, new int[]{1});
    private static final PlanDigest DIGEST = PlanDigest.ofGraph(PLAN);
    private static final ClusterKey KEY = ClusterKey.ofPassphrase("failure-test-cluster-key-0123456789");

    @Test
    void aDaemonThatStopsGivesErrorsNotHangs()
    {
        final MemoryDaemon daemon = MemoryDaemon.start(new MemoryDaemon.Context()
            .listen(new InetSocketAddress("127.0.0.1", 0)).clusterKey(KEY).plan(PLAN));
        final InetSocketAddress address = daemon.boundAddress();
        assertEquals(OpStatus.OK, MemdRegionLink.createRegion(address, KEY, 0, 64, DIGEST, TimeUnit.SECONDS.toNanos(5)));
        try (MemoryFabric fabric = new PlanMemoryFabric(ConnectionManager.open(PLAN, 1,
            new MemdLinkFactory((owner) -> address, KEY, DIGEST, 500)), SystemNanoClock.INSTANCE))
        {
            assertEquals(OpStatus.OK, FabricTestSupport.status(fabric, fabric.write(0, 0, 1, FabricTestSupport.OP_TIMEOUT_NS)));
            daemon.close();
            final OpStatus after = FabricTestSupport.status(fabric,
                fabric.compareAndSwap(0, 0, 1, 2, TimeUnit.MILLISECONDS.toNanos(500)));
            assertTrue(after == OpStatus.NOT_CONNECTED || after == OpStatus.TIMEOUT, "got " + after);
        }
    }

    @Test
    void theConnectionLimitComesFromTheMemoryBudget()
    {
        final long mib64 = 64L << 20;
        final MemoryDaemon.Context derived = new MemoryDaemon.Context().clusterKey(KEY).plan(PLAN).memoryBytes(mib64)
            .conclude();
        assertEquals(mib64 / 4 / MemoryDaemon.CONNECTION_BUFFER_BYTES, derived.maxConnections(),
            "a quarter of the budget in connection buffers");
        assertEquals(1024, new MemoryDaemon.Context().clusterKey(KEY).plan(PLAN).memoryBytes(64L << 30).conclude()
            .maxConnections(), "at most 1024");
        final int tooMany = (int)(mib64 / 2 / MemoryDaemon.CONNECTION_BUFFER_BYTES) + 1;
        final IllegalArgumentException refused = org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> new MemoryDaemon.Context().clusterKey(KEY).plan(PLAN)
            .memoryBytes(mib64).maxConnections(tooMany).conclude());
        assertTrue(refused.getMessage().contains("--max-connections " + tooMany + " need") &&
            refused.getMessage().contains("more than half of the memory budget"), refused.getMessage());
    }

    @Test
    void aFailureBesideTheIoThreadStopsTheDaemonWithThatCause() throws Exception
    {
        // What memd's verbs mode does when its region host fails: the daemon stops, not half-served.
        final MemoryDaemon daemon = MemoryDaemon.start(new MemoryDaemon.Context()
            .listen(new InetSocketAddress("127.0.0.1", 0)).clusterKey(KEY).plan(PLAN));
        final InetSocketAddress address = daemon.boundAddress();
        try (Socket client = new Socket())
        {
            client.connect(address, 5_000);
            final IllegalStateException cause = new IllegalStateException("the verbs region host failed");
            daemon.stopServing(cause);
            assertEquals(cause, daemon.awaitTermination());
            client.setSoTimeout(10_000);
            awaitClosedByPeer(client);
        }
        assertEquals(OpStatus.NOT_CONNECTED, MemdRegionLink.createRegion(address, KEY, 0, 64, DIGEST,
            TimeUnit.SECONDS.toNanos(2)), "the port is closed");
    }

    @Test
    void aPeerThatNeverAnswersIsNotConnectedWithinTheConnectTimeout() throws Exception
    {
        try (ServerSocket silent = new ServerSocket(0, 10, java.net.InetAddress.getLoopbackAddress()))
        {
            final InetSocketAddress address = new InetSocketAddress("127.0.0.1", silent.getLocalPort());
            final long startNs = System.nanoTime();
            final MemdRegionLink link = new MemdRegionLink(KEY.processKey(1), 0, address, DIGEST, 300);
            final long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
            try (Socket ignored = silent.accept())
            {
                assertEquals(OpStatus.NOT_CONNECTED, link.state());
                assertTrue(link.stateMessage().contains("cannot reach memd"), link.stateMessage());
                // Catches a handshake that waits for ever (the peer never answers), with headroom for a busy machine.
                assertTrue(tookMs < 30_000, "the handshake must give up after the connect timeout, took " + tookMs);
            }
            link.close();
        }
    }

    @Test
    void badCommandLinesFailWithOneSentence()
    {
        assertUsageError(new String[]{"--listen", "127.0.0.1:0"}, "--cluster-key-file");
        assertUsageError(withFiles("--listen", "nonsense"), "not HOST:PORT");
        assertUsageError(new String[]{"--frobnicate", "1"}, "Unknown options: '--frobnicate'");
        assertUsageError(new String[]{"--cluster-key-file", "/nonexistent/key", "--plan-edges", "/nonexistent/edges"},
            "cannot read cluster key file /nonexistent/key");
    }

    @Test
    void outOfRangeNumbersAreRefusedNamingTheOption()
    {
        assertUsageError(withFiles("--max-regions", "-1"), "--max-regions -1 is out of range");
        assertUsageError(withFiles("--max-regions", "0"), "--max-regions 0 is out of range");
        assertUsageError(withFiles("--max-connections", "-1"), "--max-connections -1 is out of range");
        assertUsageError(withFiles("--max-pending-connections", "0"), "--max-pending-connections 0 is out of range");
        assertUsageError(withFiles("--idle-timeout-ms", "-5"), "--idle-timeout-ms -5 is out of range");
        assertUsageError(withFiles("--max-region-bytes", "4"), "--max-region-bytes 4 is out of range");
        assertUsageError(withFiles("--max-memory", "0"), "--max-memory 0 is out of range");
        assertUsageError(withFiles("--max-regions", "99999999999"), "'--max-regions': '99999999999' is not an int");
    }

    @Test
    void aPortInUseExitsThreeNamingThePortAndTheFix(@TempDir final Path dir) throws Exception
    {
        final Path key = dir.resolve("cluster.key");
        Files.write(key, new byte[32]);
        final Path edges = dir.resolve("plan.edges");
        Files.writeString(edges, "2\n0 1\n");
        try (ServerSocket taken = new ServerSocket(0, 10, java.net.InetAddress.getLoopbackAddress()))
        {
            final int port = taken.getLocalPort();
            final ByteArrayOutputStream err = new ByteArrayOutputStream();
            final int code = MemdCommandLine.run(new String[]{"--listen", "127.0.0.1:" + port,
                "--cluster-key-file", key.toString(), "--plan-edges", edges.toString()},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
            final String message = err.toString(StandardCharsets.UTF_8);
            assertEquals(3, code, message);
            assertTrue(message.contains("port " + port + " is already in use"), message);
            assertTrue(message.contains("--listen"), message);
            assertEquals(1, message.strip().lines().count(), "one line: " + message);
        }
    }

    // The options with a valid key file and plan, so that only the ones given can be wrong.
    private static String[] withFiles(final String... options)
    {
        try
        {
            final Path dir = Files.createTempDirectory("mmx-memd-args-");
            dir.toFile().deleteOnExit();
            final Path key = Files.write(dir.resolve("cluster.key"), new byte[32]);
            final Path edges = Files.writeString(dir.resolve("plan.edges"), "2\n0 1\n");
            key.toFile().deleteOnExit();
            edges.toFile().deleteOnExit();
            final String[] args = java.util.Arrays.copyOf(options, options.length + 4);
            args[options.length] = "--cluster-key-file";
            args[options.length + 1] = key.toString();
            args[options.length + 2] = "--plan-edges";
            args[options.length + 3] = edges.toString();
            return args;
        }
        catch (final java.io.IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    // Reads past the HELLO to the end: an orderly close or a reset (unread bytes) both mean closed; a
    // connection left open fails the test with the socket's read timeout.
    private static void awaitClosedByPeer(final Socket socket) throws java.io.IOException
    {
        try
        {
            while (socket.getInputStream().read() >= 0)
            {
                continue;
            }
        }
        catch (final java.net.SocketTimeoutException open)
        {
            throw new AssertionError("the daemon left the connection open", open);
        }
        catch (final java.net.SocketException reset)
        {
            // closed with a reset: as good as an orderly close here
        }
    }

    private static void assertUsageError(final String[] args, final String expected)
    {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = MemdCommandLine.run(args, new PrintStream(new ByteArrayOutputStream()),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        final String message = err.toString(StandardCharsets.UTF_8);
        assertEquals(2, code, message);
        assertTrue(message.contains(expected), message);
        assertEquals(1, message.strip().lines().count(), "one line: " + message);
    }
}
