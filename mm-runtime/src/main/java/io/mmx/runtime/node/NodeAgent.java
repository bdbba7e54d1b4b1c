package io.mmx.runtime.node;

import io.mmx.aeron.frame.FrameHeader;
import io.mmx.aeron.transport.AeronTransport;
import io.mmx.membership.node.MembershipAgent;
import io.mmx.runtime.core.CoreConfig;
import io.mmx.runtime.core.Message;
import io.mmx.runtime.node.wire.CoreMessageCodec;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The node's single agent: polls frames (through membership, which hands over the frames that are
 * not its own), polls each hosted process's memory fabric, advances ticks, and moves submissions
 * from client threads to the leader. Everything a node does happens on this agent's thread.
 */
final class NodeAgent implements Agent, MembershipAgent.ApplicationHandler, ProcessReplica.Completions
{
    /** A client's command on its way. */
    static final class Submission
    {
        final CompletableFuture<Long> future = new CompletableFuture<>();
        final byte[] payload;
        final boolean probe;
        long counter;
        long[] words;
        long deadlineTick;
        long routedTick = Long.MIN_VALUE;
        int routedTo = -1;

        Submission(final byte[] payload)
        {
            this(payload, false);
        }

        /** @param probe a probe: ordered and decided, never applied; {@code payload} is ignored. */
        Submission(final byte[] payload, final boolean probe)
        {
            this.payload = payload;
            this.probe = probe;
        }
    }

    private static final int DRAIN_LIMIT = 256;

    private final MembershipAgent membership;
    private final ProcessReplica[] replicaById;
    private final ProcessReplica[] replicas;
    private final CoreMessageCodec codec;
    private final int proposalWords;
    private final int origin;
    private final int incarnation;
    private final long submitTimeoutTicks;
    private final long resubmitTicks;
    private final ManyToOneConcurrentArrayQueue<Submission> submissions;
    private final AtomicInteger pendingCount;
    private final Long2ObjectHashMap<Submission> pending = new Long2ObjectHashMap<>();
    private final List<Submission> expired = new ArrayList<>();
    private final long[] forwarded;
    /** Commands drained in this cycle for a remote leader, sent together by {@link #flushForwards}. */
    private final long[] forwardBatch;
    private final int forwardCapacity;
    private int batchedCount;
    /** Outside clients' frames, or null (a node without a UDP endpoint). */
    private final ClientEndpoint clientEndpoint;
    private final ClientCommands clientCommands;
    private final PeerRefusals peerRefusals;
    private final org.agrona.concurrent.UnsafeBuffer payload = new org.agrona.concurrent.UnsafeBuffer(new byte[0]);
    private long counter;
    private long lastTick = -1;

    private long droppedFrames;
    private volatile boolean closed;
    private volatile Throwable failure;
    private Throwable handlerFailure;

    NodeAgent(final MembershipAgent membership, final ProcessReplica[] replicaById, final ProcessReplica[] replicas,
        final CoreConfig config, final int incarnation, final long tickNs, final long submitTimeoutNs,
        final int maxPending, final AtomicInteger pendingCount, final ClientEndpoint clientEndpoint)
    {
        this.membership = membership;
        this.replicaById = replicaById;
        this.replicas = replicas;
        this.codec = new CoreMessageCodec(config);
        this.proposalWords = config.proposalWords();
        this.origin = replicas[0].id();
        this.incarnation = incarnation;
        this.submitTimeoutTicks = Math.max(1, submitTimeoutNs / tickNs);
        this.resubmitTicks = Math.max(1, 500_000_000L / tickNs);
        this.submissions = new ManyToOneConcurrentArrayQueue<>(maxPending);
        this.pendingCount = pendingCount;
        this.forwarded = new long[64 * proposalWords];
        this.forwardCapacity = replicas[0].forwardCapacity();
        this.forwardBatch = new long[forwardCapacity * proposalWords];
        this.clientEndpoint = clientEndpoint;
        this.clientCommands = new ClientCommands(replicaById, origin, proposalWords, maxPending, submitTimeoutTicks,
            resubmitTicks, clientEndpoint);
        this.peerRefusals = new PeerRefusals(membership.transport().counters(), tickNs);
    }

    boolean enqueue(final Submission s)
    {
        return submissions.offer(s);
    }

    @Override
    public int doWork()
    {
        try
        {
            return work();
        }
        catch (final Throwable t)
        {
            // A bug (the core's or the state machine's): the replicas' states can no longer be trusted
            // to match the log. Stop, say why in the status, and fail every pending future at once.
            failure = t;
            failAll("node failed: " + t);
            throw new org.agrona.concurrent.AgentTerminationException(t);
        }
    }

