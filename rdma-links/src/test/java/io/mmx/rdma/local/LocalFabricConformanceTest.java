package io.mmx.rdma.local;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.MemoryFabricConformanceTest;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.region.ClusterKey;
import org.agrona.concurrent.SystemNanoClock;

/** The conformance suite on in-process regions. */
class LocalFabricConformanceTest extends MemoryFabricConformanceTest
{
    private final LocalRegionStore store = new LocalRegionStore();

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
        return new PlanMemoryFabric(
            ConnectionManager.open(plan, self, store.linkFactory(digest, key)), SystemNanoClock.INSTANCE, maxOutstanding);
    }
}
