package io.mmx.runtime.node;

import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.fabric.RegionLinkFactory;
import io.mmx.rdma.local.LocalRegionStore;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.runtime.core.CoreConfig;
import io.mmx.membership.neighbour.HostLiveness;
import io.mmx.runtime.host.HostContext;
import io.mmx.runtime.host.HostTransport;
import io.mmx.runtime.host.HostedProcess;
import io.mmx.runtime.host.ProcessHost;
import org.agrona.concurrent.NanoClock;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * One host's {@link ProcessHost} with its replicas, as a node builds them, over ports handed in: a
 * {@link HostTransport}, region links (in-process regions), a clock and a seed. It starts no thread
 * and opens nothing, so several hosts run in one thread on a virtual clock: the host simulation
 * ({@code io.mmx.runtime.sim.HostSimulation}) and the one-thread tests build each host with it.
 * The replicas keep their state on disk when the context names a state directory
 * ({@link NodeContext#stateDirectory}); then they fetch peers' snapshots as a node does, and
 * {@link #close} releases the directory.
 */
public final class InProcessHost
{
    private final ProcessHost host;
    private final ProcessReplica[] replicas;
    private final ReplicaFlaw flaw;
    /** The host's journal when its replicas keep state (shared with the hosts of later eras), else null. */
    private final HostJournal journal;

    /**
     * @param ctx       the host's node settings, concluded: the plan, its hosted ids and the directory
     *                  that says which processes share a host.
     * @param hostOf    the host of every process (the directory's endpoint index).
     * @param links     region links of every process's fabric (regions made by {@link #createRegions}).
     * @param transport the host's frames.
     * @param clock     the time memory operations are timed by.
     * @param machines  the state machine of each hosted process id.
     * @param random    draws the replicas' and the host's seeds and the host's incarnation.
     * @param flaw      a deliberate replica bug for a simulation's checker, else {@link ReplicaFlaw#NONE}.
     * @param pending   the host's pending submissions, counted by the submitter and the host.
     */
    public InProcessHost(final NodeContext ctx, final int[] hostOf, final RegionLinkFactory links,
        final HostTransport transport, final NanoClock clock, final IntFunction<StateMachine> machines,
        final SplittableRandom random, final ReplicaFlaw flaw, final AtomicInteger pending)
    {
        this(ctx, hostOf, links, transport, clock, machines, random, flaw, pending, HostLiveness.NONE);
    }

    /**
     * As {@link #InProcessHost(NodeContext, int[], RegionLinkFactory, HostTransport, NanoClock, IntFunction,
     * SplittableRandom, ReplicaFlaw, AtomicInteger)}, told by {@code liveness} what the operating system
     * says of other hosts (a simulation's truth, as the shm locks tell it on one machine).
     */
    public InProcessHost(final NodeContext ctx, final int[] hostOf, final RegionLinkFactory links,
        final HostTransport transport, final NanoClock clock, final IntFunction<StateMachine> machines,
        final SplittableRandom random, final ReplicaFlaw flaw, final AtomicInteger pending,
        final HostLiveness liveness)
    {
        this(ctx, hostOf, links, transport, clock, machines, random, flaw, pending, liveness, null, 0);
    }

    /**
     * A host whose processes join era {@code era}, begun by a plan change, with no state: processes
     * new in the plan, or a host that replaced a lost one with empty regions and an empty state
     * directory. Each replica takes the era's state from a peer's snapshot; {@code ctx} must name a
     * state directory.
     */
    public static InProcessHost joining(final int era, final NodeContext ctx, final int[] hostOf,
        final RegionLinkFactory links, final HostTransport transport, final NanoClock clock,
        final IntFunction<StateMachine> machines, final SplittableRandom random, final ReplicaFlaw flaw,
        final AtomicInteger pending, final HostLiveness liveness)
    {
        if (ctx.stateDirectory() == null || era < 1)
        {
            throw new IllegalArgumentException("a joining host needs a state directory and an era of 1 or more, " +
                "got " + ctx.stateDirectory() + " and era " + era);
        }
        return new InProcessHost(ctx, hostOf, links, transport, clock, machines, random, flaw, pending, liveness, null,
            era);
    }

    private InProcessHost(final NodeContext ctx, final int[] hostOf, final RegionLinkFactory links,
        final HostTransport transport, final NanoClock clock, final IntFunction<StateMachine> machines,
        final SplittableRandom random, final ReplicaFlaw flaw, final AtomicInteger pending,
        final HostLiveness liveness, final InProcessHost previous, final int joinEra)
    {
        this.flaw = flaw;
        final CoreConfig config = ctx.core();
        final int[] hosted = ctx.hosted();
        final HostedProcess[] processes = new HostedProcess[hosted.length];
        replicas = new ProcessReplica[hosted.length];
        final ProcessHost[] hostRef = new ProcessHost[1];
        final ProcessReplica.Completions completions = ProcessReplica.Completions.toHost(hostRef);
        final FabricMemory.Stages stages = new FabricMemory.Stages(); // one thread drives them all: shared
        for (int i = 0; i < hosted.length; i++)
        {
            final int id = hosted[i];
            final ConnectionManager connections = ConnectionManager.open(config.graph(), id, links);
            final PlanMemoryFabric fabric = new PlanMemoryFabric(connections, clock);
            RegionSetup.formatIfNew(fabric, id, config.planHash(), false);
            final int[] neighbours = config.graph().neighbours(id);
            final FabricMemory memory = FabricMemory.ofHostedProcess(fabric, neighbours, ctx.memoryOpTimeoutNs(),
                (kind, latencyNs) -> { }, clock, stages);
            final ReplicaEvents events = new ReplicaEvents(id, neighbours, ctx.tickNs(), new ProcessCounters(id, null),
                false);
            if (previous == null)
            {
                replicas[i] = new ProcessReplica(id, config, memory, transport, machines.apply(id), completions,
                    NodeListener.NO_OP, random.nextLong(), connections.connectionCount(), events);
                replicas[i].flaw(flaw);
            }
            else
            {
                replicas[i] = ProcessReplica.successor(previous.replicas[i], previous.host.eraEndedAt(), config, memory,
                    transport, completions, NodeListener.NO_OP, random.nextLong(), connections.connectionCount(), events);
            }
            processes[i] = new HostedReplica(replicas[i], neighbours, memory.heartbeats());
        }
        if (previous != null)
        {
            journal = previous.journal;
        }
        else if (ctx.stateDirectory() != null)
        {
            journal = HostJournal.open(ctx.stateDirectory(), hosted);
            for (final ProcessReplica replica : replicas)
            {
                replica.restoreFrom(ReplicaDurability.open(ctx.stateDirectory(), replica.id(), config.maxBatch(),
                    ctx.snapshotEveryCommands(), journal));
                if (joinEra > 0)
                {
                    replica.joinEra(joinEra);
                }
            }
        }
        else
        {
            journal = null;
        }
        host = new ProcessHost(new HostContext().transport(transport).core(config).processes(processes)
            .membership(ctx.membership()).planDigest(ctx.planDigest()).hostOf(hostOf).seed(random.nextLong())
            .tickNs(ctx.tickNs()).incarnation(random.nextInt()).submitTimeoutNs(ctx.submitTimeoutNs())
            .maxPending(ctx.maxPending()).pendingCount(pending).liveness(liveness)
            .era(replicas[0].logEra()).predecessor(previous == null ? null : previous.host)
            .switchWaitNs(flaw == ReplicaFlaw.SWITCH_SKIPS_STATE ? 0 : HostContext.DEFAULT_SWITCH_WAIT_NS));
        hostRef[0] = host;
    }

    /**
     * This host in the era after the one a plan change ended: the same processes on the new plan
     * ({@code next}, the plan the change named), each replica carried over onto a new core over
     * fresh regions ({@code links}, made by {@link #createRegions} for {@code next}), with frames on
     * {@code transport}; it takes over this host's submissions. This host keeps serving its era's
     * cores to peers that still need them until its owner stops driving it.
     *
     * @throws IllegalStateException if no plan change ended this host's era, {@code next} is not the
     *                               plan it named, or the host's processes are not the same.
     */
    public InProcessHost successor(final NodeContext next, final int[] hostOf, final RegionLinkFactory links,
        final HostTransport transport, final NanoClock clock, final SplittableRandom random,
        final AtomicInteger pending, final HostLiveness liveness)
    {
        if (host.eraEndedAt() < 0)
        {
            throw new IllegalStateException("no plan change ended era " + host.era() + " of this host");
        }
        if (next.planDigest().id64() != host.nextPlanId())
        {
            throw new IllegalStateException("the plan change names plan " + Long.toHexString(host.nextPlanId()) +
                " but the plan given is " + Long.toHexString(next.planDigest().id64()) + ": every process must hold " +
                "the plan a change names (copy it to every node before proposing the change)");
        }
        final int[] ids = new int[replicas.length];
        for (int i = 0; i < replicas.length; i++)
        {
            ids[i] = replicas[i].id();
        }
        if (!java.util.Arrays.equals(ids, next.hosted()))
        {
            throw new IllegalStateException("a host keeps its processes across a live plan change: it hosts " +
                java.util.Arrays.toString(ids) + ", the new plan's context " + java.util.Arrays.toString(next.hosted()) +
                " (adding or removing a host's processes live is not built yet)");
        }
        return new InProcessHost(next, hostOf, links, transport, clock, id -> null, random, flaw, pending, liveness,
            this, 0);
    }

    /**
     * Creates every process's region in {@code store} (all of them before any host opens its links:
     * neighbours reach across hosts).
     *
     * @return the links every fabric opens.
     */
    public static RegionLinkFactory createRegions(final LocalRegionStore store, final NodeContext ctx,
        final byte[] clusterKey)
    {
        final CoreConfig config = ctx.core();
        final PlanDigest digest = PlanDigest.ofGraph(config.graph());
        final ClusterKey key = ClusterKey.of(clusterKey);
        for (int id = 0; id < config.n(); id++)
        {
            store.createOrOpen(id, 8L * config.layout().regionWords(), digest, key);
        }
        return store.linkFactory(digest, key);
    }

    /**
     * Releases what this host holds: its replicas' snapshot transfers and, unless the host of a later
     * era took them over, their state directories and the journal.
     */
    public void close()
    {
        for (final ProcessReplica r : replicas)
        {
            r.closeState();
        }
        if (journal != null && !host.handedOver())
        {
            org.agrona.CloseHelper.quietClose(journal);
        }
    }

    /** @return the host. */
    public ProcessHost host()
    {
        return host;
    }

    /** @return the hosted process that leads (its status says so), or -1. */
    public int leading()
    {
        for (final ProcessReplica r : replicas)
        {
            if (r.status().leads())
            {
                return r.id();
            }
        }
        return -1;
    }

    /** @return the largest frame of {@code ctx}'s transport, header included: what a simulated network carries. */
    public static int maxFrameLengthBytes(final NodeContext ctx)
    {
        return ctx.transport().maxFrameLengthBytes();
    }

    /** @return the most submissions a host of {@code ctx} holds queued or pending: beyond, a node refuses. */
    public static int maxPending(final NodeContext ctx)
    {
        return ctx.maxPending();
    }
}
