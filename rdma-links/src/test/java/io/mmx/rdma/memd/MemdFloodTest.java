package io.mmx.rdma.memd;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.FabricCounters;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.OpType;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.testing.Await;
import org.agrona.IoUtil;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * memd against peers that hold connections open without authenticating, grind bad tags, or go
 * silent: a legitimate client still gets served, in the daemon's JVM and in a child JVM with a
 * 64 MiB heap (which must either serve or exit non-zero, never stay alive and deaf).
 */
class MemdFloodTest
{
    private static final Graph PLAN = Graph.fromEdges(3, new int[]{0}, new int[]{1});
    private static final PlanDigest DIGEST = PlanDigest.ofGraph(PLAN);
    private static final ClusterKey KEY = ClusterKey.ofPassphrase("flood-test-cluster-key-0123456789");
    private static final ClusterKey WRONG = ClusterKey.ofPassphrase("not-the-cluster-key-at-all-0123456789");
    private static final int FLOOD = 2000;
    private static final long SERVED_WITHIN_NS = TimeUnit.SECONDS.toNanos(2);

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final java.util.Map<Process, Path> readyFiles = new java.util.HashMap<>();

    @AfterEach
    void tearDown() throws Exception
    {
        for (int i = toClose.size() - 1; i >= 0; i--)
        {
            toClose.get(i).close();
        }
    }

    @Test
    void floodOfIdleAndHalfSentConnectionsLeavesRoomForAClient() throws Exception
    {
        final MemoryDaemon daemon = MemoryDaemon.start(new MemoryDaemon.Context()
            .listen(new InetSocketAddress("127.0.0.1", 0)).clusterKey(KEY).plan(PLAN));
        toClose.add(daemon);
        final InetSocketAddress address = daemon.boundAddress();
        assertEquals(OpStatus.OK, MemdRegionLink.createRegion(address, KEY, 0, 1024, DIGEST, TimeUnit.SECONDS.toNanos(10)));

        flood(address);
        final long servedNs = legitimateWrite(address, () -> { });
        System.out.println("MemdFloodTest: after " + FLOOD + " idle or half-sent connections a client was served in " +
            TimeUnit.NANOSECONDS.toMicros(servedNs) + " us; connections evicted " +
            daemon.counters().get(FabricCounters.Other.CONNECTION_REFUSED) + ", open " + daemon.connectionCount());
        assertTrue(daemon.counters().get(FabricCounters.Other.CONNECTION_REFUSED) >= FLOOD - 256,
            "the pending limit evicted the oldest: " + daemon.counters());
        assertTrue(daemon.connectionCount() <= 256 + 1, daemon.connectionCount() + " connections held");
    }

    @Test
    void badTagsCloseTheConnectionAfterAFew() throws Exception
    {
        final MemoryDaemon daemon = MemoryDaemon.start(new MemoryDaemon.Context()
            .listen(new InetSocketAddress("127.0.0.1", 0)).clusterKey(KEY).plan(PLAN));
        toClose.add(daemon);
        try (RawMemdClient client = new RawMemdClient(daemon.boundAddress()))
        {
            final ByteBuffer frames = ByteBuffer.allocate(FLOOD * 84);
            for (int i = 0; i < FLOOD; i++)
            {
                frames.put(RawMemdClient.frame(WRONG, client.nonce(), OpType.READ.ordinal(), 1, i + 1, 0, 0, 0, 0, 0,
                    new byte[0]));
            }
            try
            {
                client.sendRaw(frames.array());
            }
            catch (final IOException closedWhileSending)
            {
                // The daemon may close before all 2000 frames are written: that is the point.
            }
            int answered = 0;
            try
            {
                while (true)
                {
                    assertEquals(OpStatus.BAD_CLUSTER_KEY, client.readResponse().status());
                    answered++;
                }
            }
            catch (final IOException closed)
            {
                // EOF or reset: closed by the daemon.
            }
            assertEquals(MemoryDaemon.MAX_BAD_TAGS, answered, "answered, then closed");
        }
        assertEquals(MemoryDaemon.MAX_BAD_TAGS, daemon.counters().get(OpStatus.BAD_CLUSTER_KEY));
    }

