package io.mmx.runtime.node;

import io.mmx.aeron.transport.AeronTransport;
import io.mmx.membership.MembershipListener;
import io.mmx.membership.neighbour.HostLiveness;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.FabricCounters;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.fabric.RegionLinkFactory;
import io.mmx.rdma.memd.MemdLinkFactory;
import io.mmx.rdma.memd.MemdSessions;
import io.mmx.rdma.region.HostKeys;
import io.mmx.rdma.shm.ShmRegionStore;
import io.mmx.runtime.core.CoreConfig;
import io.mmx.runtime.core.RegionLayout;
import io.mmx.runtime.host.HostClients;
import io.mmx.runtime.host.HostContext;
import io.mmx.runtime.host.HostedProcess;
import io.mmx.runtime.host.ProcessHost;
import org.agrona.CloseHelper;
import org.agrona.concurrent.NanoClock;

import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * What a node runs for one era of the log (docs/protocol.md §8b): the plan's regions, fabrics and
 * links, the Aeron stream of the era's frames, one replica per hosted process and the
 * {@link ProcessHost} that drives them. A node launches era 0; a decided plan change ends it, and
 * the node builds the next era from it ({@link #next}), which carries every replica's state over and
 * takes over the submissions. The ended era keeps serving its cores to peers that are still behind
 * until it retires ({@link #close}).
 */
final class NodeEra implements AutoCloseable
{
    /** Bound on connecting and authenticating one memd session. */
    static final int MEMD_CONNECT_TIMEOUT_MS = 2000;
    /** Bound on setting up one verbs queue pair (rdma_cm, handshake, connect) and on each handshake exchange. */
    private static final int VERBS_CONNECT_TIMEOUT_MS = 5000;

    /** What every era of one node shares: its counters, clients' endpoint, liveness and pending bound. */
    static final class Shared
    {
        final NanoClock clock;
        final NodeMetrics metrics;
        final ProcessCounters[] countersById;
        final ClientEndpoint endpoint;
        final HostLiveness liveness;
        final AtomicInteger pendingCount;
        final NodeListener listener;
        final MembershipListener membershipListener;
        /** The Aeron client of the node's first era, which later eras borrow (the node closes it last). */
        final io.aeron.Aeron aeron;
        final SecureRandom random = new SecureRandom();
        /** One agent thread drives every era: its fabrics share the staging buffers. */
        final FabricMemory.Stages stages = new FabricMemory.Stages();
        /**
         * The node's memd sessions, one per edge of a hosted process, which every era's links bind on:
         * a plan change opens those of the edges it adds and closes those it removes (the node closes it).
         */
        final MemdSessions memdSessions;
        /**
         * The node's verbs queue pairs, one per edge end of a hosted process, which every era's links
         * bind on, as {@link #memdSessions} on memd; made by the first era on verbs memory (it needs
         * the RDMA device), and closed by the node ({@link #closeVerbsQueuePairs}). Read by status.
         */
        private volatile io.mmx.rdma.verbs.VerbsQueuePairs verbsQueuePairs;

        Shared(final NanoClock clock, final NodeMetrics metrics, final ProcessCounters[] countersById,
            final ClientEndpoint endpoint, final MemdSessions memdSessions, final HostLiveness liveness,
            final AtomicInteger pendingCount, final NodeListener listener, final MembershipListener membershipListener,
            final io.aeron.Aeron aeron)
        {
            this.memdSessions = memdSessions;
            this.aeron = aeron;
            this.clock = clock;
            this.metrics = metrics;
            this.countersById = countersById;
            this.endpoint = endpoint;
            this.liveness = liveness;
            this.pendingCount = pendingCount;
            this.listener = listener;
            this.membershipListener = membershipListener;
        }

        /**
         * The verbs queue pairs, opened on first use (the agent's thread, or the launching one).
         *
         * @throws io.mmx.rdma.verbs.VerbsUnavailableException if libdisni, libibverbs or an RDMA device is missing.
         */
        io.mmx.rdma.verbs.VerbsQueuePairs verbsQueuePairs()
        {
            if (verbsQueuePairs == null)
            {
                verbsQueuePairs = io.mmx.rdma.verbs.VerbsQueuePairs.open(VERBS_CONNECT_TIMEOUT_MS);
            }
            return verbsQueuePairs;
        }

        /** The verbs queue pairs if any era opened them, else null (any thread). */
        io.mmx.rdma.verbs.VerbsQueuePairs verbsQueuePairsIfOpen()
        {
            return verbsQueuePairs;
        }

        /** Closes the verbs queue pairs, if any were opened: after every era, whose links release their bindings. */
        void closeVerbsQueuePairs()
        {
            final io.mmx.rdma.verbs.VerbsQueuePairs pool = verbsQueuePairs;
            if (pool != null)
            {
                pool.close();
            }
        }
    }

    final NodeContext ctx;
    final AeronTransport transport;
    /** Whether closing this era closes its transport (era 0's holds the node's media driver: the node closes it). */
    private final boolean ownsTransport;
    final ProcessReplica[] replicas;
    final ProcessHost host;
    /** Outside clients bound to this era's replicas, or null (a node without a UDP endpoint). */
    final NodeClients clients;
    final List<FabricCounters> fabricCounters = new ArrayList<>();
    private final List<AutoCloseable> resources = new ArrayList<>();
    /** The replicas as built so far, for closing their state when the era fails to start. */
    private ProcessReplica[] opened;
    /** Agent time at which an ended era stops being driven (set when its successor starts). */
    long retireAtNs = Long.MAX_VALUE;

    private NodeEra(final NodeContext ctx, final AeronTransport transport, final boolean ownsTransport,
        final Shared shared, final NodeEra previous, final IntFunction<StateMachine> machines,
        final List<AutoCloseable> nodeResources)
    {
        this.ctx = ctx;
        this.transport = transport;
        this.ownsTransport = ownsTransport;
        final CoreConfig config = ctx.core();
        final Graph graph = config.graph();
        final int[] hosted = ctx.hosted();
        try
        {
            final RegionLinkFactory links = linkFactory(ctx, hosted, config.layout(), PlanDigest.ofGraph(graph),
                ctx.hostKeys(), resources, shared);
            replicas = new ProcessReplica[hosted.length];
            opened = replicas;
            final ProcessReplica[] byId = new ProcessReplica[graph.n()];
            final HostedProcess[] processes = new HostedProcess[hosted.length];
            final AeronHostTransport hostTransport = new AeronHostTransport(transport);
            final ProcessHost[] hostRef = new ProcessHost[1];
            final ProcessReplica.Completions completions = ProcessReplica.Completions.toHost(hostRef);
            final List<Integer> formatted = new ArrayList<>();
            for (int i = 0; i < hosted.length; i++)
            {
                final int id = hosted[i];
                final ConnectionManager connections = ConnectionManager.open(graph, id, links);
                resources.add(connections);
                final PlanMemoryFabric fabric = new PlanMemoryFabric(connections, shared.clock);
                resources.add(fabric);
                fabricCounters.add(fabric.counters());
                if (previous == null && !ctx.joining())
                {
                    checkRegion(ctx, id, RegionSetup.exists(fabric, id));
                }
                final boolean fresh = RegionSetup.formatIfNew(fabric, id, config.planHash(),
                    previous == null && ctx.regionsLost());
                if (fresh && previous == null)
                {
                    formatted.add(id);
                }
                final int[] neighbours = graph.neighbours(id);
                final FabricMemory memory = FabricMemory.ofHostedProcess(fabric, neighbours, ctx.memoryOpTimeoutNs(),
                    shared.metrics::onFabricOp, shared.clock, shared.stages);
                final ReplicaEvents events = new ReplicaEvents(id, neighbours, ctx.tickNs(), shared.countersById[id],
                    previous == null && !fresh);
                if (previous == null)
                {
                    replicas[i] = new ProcessReplica(id, config, memory, hostTransport, machines.apply(id), completions,
                        shared.listener, shared.random.nextLong(), connections.connectionCount(), events);
                }
                else
                {
                    replicas[i] = ProcessReplica.successor(previous.replicas[i], previous.host.eraEndedAt(), config,
                        memory, hostTransport, completions, shared.listener, shared.random.nextLong(),
                        connections.connectionCount(), events);
                }
                byId[id] = replicas[i];
                processes[i] = new HostedReplica(replicas[i], neighbours, memory.heartbeats());
            }
            if (!formatted.isEmpty())
            {
                EventLog.log(ctx.regionsLost() ? EventLog.Level.WARN : EventLog.Level.INFO, "regions_formatted",
                    RegionSetup.formattedLine(formatted, ctx.regionsLost()));
            }
            clients = shared.endpoint == null ? null : new NodeClients(shared.endpoint, byId, replicas[0],
                config.proposalWords(), ctx.maxPending(), ctx.tickNs(), ctx.submitTimeoutNs());
            if (previous == null && ctx.stateDirectory() != null)
            {
                restoreState(ctx, config, hosted, nodeResources);
                checkRecordedEra(ctx);
            }
            // Processes behind one endpoint are hosted by one JVM: they stop together.
            final int[] hostOf = new int[graph.n()];
            for (int p = 0; p < hostOf.length; p++)
            {
                hostOf[p] = transport.directory().endpointIndexOf(p);
            }
            host = new ProcessHost(new HostContext().transport(hostTransport).core(config).processes(processes)
                .membership(ctx.membership()).planDigest(ctx.planDigest()).hostOf(hostOf).liveness(shared.liveness)
                .membershipListener(shared.membershipListener).seed(shared.random.nextLong()).tickNs(ctx.tickNs())
                .incarnation(shared.random.nextInt()).submitTimeoutNs(ctx.submitTimeoutNs())
                .maxPending(ctx.maxPending()).pendingCount(shared.pendingCount)
                .clients(clients != null ? clients : HostClients.NONE)
                .era(replicas[0].logEra()).predecessor(previous == null ? null : previous.host));
            hostRef[0] = host;
        }
        catch (final RuntimeException ex)
        {
            closeStates(opened);
            closeResources();
            throw ex;
        }
    }

    private static void closeStates(final ProcessReplica[] replicas)
    {
        if (replicas != null)
        {
            for (final ProcessReplica replica : replicas)
            {
                if (replica != null)
                {
                    replica.closeState();
                }
            }
        }
    }

    /**
     * Era 0 of a launched node, on {@code transport}, whose replicas run {@code machines} and, with a
     * state directory, come back with their state; the journal goes to {@code nodeResources}.
     */
    static NodeEra first(final NodeContext ctx, final AeronTransport transport, final Shared shared,
        final IntFunction<StateMachine> machines, final List<AutoCloseable> nodeResources)
    {
        return new NodeEra(ctx, transport, false, shared, null, machines, nodeResources);
    }

    /**
     * The era after this one, which a decided plan change ended: the same processes on
     * {@code next}'s plan, over fresh regions in the era's directory, with frames on the era's
     * stream; every replica's state carries over ({@link ProcessReplica#successor}).
     */
    NodeEra next(final NodeContext next, final Shared shared)
    {
        // On the client of the node's first era: the era adds its stream's publications and subscriptions.
        final AeronTransport launched = MmxNode.launchTransport(next, shared.aeron);
        try
        {
            return new NodeEra(next, launched, true, shared, this, null, null);
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietClose(launched);
            throw ex;
        }
    }

    /** Opens the journal and brings every replica back from its snapshot and journal. */
    private void restoreState(final NodeContext ctx, final CoreConfig config, final int[] hosted,
        final List<AutoCloseable> nodeResources)
    {
        // A node resource: closed after every era, so after every replica's state.
        final HostJournal journal = HostJournal.open(ctx.stateDirectory(), hosted);
        nodeResources.add(journal);
        for (final ProcessReplica replica : replicas)
        {
            final StateMachine machine = replica.stateMachine();
            if (!machine.snapshots())
            {
                throw new IllegalStateException("--state-dir needs a state machine that takes snapshots; " +
                    machine.getClass().getName() + " does not (StateMachine.snapshots())");
            }
            replica.transferFaults(ctx.transferFaults());
            replica.restoreFrom(ReplicaDurability.open(ctx.stateDirectory(), replica.id(), config.maxBatch(),
                ctx.snapshotEveryCommands(), journal), ctx.coldStart(), ctx.coldStartMajority());
            if (ctx.joining())
            {
                replica.joinEra(ctx.era());
            }
        }
    }

    /**
     * After a live plan change the era a node records is its replicas' log era. A replica whose log is
     * in a later era than the record says was stopped in the moment between beginning that era and the
     * node recording it: it must be started in that era, on its plan, and rejoins it.
     */
    private void checkRecordedEra(final NodeContext ctx)
    {
        if (ctx.era() == 0 || ctx.joining())
        {
            return; // era 0 may follow cold starts, whose log eras no record counts
        }
        for (final ProcessReplica replica : replicas)
        {
            if (replica.logEra() > ctx.era())
            {
                throw new IllegalStateException("process " + replica.id() + "'s log is in era " + replica.logEra() +
                    " but this node's record says era " + ctx.era() + ": the node stopped while it began era " +
                    replica.logEra() + "; restart it with --plan naming that era's plan and --join-era " +
                    replica.logEra());
            }
        }
    }

    /**
     * A cold start needs every hosted region gone (an old era's acceptors must not answer in the new
     * one); without one, a missing region of a process that ran before would be an acceptor that
     * forgot its promises, which only the operator can place (lost host or lost cluster).
     */
    private static void checkRegion(final NodeContext ctx, final int id, final boolean exists)
    {
        if (ctx.coldStart() && exists)
        {
            throw new IllegalStateException("the region of process " + id + " still exists: --cold-start begins a " +
                "new era on fresh regions and is only for when every region of the cluster is gone; start " +
                "without --cold-start, or remove every region first");
        }
        if (!exists && !ctx.coldStart() && !ctx.regionsLost() && ctx.stateDirectory() != null &&
            ReplicaDurability.ranBefore(ctx.stateDirectory(), id))
        {
            throw new IllegalStateException("the region of process " + id + " is missing but its state in " +
                ctx.stateDirectory() + " shows it ran before, so its acceptor's promises are lost: if every " +
                "region of the cluster is gone, restart every node with --cold-start; if only this host's, " +
                "restart with --regions-lost");
        }
    }

    private static RegionLinkFactory linkFactory(final NodeContext ctx, final int[] hosted, final RegionLayout layout,
        final PlanDigest digest, final HostKeys key, final List<AutoCloseable> resources, final Shared shared)
    {
        if (ctx.memoryKind() == NodeContext.Memory.VERBS)
        {
            return verbsLinks(ctx, hosted, layout, digest, key, shared);
        }
        if (ctx.memoryKind() == NodeContext.Memory.SHM)
        {
            return shmRegions(ctx, hosted, layout, digest, key, resources).linkFactory(digest, key);
        }
        final IntFunction<InetSocketAddress> daemonOf = (owner) -> address(ctx.memdDirectory(), owner);
        final io.mmx.rdma.region.ProcessKey[] keys = hostedKeys(ctx, hosted, key);
        for (final int id : hosted)
        {
            RegionSetup.createMemd(daemonOf.apply(id), keys[id], layout, digest, ctx.era());
        }
        return new MemdLinkFactory(shared.memdSessions, daemonOf, (self) -> keys[self], digest, ctx.era());
    }

    /**
     * Regions in shm files here, in the era's directory ({@code <shm-dir>/era-N}), served over RDMA by
     * this host's memd in verbs mode ({@code mmx memd --verbs-listen}, with {@code --plans} for the
     * plans of later eras), which holds their registrations, so a region stays served when this node
     * dies; every link, the loopback to a hosted process's own region included, is a binding of the
     * era's region on the node's queue pair of its edge end, shared with the node's other eras: a live
     * plan change connects queue pairs only for the edges it adds.
     */
    private static RegionLinkFactory verbsLinks(final NodeContext ctx, final int[] hosted, final RegionLayout layout,
        final PlanDigest digest, final HostKeys key, final Shared shared)
    {
        // Fail before creating anything: one message naming libdisni, libibverbs, the device or its atomics.
        io.mmx.rdma.verbs.VerbsBackend.requireAvailable();
        // The files hold the regions and memd maps and registers them; this node keeps no mapping of its
        // own, so it reaches its own region, like every other, through a queue pair.
        final List<AutoCloseable> mappings = new ArrayList<>();
        shmRegions(ctx, hosted, layout, digest, key, mappings);
        mappings.forEach(CloseHelper::quietClose);
        final IntFunction<io.mmx.rdma.verbs.VerbsHostAddress> hostOf = (owner) -> verbsHostAddress(ctx, owner);
        final io.mmx.rdma.region.ProcessKey[] keys = hostedKeys(ctx, hosted, key);
        return new io.mmx.rdma.verbs.VerbsLinkFactory(shared.verbsQueuePairs(), hostOf, (self) -> keys[self], digest,
            ctx.era());
    }

    /**
     * Links authenticate as their process: the fabric gets the hosted processes' keys only (indexed
     * by process id, null for the others).
     */
    private static io.mmx.rdma.region.ProcessKey[] hostedKeys(final NodeContext ctx, final int[] hosted,
        final HostKeys key)
    {
        final io.mmx.rdma.region.ProcessKey[] keys = new io.mmx.rdma.region.ProcessKey[ctx.core().graph().n()];
        for (final int id : hosted)
        {
            keys[id] = key.processKey(id);
        }
        return keys;
    }

    /** Creates (or reopens) the hosted processes' region files; their mappings go to {@code mappings}. */
    private static ShmRegionStore shmRegions(final NodeContext ctx, final int[] hosted, final RegionLayout layout,
        final PlanDigest digest, final HostKeys key, final List<AutoCloseable> mappings)
    {
        final ShmRegionStore store = new ShmRegionStore(ctx.regionDirectory());
        for (final int id : hosted)
        {
            mappings.add(store.createOrOpen(id, 8L * layout.regionWords(), digest, key));
        }
        return store;
    }

    /**
     * Deletes the region files the node's processes had in the era of {@code retired}, when they are
     * files (shm, and verbs, whose host serves them): two eras retired, nobody reads them any more
     * (peers still behind join the running era by snapshot). A mapping another process holds stays
     * valid. The era's directory goes too once empty (never the base directory: era 0's, which holds
     * the liveness locks).
     *
     * @return a clause for the retirement's event line, or "" when there was nothing to delete.
     */
    static String deleteRegionFiles(final NodeContext retired)
    {
        if (retired.memoryKind() == NodeContext.Memory.MEMD)
        {
            return ""; // memd releases an owner's older regions itself
        }
        final java.nio.file.Path directory = retired.regionDirectory();
        final ShmRegionStore store = new ShmRegionStore(directory);
        int deleted = 0;
        try
        {
            for (final int id : retired.hosted())
            {
                deleted += java.nio.file.Files.exists(store.regionFile(id)) ? 1 : 0;
                store.delete(id);
            }
            if (!directory.equals(retired.shmBaseDirectory()))
            {
                try (java.util.stream.Stream<java.nio.file.Path> left = java.nio.file.Files.list(directory))
                {
                    if (left.findAny().isEmpty())
                    {
                        java.nio.file.Files.deleteIfExists(directory);
                    }
                }
            }
        }
        catch (final java.io.IOException | java.io.UncheckedIOException ex)
        {
            return "; could not delete its region files in " + directory + " (" + ex.getMessage() + "): delete " +
                "them by hand, no era uses them";
        }
        return deleted == 0 ? "" : "; the " + deleted + " region files of era " + retired.era() + " in " + directory +
            " were deleted (the node keeps its latest two eras')";
    }

    /** The memory daemon that holds process {@code id}'s regions under {@code ctx}'s plan. */
    static InetSocketAddress memdAddress(final NodeContext ctx, final int id)
    {
        return address(ctx.memdDirectory(), id);
    }

    /** The verbs region host (memd in verbs mode) that serves process {@code id}'s regions under {@code ctx}'s plan. */
    static io.mmx.rdma.verbs.VerbsHostAddress verbsHostAddress(final NodeContext ctx, final int id)
    {
        return io.mmx.rdma.verbs.VerbsHostAddress.handshakeOnNextPort(address(ctx.verbsDirectory(), id));
    }

    private static InetSocketAddress address(final io.mmx.aeron.transport.ProcessDirectory directory, final int id)
    {
        return io.mmx.rdma.memd.MemdCommandLine.parseAddress(directory.endpoint(directory.endpointIndexOf(id)));
    }

    /**
     * The file, in each hosted process's state directory ({@code <state-dir>/process-<id>}), that names
     * the era the process's node serves and that era's plan. Per process, since nodes may share a
     * state directory.
     */
    static final String RECORD_FILE = "node-era";

    /** What {@link #RECORD_FILE} says: the era a node serves and that era's plan's content hash. */
    record Recorded(int era, String planHash)
    {
    }

    /**
     * The era and plan recorded for the processes {@code hosted} in {@code stateDirectory}, or null
     * when none is (processes that have not run with this state directory, or before eras were recorded).
     *
     * @throws IllegalStateException when a file cannot be read as written, or two processes' differ.
     */
    static Recorded recorded(final java.nio.file.Path stateDirectory, final int[] hosted)
    {
        Recorded found = null;
        int foundFor = -1;
        for (final int id : hosted)
        {
            final java.nio.file.Path file = recordFile(stateDirectory, id);
            if (!java.nio.file.Files.exists(file))
            {
                continue;
            }
            final Recorded r;
            try
            {
                final String[] w = java.nio.file.Files.readString(file).trim().split("\\s+");
                if (w.length != 4 || !"era".equals(w[0]) || !"plan".equals(w[2]))
                {
                    throw new IllegalStateException("expected 'era K plan sha256:...'");
                }
                r = new Recorded(Integer.parseInt(w[1]), w[3]);
            }
            catch (final java.io.IOException | RuntimeException ex)
            {
                throw new IllegalStateException("cannot read " + file + " (" + ex.getMessage() + "): it is written " +
                    "whole by the node; restore it, or write 'era K plan HASH' with the era and plan hash 'mmx " +
                    "status' shows", ex);
            }
            if (found != null && !found.equals(r))
            {
                throw new IllegalStateException("processes " + foundFor + " and " + id + " in " + stateDirectory +
                    " record different eras (" + found + ", " + r + "): they ran on different nodes of different " +
                    "eras; give this node the state directories of one node, or join the running era with --join-era");
            }
            found = r;
            foundFor = id;
        }
        return found;
    }

    private static java.nio.file.Path recordFile(final java.nio.file.Path stateDirectory, final int id)
    {
        return stateDirectory.resolve("process-" + id).resolve(RECORD_FILE);
    }

    /**
     * The file of a state directory that asks the node starting on it to join an era ({@link
     * NodeContext#joinEra}): one line, the era. Written by whoever starts a replacement host (the
     * ops scripts), removed by the node once it serves that era.
     */
    static final String JOIN_FILE = "join-era";

    /** The era {@link #JOIN_FILE} asks for, or 0; a file that is not one number goes to {@code errors}. */
    static int joinRequested(final java.nio.file.Path stateDirectory, final List<String> errors)
    {
        final java.nio.file.Path file = stateDirectory.resolve(JOIN_FILE);
        if (!java.nio.file.Files.exists(file))
        {
            return 0;
        }
        try
        {
            return Integer.parseInt(java.nio.file.Files.readString(file).trim());
        }
        catch (final java.io.IOException | NumberFormatException ex)
        {
            errors.add(file + " should hold the era to join, one number (" + ex.getMessage() + "): write the era " +
                "'mmx status' shows, or remove the file");
            return 0;
        }
    }

    /**
     * Records for every process of {@code hosted} in {@code stateDirectory} that its node serves era
     * {@code era} on plan {@code planHash}, each file atomically, and removes a {@link #JOIN_FILE}.
     */
    static void record(final java.nio.file.Path stateDirectory, final int[] hosted, final int era,
        final String planHash)
    {
        for (final int id : hosted)
        {
            final java.nio.file.Path file = recordFile(stateDirectory, id);
            final java.nio.file.Path tmp = file.resolveSibling(RECORD_FILE + ".tmp");
            try
            {
                java.nio.file.Files.createDirectories(file.getParent());
                java.nio.file.Files.writeString(tmp, "era " + era + " plan " + planHash + "\n");
                java.nio.file.Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            catch (final java.io.IOException ex)
            {
                throw new java.io.UncheckedIOException("cannot record the node's era in " + file + ": " +
                    ex.getMessage() + "; free space or fix the permissions of the state directory", ex);
            }
        }
        try
        {
            // Joined (or moved on): a restart serves the recorded era, not the one a join asked for.
            java.nio.file.Files.deleteIfExists(stateDirectory.resolve(JOIN_FILE));
        }
        catch (final java.io.IOException ex)
        {
            throw new java.io.UncheckedIOException("cannot remove " + stateDirectory.resolve(JOIN_FILE) + ": " +
                ex.getMessage() + "; remove it by hand, or a restart joins that era again", ex);
        }
    }

    /** The era's number: 0 until the first live plan change, then the log's era the change began. */
    int number()
    {
        return ctx.era();
    }

    /**
     * Releases the era's links, fabrics and mappings, its replicas' snapshot transfers and, unless a
     * later era took them over, their state directories; and its transport unless it holds the
     * node's driver. The node closes the journal after every era.
     */
    @Override
    public void close()
    {
        closeStates(replicas);
        closeResources();
        if (ownsTransport)
        {
            CloseHelper.quietClose(transport);
        }
    }

    private void closeResources()
    {
        for (int i = resources.size() - 1; i >= 0; i--)
        {
            CloseHelper.quietClose(resources.get(i));
        }
        resources.clear();
    }
}
