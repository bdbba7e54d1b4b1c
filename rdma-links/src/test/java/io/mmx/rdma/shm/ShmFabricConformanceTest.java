package io.mmx.rdma.shm;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.MemoryFabricConformanceTest;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.region.ClusterKey;
import org.agrona.IoUtil;
import org.agrona.concurrent.SystemNanoClock;

import java.nio.file.Files;
import java.nio.file.Path;

/** The conformance suite on regions in /dev/shm files. */
class ShmFabricConformanceTest extends MemoryFabricConformanceTest
{
    private Path directory;
    private ShmRegionStore store;

    @Override
    protected void setUpBackend() throws Exception
    {
        directory = Files.createTempDirectory(ShmTestSupport.shmRoot(), "mmx-conformance-");
        store = new ShmRegionStore(directory);
    }

    @Override
    protected void tearDownBackend()
    {
        IoUtil.delete(directory.toFile(), true);
    }

    @Override
    protected void createRegion(final int owner, final long dataBytes)
    {
        store.createOrOpen(owner, dataBytes, DIGEST, KEY).close();
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
        return new PlanMemoryFabric(
            ConnectionManager.open(plan, self, store.linkFactory(digest, key)), SystemNanoClock.INSTANCE, maxOutstanding);
    }
}
