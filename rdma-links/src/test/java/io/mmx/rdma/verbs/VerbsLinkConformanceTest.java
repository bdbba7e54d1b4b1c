package io.mmx.rdma.verbs;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.FabricTestSupport;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.MemoryFabricConformanceTest;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.local.LocalRegionStore;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.RegionResolver;
import org.agrona.BufferUtil;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The conformance suite over {@link VerbsRegionLink}, with a {@link SoftwareNic} that decodes
 * the encoded work requests byte by byte: proves the verbs link's state machine, slotting,
 * result placement and error mapping without hardware. It does not prove anything about a real
 * NIC (byte order of atomic results, connection setup): that needs the hardware test.
 */
class VerbsLinkConformanceTest extends MemoryFabricConformanceTest
{
    private final LocalRegionStore store = new LocalRegionStore();
    private final List<SoftwareNic> nics = new ArrayList<>();

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
        return new PlanMemoryFabric(ConnectionManager.open(plan, self,
            (s, owner) -> new VerbsRegionLink(s, owner, connector(digest, key))), SystemNanoClock.INSTANCE,
            maxOutstanding);
    }

    // The handshake a region's host would do: validate the region header against plan and key.
    private VerbsConnector connector(final PlanDigest digest, final ClusterKey key)
    {
        final RegionResolver resolver = store.resolver(digest, key);
        return (self, owner) ->
        {
            final RegionResolver.Resolution r = resolver.resolve(owner);
            if (r.status() != OpStatus.OK)
            {
                return VerbsConnector.Connection.failed(r.status(), r.message());
            }
            final int rkey = 0x5EED0000 | owner;
            final SoftwareNic nic = new SoftwareNic(r.memory(), rkey);
            synchronized (nics)
            {
                nics.add(nic);
            }
            return new VerbsConnector.Connection(OpStatus.OK, "connected", nic, nic.remoteBase(), rkey,
                r.memory().dataBytes(), new UnsafeBuffer(BufferUtil.allocateDirectAligned(VerbsRegionLink.SCRATCH_BYTES,
                64)), 0x1000 | self);
        };
    }

    @Test
    void everyOperationWentThroughTheNic()
    {
        final MemoryFabric fabric = fabric(1);
        assertEquals(OpStatus.OK, FabricTestSupport.status(fabric,
            fabric.compareAndSwap(0, 8, 0, 5, FabricTestSupport.OP_TIMEOUT_NS)));
        assertEquals(5, FabricTestSupport.readOk(fabric, 0, 8));
        assertTrue(nics.stream().mapToInt((n) -> n.posted).sum() >= 2);
    }

    @Test
    void aFailedQueuePairReportsUnknownOutcomeAndReconnects()
    {
        final MemoryFabric fabric = fabric(1);
        assertEquals(0, FabricTestSupport.readOk(fabric, 0, 0));
        nics.forEach((n) -> n.failNext = true);
        assertEquals(OpStatus.TIMEOUT, FabricTestSupport.status(fabric,
            fabric.fetchAndAdd(0, 0, 1, FabricTestSupport.OP_TIMEOUT_NS)), "retry-exceeded means outcome unknown");
        assertEquals(OpStatus.OK, FabricTestSupport.status(fabric,
            fabric.fetchAndAdd(0, 0, 1, FabricTestSupport.OP_TIMEOUT_NS)), "the next operation reconnects");
    }
}
