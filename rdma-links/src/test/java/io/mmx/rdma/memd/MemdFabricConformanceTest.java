package io.mmx.rdma.memd;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.MemoryFabricConformanceTest;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.region.ClusterKey;
import org.agrona.concurrent.SystemNanoClock;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The conformance suite on memd over loopback TCP. */
class MemdFabricConformanceTest extends MemoryFabricConformanceTest
{
    private static final long CONTROL_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(5);

    private final List<MemoryDaemon> daemons = new ArrayList<>();
    private MemoryDaemon daemon;

    @Override
    protected void setUpBackend()
    {
        daemon = startDaemon(PLAN, DIGEST);
    }

    @Override
    protected void tearDownBackend()
    {
        daemons.forEach(MemoryDaemon::close);
    }

    private MemoryDaemon startDaemon(final Graph plan, final PlanDigest digest)
    {
        final MemoryDaemon d = MemoryDaemon.start(new MemoryDaemon.Context()
            .listen(new InetSocketAddress("127.0.0.1", 0))
            .clusterKey(KEY)
            .plan(plan)
            .planDigest(digest));
        daemons.add(d);
        return d;
    }

    private MemoryDaemon daemonFor(final PlanDigest digest)
    {
        for (final MemoryDaemon d : daemons)
        {
            if (d.planDigest().equals(digest))
            {
                return d;
            }
        }
        return null;
    }

    @Override
    protected void createRegion(final int owner, final long dataBytes)
    {
        assertEquals(OpStatus.OK, MemdRegionLink.createRegion(
            daemon.boundAddress(), KEY, owner, dataBytes, DIGEST, CONTROL_TIMEOUT_NS));
    }

    @Override
    protected void createRegionForPlan(final int owner, final long dataBytes, final PlanDigest digest)
    {
        assertEquals(OpStatus.OK, MemdRegionLink.createRegion(
            daemonFor(digest).boundAddress(), KEY, owner, dataBytes, digest, CONTROL_TIMEOUT_NS));
    }

    @Override
    protected MemoryFabric openFabric(
        final int self, final Graph plan, final PlanDigest digest, final ClusterKey key, final int maxOutstanding)
    {
        // A plan other than the suite's gets its own daemon, as a cluster running that plan would.
        MemoryDaemon d = daemonFor(digest);
        if (d == null)
        {
            d = plan.equals(PLAN) ? daemon : startDaemon(plan, digest);
        }
        final InetSocketAddress address = d.boundAddress();
        return new PlanMemoryFabric(
            ConnectionManager.open(plan, self, new MemdLinkFactory((owner) -> address, key, digest, 2_000)),
            SystemNanoClock.INSTANCE, maxOutstanding);
    }
}