    private int work()
    {
        int work = membership.doWork();
        if (handlerFailure != null)
        {
            // The transport counts and swallows what a frame handler throws; a node must not.
            throw new IllegalStateException("failure while handling a frame: " + handlerFailure, handlerFailure);
        }
        for (final ProcessReplica r : replicas)
        {
            work += r.pollMemory();
        }
        final long tick = membership.nowTick();
        // A leader named while polling reaches the cores now, and submissions follow it now, not at the
        // next tick: after a failover the first commit waits on both.
        boolean leaderMoved = false;
        for (final ProcessReplica r : replicas)
        {
            leaderMoved |= r.syncLeader(tick);
        }
        if (leaderMoved)
        {
            work++;
            retryAndExpire(tick);
        }
        if (tick > lastTick)
        {
            lastTick = tick;
            for (final ProcessReplica r : replicas)
            {
                r.onTick(tick);
                proposeEraReport(r, tick);
            }
            retryAndExpire(tick);
            peerRefusals.onTick(tick);
            if (clientEndpoint != null)
            {
                clientCommands.onTick(tick);
            }
            // A tick's own work is not counted, or an idle node would never park (MembershipAgent.doWork);
            // what it wrote to shm memory has completed, and is taken here.
            for (final ProcessReplica r : replicas)
            {
                r.pollMemory();
            }
        }
        work += drainSubmissions(tick);
        if (clientEndpoint != null)
        {
            work += clientEndpoint.poll(clientCommands::onCommand);
        }
        for (final ProcessReplica r : replicas)
        {
            r.core().flushProposals();
        }
        // Every frame of this cycle for one endpoint leaves as one message (TransportContext.coalesceFrames).
        membership.transport().flush();
        return work;
    }

    private int drainSubmissions(final long tick)
    {
        int drained = 0;
        Submission s;
        while (drained < DRAIN_LIMIT && (s = submissions.poll()) != null)
        {
            drained++;
            s.counter = ++counter;
            s.words = new long[proposalWords];
            if (s.probe)
            {
                Commands.encodeProbe(s.words, 0, proposalWords, origin, incarnation, s.counter);
            }
            else
            {
                payload.wrap(s.payload);
                Commands.encode(s.words, 0, proposalWords, origin, incarnation, s.counter, payload, 0,
                    s.payload.length);
            }
            s.deadlineTick = tick + submitTimeoutTicks;
            pending.put(s.counter, s);
            final int leader = replicaById[origin].leader();
            if (leader >= 0 && replicaById[leader] == null)
            {
                // A remote leader: the commands drained together travel in as few frames as fit.
                s.routedTick = tick;
                s.routedTo = leader;
                if (batchedCount == forwardCapacity)
                {
                    flushForwards(leader);
                }
                System.arraycopy(s.words, 0, forwardBatch, batchedCount * proposalWords, proposalWords);
                batchedCount++;
            }
            else
            {
                route(s, tick);
            }
        }
        if (batchedCount > 0)
        {
            flushForwards(replicaById[origin].leader());
        }
        return drained;
    }

    private void flushForwards(final int leader)
    {
        replicaById[origin].forward(leader, forwardBatch, 0, batchedCount);
        batchedCount = 0;
    }

    /** Proposes at a hosted leader, or forwards to the remote one; nothing while no leader is known. */
    private void route(final Submission s, final long tick)
    {
        final int leader = replicaById[origin].leader();
        s.routedTick = tick;
        s.routedTo = leader;
        if (leader < 0)
        {
            return;
        }
        final ProcessReplica local = replicaById[leader];
        if (local != null)
        {
            local.core().propose(s.words, 0);
        }
        else
        {
            replicaById[origin].forward(leader, s.words, 0);
        }
    }

    /** A cold-started replica's era report goes to the leader, as a submission does (LogEra). */
    private void proposeEraReport(final ProcessReplica r, final long tick)
    {
        final long[] report = r.eraReportDue(tick);
        if (report == null)
        {
            return;
        }
        final ProcessReplica local = replicaById[r.leader()];
        if (local != null)
        {
            local.core().propose(report, 0);
        }
        else
        {
            r.forward(r.leader(), report, 0);
        }
    }

