package io.mmx.runtime.node;

import io.mmx.aeron.transport.AeronTransport;
import io.mmx.aeron.transport.TransportContext;
import io.mmx.membership.MembershipListener;
import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.runtime.core.CoreConfig;
import io.mmx.runtime.host.ProcessHost;
import io.mmx.runtime.host.Submission;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SystemNanoClock;

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
 *
 * <p><b>Live plan changes.</b> {@link #changePlan} (or {@code mmx reconfigure}) moves the cluster to
 * another plan the nodes hold: once the change is decided, the agent begins the next era
 * on the new plan, carrying every replica's state and the pending submissions, and
 * keeps the ended era serving its peers for 2 s. {@link #era()} and
 * {@link #planHash()} say what the node serves; {@link #left()} that a change left its processes out.
 */
public final class MmxNode implements AutoCloseable
{
    /** How long sessions connected ahead of a plan change ({@link #preparePlan}) wait for its era. */
    public static final long PREPARED_KEEP_NS = java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
    /** How long an era a plan change ended keeps serving its cores to peers still behind, after the switch. */
    static final long ENDED_ERA_RETAIN_NS = 2_000_000_000L;

    private final NodeContext ctx;
    /** Era 0's transport: it holds the node's media driver, which later eras' streams share. */
    private final AeronTransport transport;
    /** The context of the era retired last, whose region files go when the next one retires; agent only. */
    private NodeContext retiredBefore;
    /** Node-lifetime resources: the clients' endpoint, liveness locks, counters and the journal. */
    private final List<AutoCloseable> resources;
    private final NodeEra.Shared shared;
    /** The era the node serves: read by any thread, replaced by the agent at a plan change. */
    private volatile NodeEra era;
    /** Eras a plan change ended that still serve peers behind; agent thread only until close. */
    private final List<NodeEra> endedEras = new ArrayList<>();
    private final NodeAgent agent;
    private final AgentRunner runner;
    private final AtomicInteger pendingCount = new AtomicInteger();
    private final int maxCommandBytes;
    private final int maxPending;
    private final NodeMetrics metrics = new NodeMetrics();
    private final List<ProcessCounters> processCounters = new ArrayList<>();

    private MmxNode(final NodeContext ctx, final IntFunction<StateMachine> stateMachines,
        final NodeListener listener)
    {
        this.ctx = ctx;
        this.maxCommandBytes = ctx.maxCommandBytes();
        this.maxPending = ctx.maxPending();
        final CoreConfig config = ctx.core();
        final int[] hosted = ctx.hosted();
        final SystemNanoClock clock = new SystemNanoClock();
        resources = new ArrayList<>();
        AeronTransport launched = null;
        try
        {
            launched = launchTransport(ctx);
            final ProcessCounters[] countersById = new ProcessCounters[config.n()];
            for (final int id : hosted)
            {
                countersById[id] = new ProcessCounters(id, launched.aeron());
                resources.add(countersById[id]);
                processCounters.add(countersById[id]);
            }
            // The kernel tells a dead JVM from a slow one: on shm by lock files (every region, so every process,
            // is on this machine), on memd by the connections each process's node holds to its region's daemon.
            final io.mmx.rdma.memd.MemdSessions memdSessions = new io.mmx.rdma.memd.MemdSessions(
                NodeEra.MEMD_CONNECT_TIMEOUT_MS);
            io.mmx.membership.neighbour.HostLiveness liveness = io.mmx.membership.neighbour.HostLiveness.NONE;
            if (ctx.memoryKind() == NodeContext.Memory.SHM)
            {
                final ShmLiveness shm = new ShmLiveness(ctx.shmBaseDirectory(), hosted);
                resources.add(shm);
                liveness = shm;
            }
            else if (ctx.memoryKind() == NodeContext.Memory.MEMD)
            {
                liveness = new MemdLiveness(memdSessions::ownerConnected);
            }
            final ClientEndpoint endpoint = clientEndpoint(ctx, launched, config.proposalWords());
            if (endpoint != null)
            {
                resources.add(endpoint);
            }
            shared = new NodeEra.Shared(clock, metrics, countersById, endpoint, memdSessions, liveness, pendingCount,
                listener, leaderDownLog(ctx.tickNs()), launched.aeron());
            resources.add(shared.memdSessions); // closed after every era, whose links release their bindings
            resources.add(shared::closeVerbsQueuePairs); // likewise
            era = NodeEra.first(ctx, launched, shared, stateMachines, resources);
            if (ctx.stateDirectory() != null)
            {
                NodeEra.record(ctx.stateDirectory(), hosted, ctx.era(), ctx.plan().contentHash());
            }
            agent = new NodeAgent(new Eras(), clock, launched.counters(), ctx.tickNs());
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

    /** The eras as the agent drives them: the current one, those ended and retained, and the switch. */
    private final class Eras implements NodeAgent.Eras
    {
        @Override
        public ProcessHost current()
        {
            return era.host;
        }

        @Override
        public int currentNumber()
        {
            return era.number();
        }

        @Override
        public int driveEnded(final long nowNs, final int[] eraOfLines)
        {
            shared.memdSessions.expire(nowNs); // sessions connected ahead of a change that was not made
            final io.mmx.rdma.verbs.VerbsQueuePairs queuePairs = shared.verbsQueuePairsIfOpen();
            if (queuePairs != null)
            {
                queuePairs.expire(nowNs); // likewise queue pairs
            }
            int work = 0;
            for (int i = endedEras.size() - 1; i >= 0; i--)
            {
                final NodeEra ended = endedEras.get(i);
                eraOfLines[0] = ended.number();
                if (nowNs >= ended.retireAtNs)
                {
                    endedEras.remove(i);
                    ended.close();
                    // Like memd, which keeps each owner's regions of its latest two plans: the files of the
                    // era retired before this one go now (this one's stay until the next retires).
                    final String deleted = retiredBefore == null ? "" : NodeEra.deleteRegionFiles(retiredBefore);
                    retiredBefore = ended.ctx;
                    EventLog.log(EventLog.Level.INFO, "era_retired", "era " + ended.number() + " (plan " +
                        ended.ctx.plan().contentHash() + ") stopped serving its peers" + deleted);
                    continue;
                }
                work += ended.host.doWork(nowNs);
            }
            return work;
        }

        @Override
        public void stopped()
        {
            // Its processes run no more: their connections would tell peers' membership they are only slow.
            shared.memdSessions.close();
            shared.closeVerbsQueuePairs();
        }

        @Override
        public void switchEra(final long nowNs)
        {
            final NodeEra ended = era;
            final long sessionsBefore = shared.memdSessions.sessionsOpened();
            final NodeContext next = nextEraContext(ended);
            final NodeEra started;
            try
            {
                started = ended.next(next, shared);
            }
            catch (final RuntimeException ex)
            {
                // Its regions or its stream could not be made (a memd down, the media driver gone): say so and stop.
                throw new NodeAgent.EraEnded("a plan change to plan " + next.plan().contentHash() + " was decided " +
                    "at slot " + ended.host.eraEndedAt() + ", and this node could not begin era " + next.era() + ": " +
                    ex.getMessage() + "; restart it with --plan naming the new plan and --join-era " + next.era(), ex);
            }
            ended.retireAtNs = nowNs + ENDED_ERA_RETAIN_NS;
            endedEras.add(ended);
            era = started;
            if (next.stateDirectory() != null)
            {
                NodeEra.record(next.stateDirectory(), next.hosted(), next.era(), next.plan().contentHash());
            }
            EventLog.log(EventLog.Level.INFO, "era_started", "era " + started.number() + " began on plan " +
                next.plan().contentHash() + " at log slot " + ended.host.eraEndedAt() + " (the change's slot), built " +
                "in " + (shared.clock.nanoTime() - nowNs) / 1_000_000 + " ms (" + (shared.memdSessions.sessionsOpened() -
                sessionsBefore) + " new memd sessions); " +
                "era " + ended.number() + " serves peers still behind for " + ENDED_ERA_RETAIN_NS / 1_000_000 + " ms");
        }
    }

    /**
     * The context of the era after {@code ended}: the plan its change named, which this node must
     * hold (or learn from the change that it leaves), with the same processes and the endpoints the
     * plan names.
     *
     * @throws NodeAgent.EraEnded naming what stops the switch: the node then stops.
     */
    private NodeContext nextEraContext(final NodeEra ended)
    {
        final long id = ended.host.nextPlanId();
        final String change = "a plan change to plan " + Long.toHexString(id) + " was decided at slot " +
            ended.host.eraEndedAt();
        final NodeContext.HeldPlan next;
        try
        {
            next = ctx.heldPlan(id);
        }
        catch (final IllegalStateException ex)
        {
            throw new NodeAgent.EraEnded(change + ", and " + ex.getMessage(), ex);
        }
        final int[] hosted = ctx.hosted();
        final int n = next != null ? next.plan().n() : ended.host.nextPlanProcesses();
        if (n > 0 && java.util.Arrays.stream(hosted).allMatch(p -> p >= n))
        {
            throw new NodeAgent.EraEnded(change + ": that plan has " + n + " processes, without this node's " +
                java.util.Arrays.toString(hosted) + ", so the node leaves the cluster; stop its service and its " +
                "memory daemon (its processes' regions are no longer used once the other nodes switched)", null, true);
        }
        if (next == null)
        {
            throw new NodeAgent.EraEnded(change + ", and this node does not hold that plan" +
                (ctx.plansDirectory() == null ? " (no plans directory: pass --plans DIR)" : " in " +
                ctx.plansDirectory()) + ": copy the plan file there on every node before proposing a change; " +
                "this node stopped, restart it with --plan naming the new plan (docs/protocol.md §8b)");
        }
        final long outside = java.util.Arrays.stream(hosted).filter(p -> p >= n).count();
        if (outside > 0)
        {
            throw new NodeAgent.EraEnded(change + ": that plan has " + n + " processes, so it keeps some of this " +
                "node's processes " + java.util.Arrays.toString(hosted) + " and removes the others, which a running " +
                "node cannot do; restart this node with the new plan and the processes it keeps (docs/protocol.md §8b)");
        }
        try
        {
            // The node's era is its log's: a restarted or joining node finds the same stream and regions.
            return ended.ctx.forEra(next, ended.host.era() + 1, transport.aeron().context().aeronDirectoryName());
        }
        catch (final IllegalStateException ex)
        {
            throw new NodeAgent.EraEnded(change + ", and this node cannot run it: " + unfit(next, ended.ctx, ex), ex);
        }
    }

    /** Why this node cannot run {@code next} after {@code current}'s plan, with the fix when it is a missing directory. */
    private static String unfit(final NodeContext.HeldPlan next, final NodeContext current,
        final IllegalStateException why)
    {
        return why.getMessage() + (next.directory() == null && next.plan().n() != current.plan().n() ?
            " (a plan of another size needs its processes' endpoints: put them in a file NAME.directory beside " +
            "the plan file NAME.json)" : "");
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
        final io.mmx.runtime.client.ClientKey key = io.mmx.runtime.client.ClientKey.fromTransportKey(
            ctx.hostKeys().transportKey());
        return new ClientEndpoint(transport.aeron(), ctx.transport().localEndpoint(), transport.directory(), key,
            ClientCommands.maxCommandBytes(proposalWords));
    }

    private void onAgentError(final Throwable t)
    {
        // An AgentTerminationException stops the agent (the node then refuses submissions and its
        // status names the failure); anything else was thrown by one duty cycle, and the next one runs.
        if (t.getCause() instanceof NodeAgent.EraEnded ended)
        {
            if (ended.left())
            {
                EventLog.log(EventLog.Level.INFO, "node_left", ended.getMessage());
            }
            else
            {
                EventLog.log(EventLog.Level.ERROR, "agent_stopped", "the node's agent stopped: " + ended.getMessage());
            }
            return;
        }
        final String what = t instanceof org.agrona.concurrent.AgentTerminationException ?
            "the node's agent stopped (the status and every pending submission name the failure): " :
            "one duty cycle of the node's agent failed; the next one runs: ";
        EventLog.log(EventLog.Level.ERROR, "agent_failed", what + io.mmx.planner.cli.TopoCommand.unexpected(t));
    }

    /** The node's Aeron transport; a port in use is one sentence naming the endpoint and the fix. */
    static AeronTransport launchTransport(final NodeContext ctx)
    {
        return launchTransport(ctx, null);
    }

    /** {@link #launchTransport(NodeContext)} on {@code client}, a connected Aeron client, or on one of its own (null). */
    static AeronTransport launchTransport(final NodeContext ctx, final io.aeron.Aeron client)
    {
        try
        {
            return AeronTransport.launch(ctx.transport().client(client));
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
     * Proposes a live change to the plan whose content hash is {@code contentHash}
     * (docs/protocol.md §8b). This node must hold the plan (its plans directory, or
     * {@link NodeContext#heldPlans}); so must every other node when the change is decided, or it stops.
     * Once decided, every node begins the next era on that plan; {@code mmx reconfigure} checks the
     * nodes first and waits for that.
     *
     * @return completed with the change's log index once it is decided and applied at this node, or
     *         failed with {@link SubmitRefusedException} naming why it was not proposed, or as
     *         {@link #submit(DirectBuffer, int, int)}'s futures fail.
     */
    public CompletableFuture<Long> changePlan(final String contentHash)
    {
        final Plan next;
        try
        {
            next = heldPlan(contentHash);
        }
        catch (final IllegalArgumentException | IllegalStateException ex)
        {
            return refused(ex.getMessage());
        }
        if (next == null)
        {
            return refused("this node does not hold plan " + contentHash + (ctx.plansDirectory() == null ? "" :
                " in " + ctx.plansDirectory()) + ": copy the plan file into every node's plans directory first");
        }
        if (next.contentHash().equals(planHash()))
        {
            return refused("plan " + contentHash + " is the plan in service: nothing to change");
        }
        return admit(Submission.planChange(next.digest().id64(), next.n()));
    }

    /**
     * Prepares this node for a change to the plan {@code contentHash} before the change is proposed:
     * on memd it connects, on a thread of its own, a session for each edge the plan adds at this
     * node's processes, so that the links to new neighbours are open before the change takes effect
     * and the switch only binds the new era's regions on them ({@code mmx reconfigure} prepares every
     * node this way). On verbs it connects the queue pairs of those edges likewise (an OPEN each: the
     * region host admits a queue pair with no region yet, and the switch binds the new era's region on
     * it). Sessions and queue pairs no era binds within {@link #PREPARED_KEEP_NS} close again. On shm
     * there is nothing to connect (no connections). On every memory it checks that this node
     * can run the plan (it holds it, and the endpoints of a plan of another size), so a change the node
     * could not follow is refused before it is proposed instead of stopping the node once decided.
     *
     * @return completed with the number of sessions or queue pairs connected, or failed naming why this
     *     node cannot run that plan (not held, endpoints missing).
     */
    public CompletableFuture<Integer> preparePlan(final String contentHash)
    {
        final NodeContext next;
        final NodeEra current = era;
        try
        {
            final Plan plan = heldPlan(contentHash);
            if (plan == null)
            {
                throw new IllegalStateException("this node does not hold plan " + contentHash +
                    (ctx.plansDirectory() == null ? "" : " in " + ctx.plansDirectory()) +
                    ": copy the plan file into every node's plans directory first");
            }
            if (java.util.Arrays.stream(ctx.hosted()).allMatch(p -> p >= plan.n()))
            {
                return CompletableFuture.completedFuture(0); // this node leaves at that change
            }
            // The context the switch would build: a plan this node cannot run is refused now, before the
            // change is proposed, rather than stopping the node once it is decided.
            final NodeContext.HeldPlan held = ctx.heldPlan(plan.digest().id64());
            try
            {
                next = current.ctx.forEra(held, current.number() + 1, transport.aeron().context().aeronDirectoryName());
            }
            catch (final IllegalStateException ex)
            {
                throw new IllegalStateException(unfit(held, current.ctx, ex), ex);
            }
            if (ctx.memoryKind() == NodeContext.Memory.VERBS)
            {
                return connectQueuePairsAhead(next, current.number() + 1);
            }
            if (ctx.memoryKind() != NodeContext.Memory.MEMD)
            {
                return CompletableFuture.completedFuture(0);
            }
        }
        catch (final IllegalArgumentException | IllegalStateException ex)
        {
            return CompletableFuture.failedFuture(new SubmitRefusedException(ex.getMessage()));
        }
        return shared.memdSessions.connectAhead(edgeEnds(next, (p, q) -> new io.mmx.rdma.memd.MemdSessions.Edge(p, q,
            NodeEra.memdAddress(next, q))), next.hostKeys()::processKey, shared.clock.nanoTime(), PREPARED_KEEP_NS);
    }

    // The verbs queue pairs of every edge end of this node's processes in the era {@code next} would run.
    private CompletableFuture<Integer> connectQueuePairsAhead(final NodeContext next, final int nextEra)
    {
        final io.mmx.rdma.verbs.VerbsQueuePairs pool = shared.verbsQueuePairsIfOpen();
        if (pool == null)
        {
            return CompletableFuture.completedFuture(0); // no era of this node runs on verbs yet
        }
        return pool.connectAhead(edgeEnds(next, (p, q) -> new io.mmx.rdma.verbs.VerbsQueuePairs.Edge(p, q,
            NodeEra.verbsHostAddress(next, q))), next.hostKeys()::processKey, next.plan().digest(), nextEra,
            shared.clock.nanoTime(), PREPARED_KEEP_NS);
    }

    /** The edge ends of this node's processes under {@code next}: each to its own region and to each neighbour's. */
    private static <E> List<E> edgeEnds(final NodeContext next,
        final java.util.function.BiFunction<Integer, Integer, E> end)
    {
        final io.mmx.planner.graph.Graph graph = next.core().graph();
        final List<E> ends = new ArrayList<>();
        for (final int p : next.hosted())
        {
            ends.add(end.apply(p, p));
            for (final int q : graph.neighbours(p))
            {
                ends.add(end.apply(p, q));
            }
        }
        return ends;
    }

    /**
     * The plan with content hash {@code contentHash} among those this node holds, or null.
     *
     * @throws IllegalArgumentException if {@code contentHash} is not a plan hash ({@code sha256:} and 64 hex digits).
     */
    public Plan heldPlan(final String contentHash)
    {
        final PlanDigest digest = PlanDigest.parse(contentHash);
        final Plan p = era.ctx.plan().digest().id64() == digest.id64() ? era.ctx.plan() :
            held(ctx.heldPlan(digest.id64()));
        return p != null && p.contentHash().equals(digest.text()) ? p : null;
    }

    /** The plan the node serves now. */
    public Plan plan()
    {
        return era.ctx.plan();
    }

    private static Plan held(final NodeContext.HeldPlan p)
    {
        return p == null ? null : p.plan();
    }

    /** Proposes a change to the plan with id {@code planId}, held or not (tests show what a node does without it). */
    CompletableFuture<Long> proposePlanChange(final long planId)
    {
        return admit(Submission.planChange(planId));
    }

    private CompletableFuture<Long> refused(final String why)
    {
        metrics.onSubmission(NodeMetrics.Outcome.REFUSED, 0);
        return CompletableFuture.failedFuture(new SubmitRefusedException(why));
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
        final ProcessHost host = era.host;
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
        for (final ProcessReplica r : era.replicas)
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
        final ProcessReplica[] replicas = era.replicas;
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

    /** True once a plan change left all of this node's processes out and the node left the cluster. */
    public boolean left()
    {
        return agent.failure() instanceof NodeAgent.EraEnded ended && ended.left();
    }

    /** The plan's content hash, {@code sha256:...}. */
    public String planHash()
    {
        return era.ctx.plan().contentHash();
    }

    /**
     * The era the node serves: 0 until the cluster's first live plan change, then the log's era that
     * change began (what {@code --join-era} takes).
     */
    public int era()
    {
        return era.number();
    }

    /**
     * The connections this node's links hold, as JSON: {@code open} now, and {@code opened} and
     * {@code closed} since launch: memd sessions on memd, queue pairs on verbs. One per edge of a
     * hosted process (and one to each hosted process's own region), kept across live plan changes for
     * the edges both plans share. Zero on shm (mappings, no connections).
     */
    public String linksJson()
    {
        final io.mmx.rdma.memd.MemdSessions sessions = shared.memdSessions;
        final io.mmx.rdma.verbs.VerbsQueuePairs queuePairs = shared.verbsQueuePairsIfOpen();
        if (queuePairs != null)
        {
            return "{\"kind\":\"verbs queue pairs\",\"open\":" + queuePairs.openQueuePairs() + ",\"opened\":" +
                queuePairs.queuePairsOpened() +
                ",\"closed\":" + queuePairs.queuePairsClosed() + "}";
        }
        final String kind = ctx.memoryKind() == NodeContext.Memory.SHM ? "none" : "memd sessions";
        return "{\"kind\":\"" + kind + "\",\"open\":" + sessions.openSessions() + ",\"opened\":" +
            sessions.sessionsOpened() +
            ",\"closed\":" + sessions.sessionsClosed() + "}";
    }

    /**
     * Transport frame counts as JSON: sent, accepted, and each non-zero drop reason (a test or an
     * operator reads why messages did not arrive).
     */
    public String transportCountersJson()
    {
        final io.mmx.aeron.frame.FrameCounters c = era.transport.counters();
        final StringBuilder sb = new StringBuilder("{\"sent\":").append(c.sent()).append(",\"messages\":")
            .append(c.messages()).append(",\"accepted\":").append(c.accepted());
        for (final io.mmx.aeron.frame.DropReason r : io.mmx.aeron.frame.DropReason.values())
        {
            if (c.dropped(r) > 0)
            {
                sb.append(",\"").append(r.name().toLowerCase(java.util.Locale.ROOT)).append("\":").append(c.dropped(r));
            }
        }
        return sb.append(",\"undecodable\":").append(era.host.droppedFrames()).append('}').toString();
    }

    /** This node's counters and histograms as Prometheus text ({@code GET /metrics}). */
    public String metricsText()
    {
        final NodeEra e = era;
        return metrics.prometheus(status(), e.fabricCounters, processCounters, transport.counters(), pendingCount.get(),
            e.clients == null ? null : e.clients.endpoint());
    }

    /**
     * Outside clients' frames as JSON: accepted, replies sent, malformed requests, refusals, and
     * drops by reason (a frame signed with another key counts as {@code bad_tag}); null when the node
     * takes no clients.
     */
    public String clientCountersJson()
    {
        final NodeClients clients = era.clients;
        return clients == null ? null : clients.countersJson();
    }

    /** The client key of this node's cluster (what {@code mmx keys client} writes). */
    public io.mmx.runtime.client.ClientKey clientKey()
    {
        return io.mmx.runtime.client.ClientKey.fromTransportKey(ctx.hostKeys().transportKey());
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
        final NodeEra current = era;
        current.host.failAll("node closed");
        // The agent has stopped: the state machines are quiet, and a clean stop leaves a snapshot.
        for (final ProcessReplica replica : current.replicas)
        {
            replica.snapshotNow();
        }
        endedEras.forEach(CloseHelper::quietClose);
        endedEras.clear();
        current.close();
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