    @Test
    void silentAndIdleConnectionsAreClosed() throws Exception
    {
        final MemoryDaemon daemon = MemoryDaemon.start(new MemoryDaemon.Context()
            .listen(new InetSocketAddress("127.0.0.1", 0)).clusterKey(KEY).plan(PLAN)
            .handshakeTimeoutMs(200).idleTimeoutMs(300));
        toClose.add(daemon);
        assertEquals(OpStatus.OK, MemdRegionLink.createRegion(daemon.boundAddress(), KEY, 0, 1024, DIGEST,
            TimeUnit.SECONDS.toNanos(10)));
        try (RawMemdClient silent = new RawMemdClient(daemon.boundAddress());
             RawMemdClient idle = new RawMemdClient(daemon.boundAddress()))
        {
            idle.sendRaw(RawMemdClient.frame(KEY, idle.nonce(), OpType.READ.ordinal(), 0, 1, 0, 0, 0, 0, 0, new byte[0]));
            assertEquals(OpStatus.OK, idle.readResponse().status(), "authenticated");
            assertTrue(silent.closedByPeer(), "no authenticated frame within the handshake timeout");
            assertTrue(idle.closedByPeer(), "silent past the idle timeout");
        }
        Await.until(() -> daemon.connectionCount() == 0, TimeUnit.SECONDS.toNanos(10),
            () -> daemon.connectionCount() + " connections still open");
    }

    @Test
    void underA64MiBHeapTheDaemonServesOrExitsNonZero() throws Exception
    {
        final Path log = Files.createTempFile("mmx-memd-flood-", ".log");
        toClose.add(() -> Files.deleteIfExists(log));
        final Process child = startChild(log, List.of("-Xmx64m"), List.of());
        final InetSocketAddress address = awaitReady(child, log);
        assertEquals(OpStatus.OK, MemdRegionLink.createRegion(address, KEY, 0, 1024, DIGEST, TimeUnit.SECONDS.toNanos(10)));

        flood(address);
        if (child.isAlive())
        {
            final long servedNs = legitimateWrite(address, () ->
            {
                if (!child.isAlive())
                {
                    assertNotEquals(0, child.exitValue(), "a daemon that stops serving exits non-zero");
                    throw new DaemonExited();
                }
            });
            System.out.println("MemdFloodTest: -Xmx64m daemon served a client " +
                TimeUnit.NANOSECONDS.toMicros(servedNs) + " us after the flood");
        }
        else
        {
            assertNotEquals(0, child.waitFor(), "a daemon that stops serving exits non-zero: " + read(log));
            assertTrue(read(log).contains("stopped serving"), read(log));
        }
    }