    private void retryAndExpire(final long tick)
    {
        if (pending.isEmpty())
        {
            return;
        }
        final int leader = replicaById[origin].leader();
        for (final Submission s : pending.values())
        {
            if (tick >= s.deadlineTick)
            {
                expired.add(s);
            }
            else if (s.routedTo != leader || tick - s.routedTick >= resubmitTicks)
            {
                route(s, tick);
            }
        }
        for (final Submission s : expired)
        {
            pending.remove(s.counter);
            pendingCount.decrementAndGet();
            s.future.completeExceptionally(new SubmitTimeoutException("command " + origin + "/" + s.counter +
                " not seen committed within the submit timeout; it may still commit"));
        }
        expired.clear();
    }

    @Override
    public void onApplicationFrame(final FrameHeader header, final DirectBuffer buffer, final int offset,
        final int length, final long nowTick)
    {
        if (handlerFailure != null)
        {
            return;
        }
        try
        {
            onFrame(header, buffer, offset, length, nowTick);
        }
        catch (final Throwable t)
        {
            handlerFailure = t;
        }
    }

    private void onFrame(final FrameHeader header, final DirectBuffer buffer, final int offset, final int length,
        final long nowTick)
    {
        final int type = header.type();
        final int dst = header.dstProcessId();
        if (CoreMessageCodec.isCoreType(type))
        {
            final Message m = codec.decode(type, header.srcProcessId(), buffer, offset, length);
            if (m == null)
            {
                droppedFrames++;
                return;
            }
            if (dst == FrameHeader.ALL_LOCAL)
            {
                for (final ProcessReplica r : replicas)
                {
                    r.onMessage(m, nowTick);
                }
            }
            else if (dst >= 0 && dst < replicaById.length && replicaById[dst] != null)
            {
                replicaById[dst].onMessage(m, nowTick);
            }
        }
        else if (type == NodeFrames.FORWARD && dst >= 0 && dst < replicaById.length && replicaById[dst] != null &&
            length > 0 && length % (8 * proposalWords) == 0 && length <= 8 * forwarded.length)
        {
            for (int w = 0; w < length / 8; w++)
            {
                forwarded[w] = buffer.getLong(offset + 8 * w, ByteOrder.LITTLE_ENDIAN);
            }
            // Not leading (any more), or the queue is full: drop; the origin re-routes.
            for (int at = 0; at < length / 8; at += proposalWords)
            {
                replicaById[dst].core().propose(forwarded, at);
            }
        }
        else if (NodeFrames.isTransfer(type) && dst >= 0 && dst < replicaById.length && replicaById[dst] != null)
        {
            replicaById[dst].onTransferFrame(type, header.srcProcessId(), buffer, offset, length);
        }
        else
        {
            droppedFrames++;
        }
    }

    @Override
    public void onApplied(final int origin, final int incarnation, final long counter, final long reply)
    {
        if (origin != this.origin || incarnation != this.incarnation)
        {
            return;
        }
        final Submission s = pending.remove(counter);
        if (s != null)
        {
            pendingCount.decrementAndGet();
            s.future.complete(reply);
        }
    }

    @Override
    public void onClientApplied(final int replica, final long clientId, final long seq, final byte[] reply)
    {
        clientCommands.onApplied(replica, clientId, seq, reply);
    }

    /** The members' endpoint for outside clients, or null when this node takes none. */
    ClientEndpoint clientEndpoint()
    {
        return clientEndpoint;
    }

    /** Client frames and commands as JSON for the status, or null without a client endpoint. */
    String clientCountersJson()
    {
        if (clientEndpoint == null)
        {
            return null;
        }
        final String json = clientEndpoint.countersJson();
        return json.substring(0, json.length() - 1) + ",\"duplicateFragments\":" +
            replicas[0].clientSessions().duplicates() + ",\"sessions\":" + replicas[0].clientSessions().sessionCount() + "}";
    }

    /** Fails everything still queued or pending: the node is closing. */
    void failAll(final String why)
    {
        closed = true;
        Submission s;
        while ((s = submissions.poll()) != null)
        {
            s.future.completeExceptionally(new SubmitRefusedException(why));
        }
        for (final Submission p : pending.values())
        {
            p.future.completeExceptionally(new SubmitTimeoutException(why + "; the command's outcome is unknown"));
        }
        pending.clear();
    }

    boolean closed()
    {
        return closed;
    }

    /** What stopped the agent, or null while it runs. */
    Throwable failure()
    {
        return failure;
    }

    long droppedFrames()
    {
        return droppedFrames;
    }

    @Override
    public String roleName()
    {
        return "mmx-node";
    }
}
