package io.mmx.rdma.verbs;

import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.RegionLink;
import io.mmx.rdma.fabric.RegionLinkFactory;
import io.mmx.rdma.region.ClusterKey;

import java.util.function.IntFunction;

/**
 * Plugs the verbs backend into {@code ConnectionManager} and {@code PlanMemoryFabric} like the
 * other backends: one {@link VerbsRegionLink} (one RC queue pair) per plan neighbour, plus the
 * loopback queue pair to the owner's own region through the NIC (DESIGN §4), so a process holds
 * degree + 1 queue pairs. Factories of several eras on one {@link VerbsQueuePairs} pool share the
 * queue pairs of the edges their plans have in common: each link is then a binding of its era's
 * region on that edge's queue pair. Selecting it on a machine without libdisni, libibverbs or an
 * RDMA device fails at once with {@link VerbsUnavailableException} naming what is missing.
 */
public final class VerbsLinkFactory implements RegionLinkFactory
{
    private final RegionLinkFactory links;

    VerbsLinkFactory(final VerbsConnector connector)
    {
        this.links = (self, owner) -> new VerbsRegionLink(self, owner, connector);
    }

    /**
     * Links of era {@code era} (on plan {@code plan}) as bindings on the queue pairs of {@code pool},
     * shared with the factories of the node's other eras.
     *
     * @param placement the host of each owner's region.
     * @param keys      the key of each process links are opened for; only the processes this node hosts
     *                  need one, and it throws (or gives null) for any other.
     */
    public VerbsLinkFactory(final VerbsQueuePairs pool, final IntFunction<VerbsHostAddress> placement,
        final IntFunction<io.mmx.rdma.region.ProcessKey> keys, final PlanDigest plan, final int era)
    {
        this.links = (self, owner) ->
        {
            final io.mmx.rdma.region.ProcessKey key = keys.apply(self);
            if (key == null || key.process() != self)
            {
                throw new IllegalArgumentException("no key for process " + self + " here: a node holds the keys of " +
                    "the processes it hosts only");
            }
            return pool.link(key, owner, placement.apply(owner), plan, era);
        };
    }

    /**
     * The verbs backend for one process.
     *
     * @param placement        the host of each owner's region.
     * @param key              the cluster key.
     * @param plan             the digest of the plan this process runs.
     * @param connectTimeoutMs bound on setting up one queue pair (rdma_cm, handshake, connect).
     * @throws VerbsUnavailableException if libdisni, libibverbs or an RDMA device is missing.
     */
    public static VerbsLinkFactory open(
        final IntFunction<VerbsHostAddress> placement,
        final ClusterKey key,
        final PlanDigest plan,
        final int connectTimeoutMs)
    {
        VerbsBackend.requireAvailable();
        return new VerbsLinkFactory(new DisniVerbsConnector(placement, key, plan, connectTimeoutMs));
    }

    /**
     * The verbs backend for processes whose keys the caller holds: each link's handshake is
     * authenticated by its process's own key (a node passes its hosted processes' keys).
     *
     * @throws VerbsUnavailableException if libdisni, libibverbs or an RDMA device is missing.
     */
    public static VerbsLinkFactory open(
        final IntFunction<VerbsHostAddress> placement,
        final IntFunction<io.mmx.rdma.region.ProcessKey> keys,
        final PlanDigest plan,
        final int connectTimeoutMs)
    {
        VerbsBackend.requireAvailable();
        return new VerbsLinkFactory(new DisniVerbsConnector(placement, keys, plan, connectTimeoutMs));
    }

    @Override
    public RegionLink open(final int self, final int owner)
    {
        return links.open(self, owner);
    }
}
