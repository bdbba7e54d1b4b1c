package io.mmx.rdma.memd;

import io.mmx.rdma.fabric.RegionLink;
import io.mmx.rdma.fabric.RegionLinkFactory;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.PlanDigest;

import java.net.InetSocketAddress;
import java.util.function.IntFunction;

/**
 * Opens memd links: one TCP session per plan edge (and one loopback session to the owner's own
 * region), to the daemon that {@code placement} names for each owner.
 */
public final class MemdLinkFactory implements RegionLinkFactory
{
    private final IntFunction<InetSocketAddress> placement;
    private final ClusterKey key;
    private final PlanDigest plan;
    private final int connectTimeoutMs;

    /**
     * @param placement        the memd address holding each owner's region.
     * @param key              the cluster key.
     * @param plan             the digest of the plan this process runs; memd refuses links under another plan.
     * @param connectTimeoutMs bound on connect plus handshake.
     */
    public MemdLinkFactory(final IntFunction<InetSocketAddress> placement, final ClusterKey key,
        final PlanDigest plan, final int connectTimeoutMs)
    {
        this.plan = plan;
        this.placement = placement;
        this.key = key;
        this.connectTimeoutMs = connectTimeoutMs;
    }

    @Override
    public RegionLink open(final int self, final int owner)
    {
        return new MemdRegionLink(self, owner, placement.apply(owner), key, plan, connectTimeoutMs);
    }
}
