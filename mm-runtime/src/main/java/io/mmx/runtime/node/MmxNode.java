package io.mmx.runtime.node;

import io.mmx.aeron.transport.AeronTransport;
import io.mmx.aeron.transport.TransportContext;
import io.mmx.membership.MembershipListener;
import io.mmx.membership.neighbour.FabricHeartbeats;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.fabric.RegionLinkFactory;
import io.mmx.rdma.memd.MemdLinkFactory;
import io.mmx.rdma.region.HostKeys;
import io.mmx.rdma.shm.ShmRegionStore;
import io.mmx.runtime.core.CoreConfig;
import io.mmx.runtime.core.RegionLayout;
import io.mmx.runtime.host.HostClients;
import io.mmx.runtime.host.HostContext;
import io.mmx.runtime.host.HostedProcess;
import io.mmx.runtime.host.ProcessHost;
import io.mmx.runtime.host.Submission;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SystemNanoClock;

import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * An mmx node: the processes one JVM hosts, each a replica of the application's
 * {@link StateMachine}, running m&amp;m Paxos over Aeron messages and memory regions along the plan.
 *
 * <pre>{@code
 * NodeContext ctx = new NodeContext().plan(PlanFile.read(path)).hosted(3)
 *     .directory("0-7@10.0.0.1:40100;8-15@10.0.0.2:40100").clusterKey(key);
 * try (MmxNode node = MmxNode.launch(ctx, id -> new KeyValueStore(), NodeListener.NO_OP))
 * {
 *     long reply = node.submit(command).get();   // committed and applied at this node's replica
 * }
 * }</pre>
 *
 * <p><b>Threading.</b> One agent thread ({@code mmx-node}) runs the node's {@link ProcessHost}, which
 * does all protocol work and calls the state machines and listeners. {@link #submit} and
 * {@link #status} are thread-safe.
 *
 * <p><b>Ordering.</b> Every replica applies the same commands in the same order, each once.
 * Submissions of one node are proposed in submission order, but a leader change may reorder
 * commands that were in flight together.
 *
 * <p><b>Back-pressure.</b> At most {@code maxPending} submissions may be queued or awaiting commit;
 * beyond that {@link #submit} returns a future already failed with {@link SubmitRefusedException}.
 * A future that is not completed within the submit timeout fails with {@link SubmitTimeoutException}
 * (outcome unknown). Futures complete on the agent thread: chain with {@code *Async} methods for
 * anything slow.
 */
public final class MmxNode implements AutoCloseable
{
    private final NodeContext ctx;
    private final AeronTransport transport;
    private final List<AutoCloseable> resources;
    private final ProcessReplica[] replicas;
    private final ProcessHost host;
    private final NodeAgent agent;
    /** Outside clients at the UDP endpoint, or null (a node without one). */
    private final NodeClients clients;
    private final AgentRunner runner;
    private final AtomicInteger pendingCount = new AtomicInteger();
    private final int maxCommandBytes;
    private final int maxPending;
    private final NodeMetrics metrics = new NodeMetrics();
    private final List<io.mmx.rdma.fabric.FabricCounters> fabricCounters = new ArrayList<>();
    private final List<ProcessCounters> processCounters = new ArrayList<>();

    private MmxNode(final NodeContext ctx, final IntFunction<StateMachine> stateMachines,
        final NodeListener listener)
    {
        this.ctx = ctx;
        this.maxCommandBytes = ctx.maxCommandBytes();
        this.maxPending = ctx.maxPending();
        final CoreConfig config = ctx.core();
        final Graph graph = config.graph();
        final RegionLayout layout = config.layout();
        final int[] hosted = ctx.hosted();
        final HostKeys memoryKey = ctx.hostKeys();
        final PlanDigest digest = PlanDigest.ofGraph(graph);
        final SystemNanoClock clock = new SystemNanoClock();
        resources = new ArrayList<>();
        AeronTransport launched = null;
        try
        {
            launched = launchTransport(ctx);
            final RegionLinkFactory links = linkFactory(ctx, hosted, layout, digest, memoryKey);
            replicas = new ProcessReplica[hosted.length];
            final ProcessReplica[] byId = new ProcessReplica[graph.n()];
            final HostedProcess[] processes = new HostedProcess[hosted.length];
            final SecureRandom random = new SecureRandom();
            final AeronHostTransport hostTransport = new AeronHostTransport(launched);
            final ProcessHost[] hostRef = new ProcessHost[1];
            final ProcessReplica.Completions completions = ProcessReplica.Completions.toHost(hostRef);
            final List<Integer> formatted = new ArrayList<>();
            final FabricMemory.Stages stages = new FabricMemory.Stages(); // one agent thread: shared
            for (int i = 0; i < hosted.length; i++)
            {
                final int id = hosted[i];
                final ConnectionManager connections = ConnectionManager.open(graph, id, links);
                resources.add(connections);
                final PlanMemoryFabric fabric = new PlanMemoryFabric(connections, clock);
                resources.add(fabric);
                fabricCounters.add(fabric.counters());
                checkRegion(ctx, id, RegionSetup.exists(fabric, id));
                final boolean fresh = RegionSetup.formatIfNew(fabric, id, config.planHash(), ctx.regionsLost());
                if (fresh)
                {
                    formatted.add(id);
                }
                final int[] neighbours = graph.neighbours(id);
                final FabricHeartbeats heartbeats = new FabricHeartbeats(fabric, neighbours,
                    8L * RegionLayout.HEARTBEAT_WORD, ctx.memoryOpTimeoutNs()).polledByHost();
                final FabricMemory memory = new FabricMemory(fabric, heartbeats, ctx.memoryOpTimeoutNs(),
                    metrics::onFabricOp, clock, stages);
                final ProcessCounters counters = new ProcessCounters(id, launched.aeron());
                resources.add(counters);
                processCounters.add(counters);
                replicas[i] = new ProcessReplica(id, config, memory, hostTransport, stateMachines.apply(id),
                    completions, listener, random.nextLong(), connections.connectionCount(),
                    new ReplicaEvents(id, neighbours, ctx.tickNs(), counters, !fresh));
                byId[id] = replicas[i];
                processes[i] = new HostedReplica(replicas[i], neighbours, heartbeats);
            }
            if (!formatted.isEmpty())
            {
                EventLog.log(ctx.regionsLost() ? EventLog.Level.WARN : EventLog.Level.INFO, "regions_formatted",
                    RegionSetup.formattedLine(formatted, ctx.regionsLost()));
            }
            // On shm every region, so every process, is on this machine: the kernel tells a dead JVM from a slow one.
            io.mmx.membership.neighbour.HostLiveness liveness = io.mmx.membership.neighbour.HostLiveness.NONE;
            if (ctx.memoryKind() == NodeContext.Memory.SHM)
            {
                final ShmLiveness shm = new ShmLiveness(ctx.shmDirectoryPath() != null ? ctx.shmDirectoryPath() :
                    io.mmx.rdma.shm.ShmRegionStore.DEFAULT_DIRECTORY, hosted);
                resources.add(shm);
                liveness = shm;
            }
            final ClientEndpoint endpoint = clientEndpoint(ctx, launched, config.proposalWords());
            if (endpoint != null)
            {
                resources.add(endpoint);
                clients = new NodeClients(endpoint, byId, replicas[0], config.proposalWords(), maxPending,
                    ctx.tickNs(), ctx.submitTimeoutNs());
            }
            else
            {
                clients = null;
            }

            if (ctx.stateDirectory() != null)
            {
                // Closed after every replica's state (resources close in reverse).
                final HostJournal journal = HostJournal.open(ctx.stateDirectory(), hosted);
                resources.add(journal);
                for (final ProcessReplica replica : replicas)
                {
                    final StateMachine machine = replica.stateMachine();
                    if (!machine.snapshots())
                    {
                        throw new IllegalStateException("--state-dir needs a state machine that takes snapshots; " +
                            machine.getClass().getName() + " does not (StateMachine.snapshots())");
                    }
                    resources.add(replica::closeState);
                    replica.transferFaults(ctx.transferFaults());
                    replica.restoreFrom(ReplicaDurability.open(ctx.stateDirectory(), replica.id(),
                        config.maxBatch(), ctx.snapshotEveryCommands(), journal), ctx.coldStart(),
                        ctx.coldStartMajority());
                }
            }
            // Processes behind one endpoint are hosted by one JVM: they stop together.
            final int[] hostOf = new int[graph.n()];
            for (int p = 0; p < hostOf.length; p++)
            {
                hostOf[p] = launched.directory().endpointIndexOf(p);
            }
            host = new ProcessHost(new HostContext().transport(hostTransport).core(config).processes(processes)
                .membership(ctx.membership()).planDigest(ctx.planDigest()).hostOf(hostOf).liveness(liveness)
                .membershipListener(leaderDownLog(ctx.tickNs())).seed(random.nextLong()).tickNs(ctx.tickNs())
                .incarnation(random.nextInt()).submitTimeoutNs(ctx.submitTimeoutNs()).maxPending(maxPending)
                .pendingCount(pendingCount).clients(clients != null ? clients : HostClients.NONE));
            hostRef[0] = host;
            agent = new NodeAgent(host, clock, launched.counters(), ctx.tickNs());
            transport = launched;
            runner = new AgentRunner(TransportContext.idleStrategy(ctx.idleStrategyName()), this::onAgentError,
                null, agent);
        }
        catch (final RuntimeException ex)
        {
            closeResources();
            CloseHelper.quietClose(launched);
            throw ex;
        }
    }

    /** Membership's events the node logs itself (the replicas read the rest every tick). */
    private static MembershipListener leaderDownLog(final long tickNs)
    {
        return new MembershipListener()
        {
            @Override
            public void onLeaderStopped(final int leaderId, final long stillTicks, final int stillReads, final long nowTick)
            {
                EventLog.log(EventLog.Level.WARN, "leader_down", "declared leader " + leaderId + " stopped: its memory " +
                    "heartbeat stood still for " + stillTicks * tickNs / 1_000_000 + " ms over " + stillReads +
                    " reads; told every member");
            }
        };
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

    /**
     * Starts a node: concludes the context, launches the transport, creates or reopens the hosted
     * processes' regions, and starts the agent thread.
     *
     * @param ctx           the configuration.
     * @param stateMachines one state machine per hosted process id.
     * @param listener      role changes.
     * @throws IllegalStateException naming what is wrong with the configuration or the environment.
     */
    public static MmxNode launch(final NodeContext ctx, final IntFunction<StateMachine> stateMachines,
        final NodeListener listener)
    {
        ctx.conclude();
        final MmxNode node = new MmxNode(ctx, stateMachines, listener);
        AgentRunner.startOnThread(node.runner);
        return node;
    }

    /**
     * Outside clients reach the node at its UDP endpoint on their own stream, with the client key
     * derived from the transport key; a node without a UDP endpoint (IPC only) takes no clients.
     */
    private static ClientEndpoint clientEndpoint(final NodeContext ctx, final AeronTransport transport,
        final int proposalWords)
    {
        if (ctx.transport().medium() != TransportContext.Medium.UDP)
        {
            return null;
        }
        final io.mmx.runtime.client.ClientKey key = io.mmx.runtime.client.ClientKey.fromTransportKey(ctx.planDigest().id64(),
            ctx.hostKeys().transportKey());
        return new ClientEndpoint(transport.aeron(), ctx.transport().localEndpoint(), transport.directory(), key,
            ClientCommands.maxCommandBytes(proposalWords));
    }

    private RegionLinkFactory linkFactory(final NodeContext ctx, final int[] hosted, final RegionLayout layout,
        final PlanDigest digest, final HostKeys key)
    {
        if (ctx.memoryKind() == NodeContext.Memory.VERBS)
        {
            return verbsLinks(ctx, hosted, layout, digest, key);
        }
        if (ctx.memoryKind() == NodeContext.Memory.SHM)
        {
            return shmRegions(ctx, hosted, layout, digest, key, resources).linkFactory(digest, key);
        }
        final IntFunction<InetSocketAddress> daemonOf = (owner) -> address(ctx.memdDirectory(), owner);
        final io.mmx.rdma.region.ProcessKey[] keys = hostedKeys(ctx, hosted, key);
        for (final int id : hosted)
        {
            RegionSetup.createMemd(daemonOf.apply(id), keys[id], layout, digest);
        }
        return new MemdLinkFactory(daemonOf, (self) -> keys[self], digest, 2000);
    }

    /**
     * Regions in shm files here, served over RDMA by this host's memd in verbs mode ({@code mmx memd
     * --verbs-listen}), which holds their registrations, so a region stays served when this node dies;
     * every link, the loopback to a hosted process's own region included, is a queue pair by rdma_cm.
     */
    private RegionLinkFactory verbsLinks(final NodeContext ctx, final int[] hosted, final RegionLayout layout,
        final PlanDigest digest, final HostKeys key)
    {
        // Fail before creating anything: one message naming libdisni, libibverbs, the device or its atomics.
        io.mmx.rdma.verbs.VerbsBackend.requireAvailable();
        // The files hold the regions and memd maps and registers them; this node keeps no mapping of its
        // own, so it reaches its own region, like every other, through a queue pair.
        final List<AutoCloseable> mappings = new ArrayList<>();
        shmRegions(ctx, hosted, layout, digest, key, mappings);
        mappings.forEach(CloseHelper::quietClose);
        final IntFunction<io.mmx.rdma.verbs.VerbsHostAddress> hostOf = (owner) ->
            io.mmx.rdma.verbs.VerbsHostAddress.handshakeOnNextPort(address(ctx.verbsDirectory(), owner));
        final io.mmx.rdma.region.ProcessKey[] keys = hostedKeys(ctx, hosted, key);
        return io.mmx.rdma.verbs.VerbsLinkFactory.open(hostOf, (self) -> keys[self], digest, 5000);
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
        final ShmRegionStore store = new ShmRegionStore(ctx.shmDirectoryPath() != null ?
            ctx.shmDirectoryPath() : ShmRegionStore.DEFAULT_DIRECTORY);
        for (final int id : hosted)
        {
            mappings.add(store.createOrOpen(id, 8L * layout.regionWords(), digest, key));
        }
        return store;
    }

    private static InetSocketAddress address(final io.mmx.aeron.transport.ProcessDirectory directory, final int id)
    {
        return io.mmx.rdma.memd.MemdCommandLine.parseAddress(directory.endpoint(directory.endpointIndexOf(id)));
    }

    private void onAgentError(final Throwable t)
    {
        // An AgentTerminationException stops the agent (the node then refuses submissions and its
        // status names the failure); anything else was thrown by one duty cycle, and the next one runs.
        if (t.getCause() instanceof NodeAgent.EraEnded)
        {
            EventLog.log(EventLog.Level.ERROR, "agent_stopped", "the node's agent stopped: " + t.getCause().getMessage());
            return;
        }
        final String what = t instanceof org.agrona.concurrent.AgentTerminationException ?
            "the node's agent stopped (the status and every pending submission name the failure): " :
            "one duty cycle of the node's agent failed; the next one runs: ";
        EventLog.log(EventLog.Level.ERROR, "agent_failed", what + io.mmx.planner.cli.TopoCommand.unexpected(t));
    }

    /** The node's Aeron transport; a port in use is one sentence naming the endpoint and the fix. */
    private static AeronTransport launchTransport(final NodeContext ctx)
    {
        try
        {
            return AeronTransport.launch(ctx.transport());
        }
        catch (final io.aeron.exceptions.AeronException ex)
        {
            final String why = String.valueOf(ex.getMessage()).replaceFirst("^(ERROR - )+", "");
            throw new IllegalStateException("cannot open this node's Aeron endpoint " + ctx.transport().localEndpoint() +
                " (" + why + "); if another node or program holds that UDP port, stop it or give this node a free " +
                "port in --directory", ex);
        }
    }

    /**
     * Submits a command (at most {@code maxCommandBytes}) through this node.
     *
     * @return a future completed with the state machine's reply at this node's first replica once the
     *         command is committed and applied there.
     */
    public CompletableFuture<Long> submit(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < 0 || length > maxCommandBytes)
        {
            metrics.onSubmission(NodeMetrics.Outcome.REFUSED, 0);
            return CompletableFuture.failedFuture(new SubmitRefusedException("command of " + length +
                " bytes exceeds maxCommandBytes " + maxCommandBytes + ": raise it on every node or split the command"));
        }
        final byte[] copy = new byte[length];
        buffer.getBytes(offset, copy);
        return admit(new Submission(copy, false));
    }

    /**
     * Submits a probe: a command with no payload that is ordered and decided like any other but
     * never reaches a state machine. Its commit shows the cluster serves; operators send probes
     * through {@code POST /probe} on the status port.
     *
     * @return a future completed with the log index at which the probe committed, or failed as
     *         {@link #submit(DirectBuffer, int, int)}'s futures fail.
     */
    public CompletableFuture<Long> probe()
    {
        return admit(new Submission(new byte[0], true));
    }

    /**
     * Proposes a plan change to the plan with id {@code planId} (docs/protocol.md §8b). A node does
     * not switch plans yet: once the change is decided every node stops, naming it. Package-private
     * until nodes switch; tests use it to show that stop.
     *
     * @return completed with the change's log index, as a probe's.
     */
    CompletableFuture<Long> proposePlanChange(final long planId)
    {
        return admit(Submission.planChange(planId));
    }

    /** Refuses at once when the node is closed or {@code maxPending} submissions are pending. */
    private CompletableFuture<Long> admit(final Submission s)
    {
        final CompletableFuture<Long> refused = refusal(s);
        if (refused != null)
        {
            metrics.onSubmission(NodeMetrics.Outcome.REFUSED, 0);
            return refused;
        }
        final long startNs = System.nanoTime();
        s.future().whenComplete((reply, failure) -> metrics.onSubmission(outcome(failure), System.nanoTime() - startNs));
        return s.future();
    }

    private CompletableFuture<Long> refusal(final Submission s)
    {
        if (host.closed())
        {
            final Throwable failure = agent.failure();
            return CompletableFuture.failedFuture(new SubmitRefusedException(failure == null ? "node is closed" :
                "node failed: " + failure));
        }
        if (pendingCount.incrementAndGet() > maxPending)
        {
            pendingCount.decrementAndGet();
            return CompletableFuture.failedFuture(new SubmitRefusedException(maxPending + " submissions are " +
                "pending: wait for commits, or raise maxPending"));
        }
        if (!host.enqueue(s))
        {
            pendingCount.decrementAndGet();
            return CompletableFuture.failedFuture(new SubmitRefusedException("submission queue full"));
        }
        return null;
    }

    private static NodeMetrics.Outcome outcome(final Throwable failure)
    {
        final Throwable cause = failure instanceof java.util.concurrent.CompletionException &&
            failure.getCause() != null ? failure.getCause() : failure;
        if (cause == null)
        {
            return NodeMetrics.Outcome.COMMITTED;
        }
        if (cause instanceof SubmitTimeoutException)
        {
            return NodeMetrics.Outcome.TIMEOUT;
        }
        return cause instanceof SubmitRefusedException ? NodeMetrics.Outcome.REFUSED : NodeMetrics.Outcome.FAILED;
    }

    /** {@link #submit(DirectBuffer, int, int)} of a whole array. */
    public CompletableFuture<Long> submit(final byte[] command)
    {
        return submit(new org.agrona.concurrent.UnsafeBuffer(command), 0, command.length);
    }

    /** The hosted replica of process {@code id} (tests read its counters), or null. */
    ProcessReplica replica(final int id)
    {
        for (final ProcessReplica r : replicas)
        {
            if (r.id() == id)
            {
                return r;
            }
        }
        return null;
    }

    /** The hosted processes' latest status, refreshed on the agent thread. */
    public List<ProcessStatus> status()
    {
        final List<ProcessStatus> list = new ArrayList<>(replicas.length);
        for (final ProcessReplica r : replicas)
        {
            list.add(r.status());
        }
        return list;
    }

    /**
     * What stopped this node's agent (an exception or error from the protocol core or a state
     * machine), or null while it runs. A failed node refuses submissions and has failed every
     * pending future; its replicas' states can no longer be trusted: restart the JVM.
     */
    public Throwable failure()
    {
        return agent.failure();
    }

    /** The plan's content hash, {@code sha256:...}. */
    public String planHash()
    {
        return ctx.plan().contentHash();
    }

    /**
     * Transport frame counts as JSON: sent, accepted, and each non-zero drop reason (a test or an
     * operator reads why messages did not arrive).
     */
    public String transportCountersJson()
    {
        final io.mmx.aeron.frame.FrameCounters c = transport.counters();
        final StringBuilder sb = new StringBuilder("{\"sent\":").append(c.sent()).append(",\"messages\":")
            .append(c.messages()).append(",\"accepted\":").append(c.accepted());
        for (final io.mmx.aeron.frame.DropReason r : io.mmx.aeron.frame.DropReason.values())
        {
            if (c.dropped(r) > 0)
            {
                sb.append(",\"").append(r.name().toLowerCase(java.util.Locale.ROOT)).append("\":").append(c.dropped(r));
            }
        }
        return sb.append(",\"undecodable\":").append(host.droppedFrames()).append('}').toString();
    }

    /** This node's counters and histograms as Prometheus text ({@code GET /metrics}). */
    public String metricsText()
    {
        return metrics.prometheus(status(), fabricCounters, processCounters, transport.counters(), pendingCount.get(),
            clients == null ? null : clients.endpoint());
    }

    /**
     * Outside clients' frames as JSON: accepted, replies sent, malformed requests, refusals, and
     * drops by reason (a frame signed with another key counts as {@code bad_tag}); null when the node
     * takes no clients.
     */
    public String clientCountersJson()
    {
        return clients == null ? null : clients.countersJson();
    }

    /** The client key of this node's cluster (what {@code mmx keys client} writes). */
    public io.mmx.runtime.client.ClientKey clientKey()
    {
        return io.mmx.runtime.client.ClientKey.fromTransportKey(ctx.planDigest().id64(), ctx.hostKeys().transportKey());
    }

    /** The node's counters and histograms (tests read them). */
    NodeMetrics metrics()
    {
        return metrics;
    }

    /** The node's transport (tests read its counters). */
    AeronTransport transport()
    {
        return transport;
    }

    /** Submissions queued or awaiting commit. */
    public int pending()
    {
        return pendingCount.get();
    }

    /** Stops the agent, fails what is pending, and releases transport, fabrics and mappings. */
    @Override
    public void close()
    {
        CloseHelper.quietClose(runner);
        host.failAll("node closed");
        // The agent has stopped: the state machines are quiet, and a clean stop leaves a snapshot.
        for (final ProcessReplica replica : replicas)
        {
            replica.snapshotNow();
        }
        closeResources();
        CloseHelper.quietClose(transport);
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
