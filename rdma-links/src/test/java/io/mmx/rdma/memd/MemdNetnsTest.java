package io.mmx.rdma.memd;

import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.testing.Await;

import io.mmx.planner.graph.Graph;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.FabricTestSupport;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.region.ClusterKey;
import org.agrona.IoUtil;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.mmx.rdma.fabric.FabricTestSupport.OP_TIMEOUT_NS;
import static io.mmx.rdma.fabric.FabricTestSupport.readOk;
import static io.mmx.rdma.fabric.FabricTestSupport.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * memd as a separate host: the daemon runs in its own JVM inside a network namespace joined to
 * this one by a veth pair; clients here reach it only over that link. Skipped, with the reason,
 * where namespaces cannot be created (needs root and iproute2).
 */
class MemdNetnsTest
{
    private static final Graph PLAN = Graph.fromEdges(3, new int[]{0}, new int[]{1});
    private static final ClusterKey KEY = ClusterKey.ofPassphrase("netns-test-cluster-key-0123456789");

    private final long pid = ProcessHandle.current().pid();
    private final String namespace = "mmx-memd-" + pid;
    private final String vethHere = "mmxh" + (pid % 100_000);
    private final String vethThere = "mmxd" + (pid % 100_000);
    private final String subnet = "10.199." + (pid % 250) + ".";
    private Path directory;
    private Process daemon;
    private boolean namespaceCreated;

    @BeforeEach
    void setUp() throws Exception
    {
        final Result uid = run(List.of("id", "-u"), false);
        Assumptions.assumeTrue(uid.ok() && "0".equals(uid.output()),
            "skipped: creating network namespaces needs root (uid 0), this test runs as uid " + uid.output());
        final Result added = run(List.of("ip", "netns", "add", namespace), false);
        Assumptions.assumeTrue(added.ok(),
            "skipped: 'ip netns add' failed (install iproute2 and run with CAP_SYS_ADMIN): " + added.output());
        namespaceCreated = true;
        run(List.of("ip", "link", "add", vethHere, "type", "veth", "peer", "name", vethThere), true);
        run(List.of("ip", "link", "set", vethThere, "netns", namespace), true);
        run(List.of("ip", "addr", "add", subnet + "2/30", "dev", vethHere), true);
        run(List.of("ip", "link", "set", vethHere, "up"), true);
        run(List.of("ip", "netns", "exec", namespace, "ip", "addr", "add", subnet + "1/30", "dev", vethThere), true);
        run(List.of("ip", "netns", "exec", namespace, "ip", "link", "set", vethThere, "up"), true);
        run(List.of("ip", "netns", "exec", namespace, "ip", "link", "set", "lo", "up"), true);
        directory = Files.createTempDirectory("mmx-netns-");
    }

    @AfterEach
    void tearDown() throws Exception
    {
        if (daemon != null)
        {
            daemon.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (namespaceCreated)
        {
            run(List.of("ip", "link", "del", vethHere), false); // also removes the peer
            run(List.of("ip", "netns", "del", namespace), false);
        }
        if (directory != null)
        {
            IoUtil.delete(directory.toFile(), true);
        }
    }

    @Test
    void clientsReachRegionsOnAnotherHostOnlyThroughTheLink() throws Exception
    {
        final Path keyFile = directory.resolve("cluster.key");
        Files.write(keyFile, "netns-test-cluster-key-0123456789".getBytes(StandardCharsets.UTF_8));
        final Path plan = directory.resolve("plan.edges");
        Files.writeString(plan, "# n, then edges\n3\n0 1\n");
        final Path ready = directory.resolve("memd.port");
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", namespace, java, "-Xmx64m",
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
            MemoryDaemon.class.getName(), "--listen", subnet + "1:0", "--cluster-key-file", keyFile.toString(),
            "--plan-edges", plan.toString(), "--ready-file", ready.toString()));
        daemon = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(directory.resolve("memd.log").toFile()).start();
        Await.until(() ->
        {
            if (!daemon.isAlive())
            {
                fail("memd in namespace exited at start: " + log());
            }
            return Files.exists(ready);
        }, TimeUnit.SECONDS.toNanos(30), () -> "memd in namespace did not start: " + log());
        final InetSocketAddress address = new InetSocketAddress(subnet + "1",
            Integer.parseInt(Files.readString(ready).strip()));
        final PlanDigest digest = PlanDigest.ofGraph(PLAN);

        for (int q = 0; q < 3; q++)
        {
            assertEquals(OpStatus.OK, MemdRegionLink.createRegion(address, KEY, q, 4096, digest,
                TimeUnit.SECONDS.toNanos(5)));
        }
        try (MemoryFabric neighbour = open(1, address, digest);
            MemoryFabric owner = open(0, address, digest);
            MemoryFabric stranger = open(2, address, digest))
        {
            assertEquals(OpStatus.OK, status(neighbour, neighbour.write(0, 8, 40, OP_TIMEOUT_NS)));
            final FabricTestSupport.Completion cas =
                FabricTestSupport.await(owner, owner.compareAndSwap(0, 8, 40, 41, OP_TIMEOUT_NS));
            assertEquals(40, cas.value());
            assertEquals(41, readOk(neighbour, 0, 8));
            assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, status(stranger, stranger.write(0, 8, 0, OP_TIMEOUT_NS)));
        }
        // The region outlives its clients: a fresh client finds the value.
        try (MemoryFabric again = open(1, address, digest))
        {
            assertEquals(41, readOk(again, 0, 8));
        }
        assertTrue(daemon.isAlive());
    }

    private static MemoryFabric open(final int self, final InetSocketAddress address, final PlanDigest digest)
    {
        return new PlanMemoryFabric(ConnectionManager.open(PLAN, self,
            new MemdLinkFactory((owner) -> address, KEY, digest, 2_000)), SystemNanoClock.INSTANCE);
    }

    /** Exit code and combined output of a command; exit -1 if it could not be started. */
    private record Result(int exit, String output)
    {
        boolean ok()
        {
            return exit == 0;
        }
    }

    private static Result run(final List<String> command, final boolean mustSucceed)
        throws IOException, InterruptedException
    {
        final Process p;
        try
        {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        }
        catch (final IOException ex)
        {
            if (mustSucceed)
            {
                throw ex;
            }
            return new Result(-1, command.get(0) + " is not installed (" + ex.getMessage() + ")");
        }
        final String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!p.waitFor(30, TimeUnit.SECONDS))
        {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish in 30 s");
        }
        if (mustSucceed && p.exitValue() != 0)
        {
            throw new IOException(String.join(" ", command) + " failed: " + output);
        }
        return new Result(p.exitValue(), output);
    }

    private String log()
    {
        try
        {
            return Files.readString(directory.resolve("memd.log"));
        }
        catch (final java.io.IOException ex)
        {
            return "(no log: " + ex.getMessage() + ")";
        }
    }
}
