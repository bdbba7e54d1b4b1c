package io.mmx.rdma.verbs;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.MemoryFabricConformanceTest;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.local.LocalRegionStore;
import io.mmx.rdma.region.ClusterKey;
import org.agrona.concurrent.SystemNanoClock;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The conformance suite on a real NIC (or soft-RoCE): regions in this JVM served by a
 * {@link DisniRegionHost}, every process's links through {@link VerbsLinkFactory}, so every
 * operation crosses the NIC, the loopback included. Skipped where the preflight fails (its
 * message says what is missing) or where {@code MMX_VERBS_IP} (the IP of the RDMA interface to
 * use) is unset. Not yet run: the build machine has no RDMA.
 */
class VerbsHardwareConformanceTest extends MemoryFabricConformanceTest
{
    private final LocalRegionStore store = new LocalRegionStore();
    private final List<DisniRegionHost> hosts = new ArrayList<>();
    private final Map<PlanDigest, VerbsHostAddress> hostOf = new HashMap<>();
    private String ip;
    private int nextPort;

    @Override
    protected void setUpBackend()
    {
        final VerbsPreflight.Result preflight = VerbsPreflight.check();
        assumeTrue(preflight.ok(), preflight.message());
        ip = System.getenv("MMX_VERBS_IP");
        assumeTrue(ip != null, "set MMX_VERBS_IP to the IP of this host's RDMA interface (RoCE or IPoIB) to run " +
            "the conformance suite over verbs");
        nextPort = Integer.parseInt(System.getenv().getOrDefault("MMX_VERBS_PORT", "7471"));
        startHost(PLAN, DIGEST);
    }

    // A region host for one plan (a cluster running another plan has its own), on the next rdma_cm port.
    private VerbsHostAddress startHost(final Graph plan, final PlanDigest digest)
    {
        final InetSocketAddress cm = new InetSocketAddress(ip, nextPort++);
        final DisniRegionHost host = DisniRegionHost.start(cm, new InetSocketAddress(ip, 0), plan, digest, KEY,
            store.resolver(digest, KEY));
        hosts.add(host);
        final VerbsHostAddress address = new VerbsHostAddress(cm, host.handshakeAddress());
        hostOf.put(digest, address);
        return address;
    }

    @Override
    protected void tearDownBackend()
    {
        for (final DisniRegionHost host : hosts)
        {
            System.out.println("verbs host counters: " + host.counters());
            host.close();
        }
    }

    @Override
    protected void createRegion(final int owner, final long dataBytes)
    {
        store.createOrOpen(owner, dataBytes, DIGEST, KEY);
    }

    @Override
    protected void createRegionForPlan(final int owner, final long dataBytes, final PlanDigest digest)
    {
        store.createOrOpen(owner, dataBytes, digest, KEY);
    }

    @Override
    protected MemoryFabric openFabric(
        final int self, final Graph plan, final PlanDigest digest, final ClusterKey key, final int maxOutstanding)
    {
        VerbsHostAddress found = hostOf.get(digest);
        if (found == null)
        {
            found = plan.equals(PLAN) ? hostOf.get(DIGEST) : startHost(plan, digest);
        }
        final VerbsHostAddress address = found;
        return new PlanMemoryFabric(ConnectionManager.open(plan, self,
            VerbsLinkFactory.open((owner) -> address, key, digest, 5000)), SystemNanoClock.INSTANCE, maxOutstanding);
    }
}
