package io.mmx.runtime.host;

import io.mmx.aeron.frame.FrameHeader;
import io.mmx.aeron.transport.FrameHandler;
import io.mmx.membership.Outbox;
import io.mmx.membership.neighbour.FabricHeartbeats;
import io.mmx.membership.node.HostedMembers;
import io.mmx.runtime.core.CoreConfig;
import io.mmx.runtime.core.Message;
import io.mmx.runtime.node.Commands;
import io.mmx.runtime.node.NodeFrames;
import io.mmx.runtime.node.SubmitAppliedException;
import io.mmx.runtime.node.SubmitRefusedException;
import io.mmx.runtime.node.SubmitTimeoutException;
import io.mmx.runtime.node.wire.CoreMessageCodec;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Every process one JVM hosts, without I/O: their membership, their cores and replicas, and the
 * routing of this host's commands to the leader. {@link #doWork(long)} is one duty cycle: the tick
 * from the time handed in, the frames that arrived (membership's to the membership nodes, protocol,
 * forward and snapshot frames to the processes), memory completions, membership and replica ticks,
 * submissions and outside clients' commands, and one flush of the transport at the end.
 *
 * <p>A cycle visits only the processes it gave an event (a frame, a tick, a command, a new leader)
 * and those with memory operations outstanding: a core that was given nothing has no completion to
 * take, no proposal to send and no new leader to hear (membership's view moves only with its node's
 * frames and ticks). With hundreds of idle processes per host, visiting every one on every wake to
 * find nothing was most of what was left of an idle host's CPU, in cache misses.
 *
 * <p>It starts no thread, reads no clock and opens nothing: frames come and go through a
 * {@link HostTransport}, memory through each process's fabric, outside clients through
 * {@link HostClients}. The node drives it from an Agrona agent with the system clock; a test drives
 * several hosts from one thread with a virtual clock. Only {@link #enqueue(Submission)}, {@link #closed()}
 * and the pending counter it shares ({@link HostContext#pendingCount}) may be used from other threads.
 */
public final class ProcessHost implements FrameHandler
{
    private static final int DRAIN_LIMIT = 256;
    /** How long a routed command waits for its commit before it is routed again. */
    public static final long RESUBMIT_NS = 500_000_000L;
    /**
     * How long a host with nothing pending must have done no work to count as quiet: the node's idle
     * strategy parks longer after the same 100 ms, and a quiet host ticks the processes whose ticks
     * are not time-critical only every {@link HostedMembers#QUIET_TICK_SPACING} ticks.
     */
    public static final long QUIET_NS = 100_000_000L;
    /**
     * Polls of the transport in one duty cycle, at most. A poll reads one batch (Aeron: 64 fragments
     * of each subscription); a host of many processes runs long cycles, and at one batch a cycle it fell
     * behind its senders, whose publications then back-pressured and dropped frames: at n = 1024 in
     * JVMs of 128 the leader's JVM lost its acceptors' Accepteds and its own processes its claims, and
     * the retransmitted broadcasts that followed stopped the commits. Sixteen batches empty the windows
     * of every sender (7 remote JVMs of 128 KiB each there) and still leave the ticks their turn.
     */
    static final int MAX_POLLS_PER_CYCLE = 16;
    /**
     * Ticks between two ticks of the replica (core, replica events, status) of a process that is not
     * time-critical, on a quiet host: about the replicas' status interval. A quiet follower's core has no
     * timer shorter (catch-up and era reports wait 50 ticks and more, and run only when something is
     * missing); membership still ticks it every {@link HostedMembers#QUIET_TICK_SPACING} ticks, and a
     * changed neighbour suspicion reaches the core at that tick. Ticking every replica with its
     * membership was a third of an idle host's CPU at n = 1024.
     */
    public static final int QUIET_REPLICA_TICK_SPACING = 48;

    private final HostTransport transport;
    private final HostedMembers members;
    private final HostedProcess[] byId;
    private final HostedProcess[] processes;
    /** Position in {@link #processes} of each process id hosted here, -1 for the others. */
    private final int[] positionOf;
    /** Processes given an event in this cycle: only they may have proposals to send. */
    private final boolean[] stirred;
    /** Processes whose membership node had a frame in this cycle: only they (and the ticked) may follow a new leader. */
    private final boolean[] heardMembership;
    /** Processes whose memory may have completions to take: given an event since their last poll, or with operations outstanding. */
    private final boolean[] memoryBusy;
    private long memoryPolls;
    /** When each process's replica was last ticked, and how often it was. */
    private final long[] replicaTickedAt;
    private final long[] replicaTicks;
    private final HostClients clients;
    private final CoreMessageCodec codec;
    private final int proposalWords;
    private final int origin;
    private final int incarnation;
    private final int era;
    /** The plan change that ended this host's era: its log slot (-1: none yet) and the next plan's id. */
    private long eraEndedAt = -1;
    private long nextPlanId;
    private int nextPlanProcesses;
    /** Hosted replicas that applied that change, and the tick the first did. */
    private int eraEndedReplicas;
    private long eraEndedTick;
    private final long switchWaitTicks;
    /** A successor host took over the submissions: this one only serves its era's cores until retired. */
    private boolean handedOver;
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
    private final UnsafeBuffer payload = new UnsafeBuffer(new byte[0]);
    private int batchedCount;
    private long counter;
    private long lastTick = -1;
    /** When a duty cycle last did work; see {@link #QUIET_NS}. */
    private long lastWorkNs;
    private long ticksThinned;
    private long startNs;
    private boolean started;
    private int applicationFrames;
    private long droppedFrames;
    private Throwable handlerFailure;
    private volatile boolean closed;

    /**
     * Makes the hosted processes' membership nodes and starts the processes at tick 0.
     *
     * @param context the host's ports, processes and settings; concluded here.
     * @throws IllegalStateException naming every problem of the context.
     */
    public ProcessHost(final HostContext context)
    {
        context.conclude();
        final CoreConfig config = context.core();
        final HostedProcess[] processes = context.processes();
        this.transport = context.transport();
        this.processes = processes;
        this.byId = new HostedProcess[config.n()];
        this.positionOf = new int[config.n()];
        java.util.Arrays.fill(positionOf, -1);
        this.stirred = new boolean[processes.length];
        this.heardMembership = new boolean[processes.length];
        this.memoryBusy = new boolean[processes.length];
        this.replicaTickedAt = new long[processes.length];
        this.replicaTicks = new long[processes.length];
        java.util.Arrays.fill(memoryBusy, true);
        final int[] hosted = new int[processes.length];
        final int[][] neighboursOf = new int[processes.length][];
        final FabricHeartbeats[] heartbeats = new FabricHeartbeats[processes.length];
        for (int i = 0; i < processes.length; i++)
        {
            hosted[i] = processes[i].id();
            neighboursOf[i] = processes[i].neighbours();
            heartbeats[i] = processes[i].heartbeats();
            byId[hosted[i]] = processes[i];
            positionOf[hosted[i]] = i;
        }
        final long tickNs = context.tickNs();
        this.members = new HostedMembers(context.membership(), config.n(), hosted, context.planDigest(), neighboursOf,
            context.seed(), tickNs, Outbox.of(transport::send, transport::sendToHostOf), context.membershipListener(),
            heartbeats, context.hostOf(),
            context.liveness());
        this.clients = context.clients();
        this.codec = new CoreMessageCodec(config);
        this.proposalWords = config.proposalWords();
        this.origin = hosted[0];
        this.era = context.era();
        this.switchWaitTicks = context.switchWaitNs() / context.tickNs();
        final ProcessHost before = context.predecessor();
        this.submitTimeoutTicks = Math.max(1, context.submitTimeoutNs() / tickNs);
        this.resubmitTicks = Math.max(1, RESUBMIT_NS / tickNs);
        if (before == null)
        {
            this.incarnation = context.incarnation();
            this.submissions = new ManyToOneConcurrentArrayQueue<>(context.maxPending());
            this.pendingCount = context.pendingCount();
        }
        else
        {
            this.incarnation = before.incarnation;
            this.submissions = before.submissions;
            this.pendingCount = before.pendingCount;
            takeOver(before);
        }
        this.forwarded = new long[64 * proposalWords];
        this.forwardCapacity = processes[0].forwardCapacity();
        this.forwardBatch = new long[forwardCapacity * proposalWords];
        for (final HostedProcess p : processes)
        {
            p.start(members.node(p.id()), 0);
        }
    }

    /**
     * Takes the pending submissions of the era before: each is routed again in this era once a leader
     * is known, with the time it had left (this host's ticks count from 0).
     */
    private void takeOver(final ProcessHost before)
    {
        before.handedOver = true;
        counter = before.counter;
        final long shift = Math.max(0, before.lastTick);
        for (final Submission s : before.pending.values())
        {
            s.deadlineTick = Math.max(1, s.deadlineTick - shift);
            s.routedTo = -1;
            s.routedTick = Long.MIN_VALUE;
            pending.put(s.counter, s);
        }
        before.pending.clear();
    }

    /**
     * Queues a submission for the next duty cycle; any thread.
     *
     * @return false if the queue is full.
     */
    public boolean enqueue(final Submission s)
    {
        return submissions.offer(s);
    }

    /**
     * One duty cycle at time {@code nowNs} (any monotonic origin: ticks count from the first call).
     *
     * @return work after which more may follow at once: frames for the processes, memory completions,
     * a leader change, submissions and client frames. Membership's frames and every tick's own work
     * are periodic and not counted (see {@link HostedMembers}): an idle host parks.
     * @throws IllegalStateException if handling a frame failed (a bug: stop the host).
     */
    public int doWork(final long nowNs)
    {
        if (!started)
        {
            started = true;
            startNs = nowNs;
            lastWorkNs = nowNs;
        }
        applicationFrames = 0;
        // Read what waits, not one batch: see MAX_POLLS_PER_CYCLE.
        int polls = 1;
        while (transport.poll(this) > 0 && handlerFailure == null && polls < MAX_POLLS_PER_CYCLE)
        {
            polls++;
        }
        if (handlerFailure != null)
        {
            // A transport may count and swallow what a frame handler throws; a host must not.
            throw new IllegalStateException("failure while handling a frame: " + handlerFailure, handlerFailure);
        }
        // Quiet: nothing pending and no work for a while. Then only time-critical processes (the leader,
        // its watchers) tick every wake; the others every QUIET_TICK_SPACING ticks (HostedMembers.advance).
        final boolean quiet = pending.isEmpty() && nowNs - lastWorkNs >= QUIET_NS;
        final boolean ticked = members.advance(nowNs - startNs, quiet);
        int work = applicationFrames + pollMemory();
        final long tick = members.nowTick();
        // A leader named while polling reaches the cores now, and submissions follow it now, not at the
        // next tick: after a failover the first commit waits on both. A node's leader moves only with
        // its frames and ticks.
        boolean leaderMoved = false;
        for (int i = 0; i < processes.length; i++)
        {
            if ((heardMembership[i] || ticked && members.tickedNow(i)) && processes[i].syncLeader(tick))
            {
                stir(i);
                leaderMoved = true;
            }
        }
        if (leaderMoved)
        {
            work++;
            retryAndExpire(tick);
        }
        final boolean newTick = tick > lastTick;
        if (newTick)
        {
            lastTick = tick;
            for (int i = 0; i < processes.length; i++)
            {
                final HostedProcess p = processes[i];
                if (members.tickedNow(i) && (!quiet || members.needsEveryTick(i) || members.suspicionsMoved(i) ||
                    tick - replicaTickedAt[i] >= QUIET_REPLICA_TICK_SPACING))
                {
                    replicaTickedAt[i] = tick;
                    replicaTicks[i]++;
                    stir(i);
                    p.onTick(tick);
                    proposeEraReport(p, tick);
                }
                else
                {
                    ticksThinned++;
                }
            }
            retryAndExpire(tick);
            if (!handedOver)
            {
                clients.onTick(tick);
            }
            // A tick's own work is not counted, or an idle host would never park; what it wrote to shm
            // memory has completed, and is taken here.
            pollMemory();
        }
        // While the submitting process's state waits for a snapshot, new submissions wait in the queue.
        work += handedOver || !byId[origin].stateReady() ? 0 : drainSubmissions(tick);
        final int clientFrames = handedOver ? 0 : clients.poll();
        work += clientFrames;
        // Outside clients' commands (taken now, or resent at a tick) go straight to the hosted leader's core.
        final int leader = byId[origin].leader();
        if ((clientFrames > 0 || newTick) && leader >= 0 && byId[leader] != null)
        {
            stir(positionOf[leader]);
        }
        for (int i = 0; i < processes.length; i++)
        {
            if (stirred[i])
            {
                stirred[i] = false;
                processes[i].flushProposals();
            }
            heardMembership[i] = false;
        }
        // Every frame of this cycle for one endpoint leaves as one message.
        transport.flush();
        if (work > 0)
        {
            lastWorkNs = nowNs;
        }
        return work;
    }

    /** Process {@code position} was given an event: it may send proposals and submit memory operations. */
    private void stir(final int position)
    {
        stirred[position] = true;
        memoryBusy[position] = true;
    }

    /** Polls the memory of the processes that may have completions; returns the completions taken. */
    private int pollMemory()
    {
        int work = 0;
        for (int i = 0; i < processes.length; i++)
        {
            if (memoryBusy[i])
            {
                memoryPolls++;
                final int taken = processes[i].pollMemory();
                if (taken > 0)
                {
                    work += taken;
                    stirred[i] = true;
                }
                memoryBusy[i] = processes[i].memoryPending();
            }
        }
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
            else if (s.planId != 0)
            {
                Commands.encodePlanChange(s.words, 0, proposalWords, origin, incarnation, s.counter, s.planId, era,
                    s.planProcesses);
            }
            else
            {
                payload.wrap(s.payload);
                Commands.encode(s.words, 0, proposalWords, origin, incarnation, s.counter, payload, 0,
                    s.payload.length);
            }
            s.deadlineTick = tick + submitTimeoutTicks;
            pending.put(s.counter, s);
            final int leader = byId[origin].leader();
            if (leader >= 0 && byId[leader] == null)
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
            flushForwards(byId[origin].leader());
        }
        return drained;
    }

    private void flushForwards(final int leader)
    {
        byId[origin].forward(leader, forwardBatch, 0, batchedCount);
        batchedCount = 0;
    }

    /** Proposes at a hosted leader, or forwards to the remote one; nothing while no leader is known. */
    private void route(final Submission s, final long tick)
    {
        final int leader = byId[origin].leader();
        s.routedTick = tick;
        s.routedTo = leader;
        if (leader < 0)
        {
            return;
        }
        final HostedProcess local = byId[leader];
        if (local != null)
        {
            stir(positionOf[leader]);
            local.propose(s.words, 0);
        }
        else
        {
            byId[origin].forward(leader, s.words, 0, 1);
        }
    }

    /** A cold-started replica's era report goes to the leader, as a submission does. */
    private void proposeEraReport(final HostedProcess p, final long tick)
    {
        final long[] report = p.eraReportDue(tick);
        if (report == null)
        {
            return;
        }
        final HostedProcess local = byId[p.leader()];
        if (local != null)
        {
            stir(positionOf[p.leader()]);
            local.propose(report, 0);
        }
        else
        {
            p.forward(p.leader(), report, 0, 1);
        }
    }

    private void retryAndExpire(final long tick)
    {
        if (pending.isEmpty() || handedOver)
        {
            return;
        }
        final int leader = byId[origin].leader();
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

    /** {@inheritDoc} */
    @Override
    public void onFrame(final FrameHeader header, final DirectBuffer buffer, final int offset, final int length)
    {
        if (handlerFailure != null)
        {
            return;
        }
        try
        {
            final int type = header.type();
            if (members.onFrame(type, header.srcProcessId(), header.dstProcessId(), buffer, offset, length))
            {
                heard(header.dstProcessId());
            }
            else
            {
                applicationFrames++;
                onProcessFrame(type, header.srcProcessId(), header.dstProcessId(), buffer, offset, length);
            }
        }
        catch (final Throwable t)
        {
            handlerFailure = t;
        }
    }

    private void onProcessFrame(final int type, final int src, final int dst, final DirectBuffer buffer,
        final int offset, final int length)
    {
        final long nowTick = members.nowTick();
        final HostedProcess to = dst >= 0 && dst < byId.length ? byId[dst] : null;
        if (CoreMessageCodec.isCoreType(type))
        {
            final Message m = codec.decode(type, src, buffer, offset, length);
            if (m == null)
            {
                droppedFrames++;
            }
            else if (dst == FrameHeader.ALL_LOCAL)
            {
                for (int i = 0; i < processes.length; i++)
                {
                    stir(i);
                    processes[i].onMessage(m, nowTick);
                }
            }
            else if (to != null)
            {
                members.onProtocolContact(src, dst);
                stir(positionOf[dst]);
                to.onMessage(m, nowTick);
            }
        }
        else if (type == NodeFrames.FORWARD && to != null && length > 0 && length % (8 * proposalWords) == 0 &&
            length <= 8 * forwarded.length)
        {
            for (int w = 0; w < length / 8; w++)
            {
                forwarded[w] = buffer.getLong(offset + 8 * w, ByteOrder.LITTLE_ENDIAN);
            }
            // Not leading (any more), or the queue is full: drop; the origin re-routes.
            stir(positionOf[dst]);
            for (int at = 0; at < length / 8; at += proposalWords)
            {
                to.propose(forwarded, at);
            }
        }
        else if (NodeFrames.isTransfer(type) && to != null)
        {
            stir(positionOf[dst]);
            to.onTransferFrame(type, src, buffer, offset, length);
        }
        else
        {
            droppedFrames++;
        }
    }

    /** A membership frame for {@code dst} (or for every hosted process): its node's leader may have moved. */
    private void heard(final int dst)
    {
        if (dst == FrameHeader.ALL_LOCAL)
        {
            java.util.Arrays.fill(heardMembership, true);
        }
        else if (dst >= 0 && dst < positionOf.length && positionOf[dst] >= 0)
        {
            heardMembership[positionOf[dst]] = true;
        }
    }

    /**
     * A command was applied at a hosted replica; completes it if it is one of this host's submissions
     * (its origin's replica reports it).
     */
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

    /**
     * Hosted replica {@code replica} applied the plan change that ends this host's era at log slot
     * {@code slot}, to the plan with id {@code planId}.
     *
     * @throws IllegalStateException if another hosted replica ended it elsewhere: their logs diverged.
     */
    public void onEraEnded(final int replica, final long slot, final long planId, final int processes)
    {
        nextPlanProcesses = Math.max(nextPlanProcesses, processes);
        if (eraEndedAt < 0)
        {
            eraEndedAt = slot;
            nextPlanId = planId;
            eraEndedTick = members.nowTick();
            members.eraEnded(); // the era's leader decides nothing more: no leader_down for its still heartbeat
        }
        else if (eraEndedAt != slot || nextPlanId != planId)
        {
            throw new IllegalStateException("replica " + replica + " ended era " + era + " at slot " + slot +
                " for plan " + Long.toHexString(planId) + ", another replica of this host at slot " + eraEndedAt +
                " for plan " + Long.toHexString(nextPlanId) + ": their logs diverged");
        }
        eraEndedReplicas++;
    }

    /** @return the log slot a plan change ended this host's era at, or -1. */
    public long eraEndedAt()
    {
        return eraEndedAt;
    }

    /**
     * @return how many processes the plan the next era runs has, as the change said (0: it did not
     * say, or the replicas learnt the end from a snapshot), once {@link #eraEndedAt()} is set.
     */
    public int nextPlanProcesses()
    {
        return nextPlanProcesses;
    }

    /** @return the id of the plan the next era runs, once {@link #eraEndedAt()} is set. */
    public long nextPlanId()
    {
        return nextPlanId;
    }

    /** @return true once every hosted replica applied the plan change that ended the era. */
    public boolean eraEndedEverywhere()
    {
        return eraEndedReplicas == processes.length;
    }

    /**
     * @return true once a plan change ended the era and this host should begin the next: every
     * hosted replica applied it, or the switch wait ({@link HostContext#switchWaitNs}) passed since
     * the first did.
     */
    public boolean switchDue()
    {
        return eraEndedAt >= 0 && (eraEndedEverywhere() || members.nowTick() - eraEndedTick >= switchWaitTicks);
    }

    /** @return the era of this host's cores. */
    public int era()
    {
        return era;
    }

    /** @return true once a successor host took over this host's submissions. */
    public boolean handedOver()
    {
        return handedOver;
    }

    int origin()
    {
        return origin;
    }

    /**
     * Hosted replica {@code replica} replaced its state with a peer's snapshot. If it is this host's
     * submitter, its pending commands that the snapshot's state already holds were applied where it
     * never saw them: they fail at once with {@link SubmitAppliedException} (applied, reply unknown)
     * instead of waiting out the submit timeout.
     */
    public void onStateInstalled(final int replica)
    {
        if (replica != origin || pending.isEmpty())
        {
            return;
        }
        for (final Submission s : pending.values())
        {
            if (byId[origin].applied(origin, incarnation, s.counter))
            {
                expired.add(s);
            }
        }
        for (final Submission s : expired)
        {
            pending.remove(s.counter);
            pendingCount.decrementAndGet();
            s.future.completeExceptionally(new SubmitAppliedException("command " + origin + "/" + s.counter +
                " was applied, in the state a peer's snapshot brought to process " + origin + "; its reply is not kept"));
        }
        expired.clear();
    }

    /** Hosted replica {@code replica} applied an outside client's command. */
    public void onClientApplied(final int replica, final long clientId, final long seq, final byte[] reply)
    {
        clients.onApplied(replica, clientId, seq, reply);
    }

    /** Fails everything still queued or pending: the host is closing or failed. */
    public void failAll(final String why)
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

    /** @return true once {@link #failAll(String)} ran; any thread. */
    public boolean closed()
    {
        return closed;
    }

    /** @return the current tick. */
    public long nowTick()
    {
        return members.nowTick();
    }

    /** @return the hosted processes' membership. */
    public HostedMembers members()
    {
        return members;
    }

    /**
     * @param processId hosted here.
     * @return ticks its replica was given (see {@link #QUIET_REPLICA_TICK_SPACING}).
     */
    public long replicaTicks(final int processId)
    {
        return replicaTicks[positionOf[processId]];
    }

    /** @return replica ticks a quiet host left out (see {@link #QUIET_NS}). */
    public long ticksThinned()
    {
        return ticksThinned;
    }

    /** @return times a process's memory was polled: only processes given an event or with operations outstanding are. */
    public long memoryPolls()
    {
        return memoryPolls;
    }

    /** @return frames for a hosted process that could not be decoded or delivered. */
    public long droppedFrames()
    {
        return droppedFrames;
    }
}
