package io.mmx.rdma.memd;

import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.RegionLink;
import io.mmx.rdma.fabric.RegionLinkFactory;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.ProcessKey;

import java.net.InetSocketAddress;
import java.util.function.IntFunction;

/**
 * Opens memd links of one plan: one TCP session per plan edge (and one loopback session to the
 * owner's own region), to the daemon that {@code placement} names for each owner. Factories of
 * several plans that share one {@link MemdSessions} share the sessions of the edges their plans have
 * in common: each link is then a binding of this plan's region on that edge's session.
 */
public final class MemdLinkFactory implements RegionLinkFactory
{
    private final MemdSessions sessions;
    private final IntFunction<InetSocketAddress> placement;
    private final IntFunction<ProcessKey> keys;
    private final PlanDigest plan;
    private final int era;

    /**
     * Links for processes whose keys this caller holds.
     *
     * @param placement        the memd address holding each owner's region.
     * @param keys             the key of each process links are opened for ({@code self}); only the processes
     *                         this JVM hosts need one, and it throws for any other.
     * @param plan             the digest of the plan this process runs: every link reaches the owner's region of
     *                         that plan, and memd refuses a plan it does not serve.
     * @param connectTimeoutMs bound on connect plus handshake.
     */
    public MemdLinkFactory(final IntFunction<InetSocketAddress> placement, final IntFunction<ProcessKey> keys,
        final PlanDigest plan, final int connectTimeoutMs)
    {
        this(new MemdSessions(connectTimeoutMs), placement, keys, plan, 0);
    }

    /**
     * Links to the regions of {@code plan} in {@code era} on the sessions of {@code sessions}, shared
     * with the factories of other eras on the same pool (a node's).
     */
    public MemdLinkFactory(final MemdSessions sessions, final IntFunction<InetSocketAddress> placement,
        final IntFunction<ProcessKey> keys, final PlanDigest plan, final int era)
    {
        this.sessions = sessions;
        this.placement = placement;
        this.keys = keys;
        this.plan = plan;
        this.era = era;
    }

    /** Links for any process, its key derived from the cluster key (tests, tools, benchmarks). */
    public MemdLinkFactory(final IntFunction<InetSocketAddress> placement, final ClusterKey key,
        final PlanDigest plan, final int connectTimeoutMs)
    {
        this(placement, key::processKey, plan, connectTimeoutMs);
    }

    @Override
    public RegionLink open(final int self, final int owner)
    {
        final ProcessKey key = keys.apply(self);
        if (key == null || key.process() != self)
        {
            throw new IllegalArgumentException("no key for process " + self + " here: a node holds the keys of the " +
                "processes it hosts only");
        }
        return sessions.link(key, owner, placement.apply(owner), plan, era);
    }
}