    @Test
    void anAllocationFailureEndsTheDaemonWithANonZeroExit() throws Exception
    {
        // A budget that lies about the JVM's direct memory: the region's allocation fails in the I/O thread.
        final Path log = Files.createTempFile("mmx-memd-oom-", ".log");
        toClose.add(() -> Files.deleteIfExists(log));
        final Process child = startChild(log, List.of("-Xmx64m", "-XX:MaxDirectMemorySize=4m"),
            List.of("--max-memory", "268435456", "--max-connections", "4", "--max-region-bytes", "33554432"));
        final InetSocketAddress address = awaitReady(child, log);
        final OpStatus status = MemdRegionLink.createRegion(address, KEY, 0, 32 << 20, DIGEST, TimeUnit.SECONDS.toNanos(10));
        assertNotEquals(OpStatus.OK, status);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "memd must exit, not stay alive without serving");
        assertEquals(3, child.exitValue(), read(log));
        assertTrue(read(log).contains("memd: error: stopped serving: its I/O thread failed with java.lang.OutOfMemoryError"),
            read(log));
    }

    private Process startChild(final Path log, final List<String> jvmOptions, final List<String> options)
        throws IOException
    {
        final Path dir = Files.createTempDirectory("mmx-memd-child-");
        toClose.add(() -> IoUtil.delete(dir.toFile(), true));
        final Path keyFile = dir.resolve("cluster.key");
        Files.write(keyFile, "flood-test-cluster-key-0123456789".getBytes(StandardCharsets.UTF_8));
        final Path edges = dir.resolve("plan.edges");
        Files.writeString(edges, "3\n0 1\n");
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:TieredStopAtLevel=1",
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), MemoryDaemon.class.getName(),
            "--listen", "127.0.0.1:0", "--cluster-key-file", keyFile.toString(), "--plan-edges", edges.toString(),
            "--ready-file", dir.resolve("ready").toString()));
        command.addAll(options);
        final Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        toClose.add(() ->
        {
            child.destroyForcibly();
            child.waitFor(30, TimeUnit.SECONDS);
        });
        readyFiles.put(child, dir.resolve("ready"));
        return child;
    }

    private InetSocketAddress awaitReady(final Process child, final Path log) throws IOException
    {
        final Path ready = readyFiles.get(child);
        Await.until(() ->
        {
            if (!child.isAlive())
            {
                throw new AssertionError("memd exited " + child.exitValue() + " before serving: " + read(log));
            }
            return Files.exists(ready);
        }, TimeUnit.SECONDS.toNanos(60), () -> "memd did not start: " + read(log));
        return new InetSocketAddress("127.0.0.1", Integer.parseInt(Files.readString(ready).strip()));
    }

    /** FLOOD connections, alternately silent and stopping halfway through a frame; kept open until the test ends. */
    private void flood(final InetSocketAddress address) throws IOException
    {
        final byte[] halfFrame = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN).putInt(112).put(MemdProtocol.VERSION)
            .array();
        for (int i = 0; i < FLOOD; i++)
        {
            final Socket socket = new Socket();
            toClose.add(socket);
            socket.connect(address, 10_000);
            if ((i & 1) == 1)
            {
                try
                {
                    socket.getOutputStream().write(halfFrame);
                }
                catch (final IOException evicted)
                {
                    // The daemon evicted it already.
                }
            }
        }
    }

    /** Writes through a fresh fabric; returns how long it took to be served, polling with a 2 s deadline. */
    private long legitimateWrite(final InetSocketAddress address, final Runnable check)
    {
        final long startNs = System.nanoTime();
        try (MemoryFabric fabric = new PlanMemoryFabric(ConnectionManager.open(PLAN, 1,
            new MemdLinkFactory((owner) -> address, KEY, DIGEST, 2_000)), SystemNanoClock.INSTANCE))
        {
            final OpStatus[] status = new OpStatus[1];
            while (status[0] != OpStatus.OK)
            {
                status[0] = null;
                final long id = fabric.write(0, 0, 42, SERVED_WITHIN_NS);
                Await.until(() ->
                {
                    check.run();
                    fabric.poll((correlationId, type, owner, s, value) -> status[0] = s, 16);
                    return status[0] != null || id < 0;
                }, 2 * SERVED_WITHIN_NS, () -> "no completion");
                if (id < 0)
                {
                    status[0] = MemoryFabric.rejection(id);
                }
                final long elapsedNs = System.nanoTime() - startNs;
                assertTrue(status[0] == OpStatus.OK || elapsedNs < SERVED_WITHIN_NS,
                    "not served within 2 s of the flood: " + status[0]);
            }
        }
        catch (final DaemonExited exited)
        {
            return -1;
        }
        final long elapsedNs = System.nanoTime() - startNs;
        assertTrue(elapsedNs < SERVED_WITHIN_NS, "served only after " + TimeUnit.NANOSECONDS.toMillis(elapsedNs) + " ms");
        return elapsedNs;
    }

    private static String read(final Path log)
    {
        try
        {
            return Files.exists(log) ? Files.readString(log) : "(no log)";
        }
        catch (final IOException ex)
        {
            return "(unreadable log: " + ex + ")";
        }
    }

    private static final class DaemonExited extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        DaemonExited()
        {
            super(null, null, false, false);
        }
    }
}
