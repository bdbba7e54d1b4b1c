package io.mmx.membership.neighbour;

import io.mmx.rdma.fabric.RegionLinkFactory;
import io.mmx.rdma.local.LocalRegionStore;

/** Heartbeats over in-process regions. */
class LocalFabricHeartbeatsTest extends FabricHeartbeatsTest
{
    private final LocalRegionStore store = new LocalRegionStore();

    @Override
    void createRegion(final int owner)
    {
        store.createOrOpen(owner, DATA_BYTES, DIGEST, KEY);
    }

    @Override
    RegionLinkFactory linkFactory()
    {
        return store.linkFactory(DIGEST, KEY);
    }
}
