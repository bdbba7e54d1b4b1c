package io.mmx.rdma.verbs;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.MemoryFabricConformanceTest;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.memd.MemoryDaemon;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.shm.ShmRegionStore;
import io.mmx.rdma.testing.Await;
import org.agrona.IoUtil;
import org.agrona.concurrent.SystemNanoClock;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
    private final List<Process> daemons = new ArrayList<>();
    private final Map<PlanDigest, InetSocketAddress> cmOf = new HashMap<>();
    private Path directory;
    private ShmRegionStore store;
    private String ip;
    private int nextPort;

    @Override
    protected void setUpBackend() throws Exception
    {
        final VerbsPreflight.Result preflight = VerbsPreflight.check();
        assumeTrue(preflight.ok(), preflight.message());
        ip = System.getenv("MMX_VERBS_IP");
        assumeTrue(ip != null, "set MMX_VERBS_IP to the IP of this host's RDMA interface (RoCE or IPoIB) to run " +
            "the conformance suite over verbs through memd");
        nextPort = Integer.parseInt(System.getenv().getOrDefault("MMX_VERBS_PORT", "7471"));
        directory = Files.createTempDirectory("mmx-verbs-memd-");
        store = new ShmRegionStore(directory.resolve("regions"));
        Files.write(directory.resolve("cluster.key"), "conformance-cluster-key-0123456789".getBytes(StandardCharsets.UTF_8));
        startMemd(PLAN);
    }

    // memd in verbs mode for one plan, on the next two ports (rdma_cm, then the handshake), in its own JVM.
    private InetSocketAddress startMemd(final Graph plan) throws Exception
    {
        final InetSocketAddress cm = new InetSocketAddress(ip, nextPort);
        nextPort += 2;
        final String name = "plan-" + daemons.size();
        final StringBuilder edges = new StringBuilder().append(plan.n()).append('\n');
        for (int u = 0; u < plan.n(); u++)
        {
            for (int v = u + 1; v < plan.n(); v++)
            {
                if (plan.hasEdge(u, v))
                {
                    edges.append(u).append(' ').append(v).append('\n');
                }
            }
        }
        Files.writeString(directory.resolve(name + ".edges"), edges);
        final Path ready = directory.resolve(name + ".ready");
        final Path log = directory.resolve(name + ".memd.log");
        final Process memd = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-Djava.library.path=" + System.getProperty("java.library.path"),
            "-cp", System.getProperty("java.class.path"), MemoryDaemon.class.getName(),
            "--listen", ip + ":0", "--cluster-key-file", directory.resolve("cluster.key").toString(),
            "--plan-edges", directory.resolve(name + ".edges").toString(), "--ready-file", ready.toString(),
            "--verbs-listen", ip + ":" + cm.getPort(), "--shm-dir", store.directory().toString()))
            .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        daemons.add(memd);
        Await.until(() ->
        {
            if (!memd.isAlive())
            {
                throw new AssertionError("memd exited " + memd.exitValue() + "; see " + log);
            }
            return Files.exists(ready);
        }, TimeUnit.SECONDS.toNanos(60), () -> "memd in verbs mode did not start");
        cmOf.put(PlanDigest.ofGraph(plan), cm);
        return cm;
    }

    @Override
    protected void tearDownBackend() throws Exception
    {
        for (final Process memd : daemons)
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
        // A plan other than the suite's gets its own memd, as a cluster running that plan would.
        InetSocketAddress cm = cmOf.get(digest);
        if (cm == null)
        {
            try
            {
                cm = plan.equals(PLAN) ? cmOf.get(DIGEST) : startMemd(plan);
            }
            catch (final Exception ex)
            {
                throw new AssertionError("cannot start memd for another plan", ex);
            }
        }
        final VerbsHostAddress address = VerbsHostAddress.handshakeOnNextPort(cm);
        return new PlanMemoryFabric(ConnectionManager.open(plan, self,
            VerbsLinkFactory.open((owner) -> address, key, digest, 5000)), SystemNanoClock.INSTANCE, maxOutstanding);
    }
}
