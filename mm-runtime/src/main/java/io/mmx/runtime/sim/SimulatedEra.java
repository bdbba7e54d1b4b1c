package io.mmx.runtime.sim;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.Plan;
import io.mmx.rdma.local.LocalRegionStore;
import io.mmx.runtime.node.InProcessHost;
import io.mmx.runtime.node.NodeContext;

import org.agrona.concurrent.NanoClock;

/**
 * One era of a {@link HostSimulation}: its plan, each host's node context on it, its own network
 * (a real node's frames carry the plan's cluster id, so frames of two eras never meet) and its own
 * regions, made fresh for it, and the host of each simulated host in it (null until that host
 * switches to the era). A host leaves an era some time after it switched to the next one
 * ({@link #retireAtNs}): until then its old cores still serve peers that have not switched yet.
 */
final class SimulatedEra
{
    final Plan plan;
    final Graph graph;
    final NodeContext[] contexts;
    /** The host of each process of the plan. */
    final int[] hostOf;
    final InMemoryNetwork network;
    final DelayedRegionLinks links;
    final InProcessHost[] hosts;
    /** When each host stops running this era's host (Long.MAX_VALUE: not yet known). */
    final long[] retireAtNs;

    /**
     * @param faults the run's faults, for the network's and the memory's.
     * @param healed whether the faults healed already: then the era starts healed.
     * @param crashed hosts already crashed: their endpoints are down in this era too.
     */
    SimulatedEra(final Plan plan, final NodeContext[] contexts, final int[] hostOf,
        final HostFaults faults, final java.util.SplittableRandom random, final NanoClock clock,
        final byte[] clusterKey, final boolean healed, final boolean[] crashed)
    {
        this.plan = plan;
        this.graph = plan.graph();
        this.contexts = contexts;
        this.hostOf = hostOf;
        this.network = new InMemoryNetwork(random.nextLong(), hostOf, faults.frameLoss, faults.frameDelayMaxNs,
            InProcessHost.maxFrameLengthBytes(contexts[0]));
        this.links = new DelayedRegionLinks(InProcessHost.createRegions(new LocalRegionStore(), contexts[0], clusterKey),
            clock, random.nextLong(), faults.memoryLatencyMinNs, faults.memoryLatencyMaxNs, faults.memoryTailProbability,
            faults.memoryTailMaxNs);
        this.hosts = new InProcessHost[contexts.length];
        this.retireAtNs = new long[contexts.length];
        java.util.Arrays.fill(retireAtNs, Long.MAX_VALUE);
        if (healed)
        {
            heal();
        }
        for (int h = 0; h < contexts.length; h++)
        {
            if (crashed[h])
            {
                network.crash(h);
            }
        }
    }

    /** The era's faults end: frames flow without loss within 0.1 ms, memory is never slow. */
    void heal()
    {
        network.faults(0, 100_000);
        links.heal();
    }

    /** True if host {@code h} runs its host of this era at {@code nowNs}. */
    boolean runs(final int h, final long nowNs)
    {
        return h < hosts.length && hosts[h] != null && nowNs < retireAtNs[h];
    }
}
