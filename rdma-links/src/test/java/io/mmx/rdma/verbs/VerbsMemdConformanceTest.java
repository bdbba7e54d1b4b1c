package io.mmx.rdma.verbs;

import io.mmx.planner.graph.Graph;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.MemoryFabricConformanceTest;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.memd.MemoryDaemon;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.PlanDigest;
import io.mmx.rdma.shm.ShmRegionStore;
import io.mmx.rdma.testing.Await;
import org.agrona.IoUtil;
import org.agrona.concurrent.SystemNanoClock;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The conformance suite on the path a node uses on verbs: regions are shm files created by their
 * owners (this JVM), registered and served over RDMA by memd in verbs mode in another process, and
 * reached through queue pairs, the owner's loopback included. Needs an RDMA NIC (or soft-RoCE),
 * libdisni and {@code MMX_VERBS_IP}; skipped with the reason otherwise.
 */
class VerbsMemdConformanceTest extends MemoryFabricConformanceTest
{
    private Path directory;
    private ShmRegionStore store;
    private Process memd;
    private InetSocketAddress cm;

    @Override
    protected void setUpBackend() throws Exception
    {
        final VerbsPreflight.Result preflight = VerbsPreflight.check();
        assumeTrue(preflight.ok(), preflight.message());
        final String ip = System.getenv("MMX_VERBS_IP");
        assumeTrue(ip != null, "set MMX_VERBS_IP to the IP of this host's RDMA interface (RoCE or IPoIB) to run " +
            "the conformance suite over verbs through memd");
        cm = new InetSocketAddress(ip, Integer.parseInt(System.getenv().getOrDefault("MMX_VERBS_PORT", "7471")));
        directory = Files.createTempDirectory("mmx-verbs-memd-");
        store = new ShmRegionStore(directory.resolve("regions"));
        Files.write(directory.resolve("cluster.key"), "conformance-cluster-key-0123456789".getBytes(StandardCharsets.UTF_8));
        final StringBuilder edges = new StringBuilder().append(PLAN.n()).append('\n');
        for (int u = 0; u < PLAN.n(); u++)
        {
            for (int v = u + 1; v < PLAN.n(); v++)
            {
                if (PLAN.hasEdge(u, v))
                {
                    edges.append(u).append(' ').append(v).append('\n');
                }
            }
        }
        Files.writeString(directory.resolve("plan.edges"), edges);
        final Path ready = directory.resolve("ready");
        memd = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-Djava.library.path=" + System.getProperty("java.library.path"),
            "-cp", System.getProperty("java.class.path"), MemoryDaemon.class.getName(),
            "--listen", ip + ":0", "--cluster-key-file", directory.resolve("cluster.key").toString(),
            "--plan-edges", directory.resolve("plan.edges").toString(), "--ready-file", ready.toString(),
            "--verbs-listen", ip + ":" + cm.getPort(), "--shm-dir", store.directory().toString()))
            .redirectErrorStream(true).redirectOutput(directory.resolve("memd.log").toFile()).start();
        Await.until(() ->
        {
            if (!memd.isAlive())
            {
                throw new AssertionError("memd exited " + memd.exitValue() + "; see " + directory.resolve("memd.log"));
            }
            return Files.exists(ready);
        }, TimeUnit.SECONDS.toNanos(60), () -> "memd in verbs mode did not start");
    }

    @Override
    protected void tearDownBackend() throws Exception
    {
        if (memd != null)
        {
            memd.destroy();
            memd.waitFor(30, TimeUnit.SECONDS);
        }
        if (directory != null)
        {
            IoUtil.delete(directory.toFile(), true);
        }
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
        final VerbsHostAddress address = VerbsHostAddress.handshakeOnNextPort(cm);
        return new PlanMemoryFabric(ConnectionManager.open(plan, self,
            VerbsLinkFactory.open((owner) -> address, key, digest, 5000)), SystemNanoClock.INSTANCE, maxOutstanding);
    }
}
