package io.mmx.membership;

import io.mmx.membership.election.ElectionState;
import io.mmx.membership.election.LeaderElection;
import io.mmx.membership.neighbour.HeartbeatReader;
import io.mmx.membership.neighbour.HeartbeatWriter;
import io.mmx.membership.neighbour.NeighbourMonitor;
import io.mmx.membership.plan.PlanActivation;
import io.mmx.membership.swim.FailureDetector;
import io.mmx.membership.swim.MemberStatus;
import io.mmx.membership.wire.MessageType;
import io.mmx.membership.wire.PlanRefusal;
import io.mmx.membership.wire.SwimMessage;
import io.mmx.planner.plan.PlanDigest;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.SplittableRandom;

/**
 * The membership of one process, sans-IO: {@link #tick(long)} and {@link #onMessage} in, messages
 * out through an {@link Outbox}, events out through a {@link MembershipListener}. Composes the SWIM
 * {@link FailureDetector}, the Ω {@link LeaderElection}, {@link PlanActivation} and, when the host
 * gives memory access, a {@link NeighbourMonitor}.
 * <p>
 * No threads, clocks or I/O; all randomness from the seed. Not thread-safe. Malformed messages are
 * counted and ignored, never thrown.
 */
public final class MembershipNode
{
    private final MembershipConfig config;
    private final int processes;
    private final int self;
    private final Outbox outbox;
    private final MembershipListener listener;
    private final FailureDetector detector;
    private final LeaderElection election;
    private final PlanActivation plan;
    private final NeighbourMonitor monitor;
    private final HeartbeatReader heartbeatReader;
    private final HeartbeatWriter heartbeatWriter;
    private final SwimMessage encoder = new SwimMessage();
    private final SwimMessage decoder = new SwimMessage();
    private final UnsafeBuffer sendBuffer;
    private final byte[] scratchHash = new byte[PlanRefusal.HASH_LENGTH];
    private final byte[] planHash;
    private final java.util.function.IntPredicate isDead;
    private final NeighbourMonitor.Listener neighbourListener;
    private long nowTick;
    private long nextHelloTick;
    private long nextNewsTick;
    private int refusalsThisPeriod;
    private long refusalPeriodStartTick;
    private long messagesSent;
    private long messagesReceived;
    private long malformedMessages;
    private long foreignPlanMessages;

    /**
     * @param config          concluded for {@code processes}.
     * @param processes       n.
     * @param self            this process, 0..n-1.
     * @param planDigest      the plan's content hash.
     * @param neighbours      plan neighbours (may be empty).
     * @param seed            of this node's random generator.
     * @param outbox          where messages go.
     * @param listener        where events go.
     * @param heartbeatReader neighbours' heartbeat words, or null for no memory monitoring.
     * @param heartbeatWriter own heartbeat word, or null.
     * @param startTick       tick of creation.
     */
    public MembershipNode(
        final MembershipConfig config,
        final int processes,
        final int self,
        final PlanDigest planDigest,
        final int[] neighbours,
        final long seed,
        final Outbox outbox,
        final MembershipListener listener,
        final HeartbeatReader heartbeatReader,
        final HeartbeatWriter heartbeatWriter,
        final long startTick)
    {
        if (config.concludedFor() != processes)
        {
            throw new IllegalStateException("MembershipConfig must be concluded for n=" + processes + " first");
        }
        if (self < 0 || self >= processes)
        {
            throw new IllegalArgumentException("process id " + self + " outside 0.." + (processes - 1));
        }
        this.config = config;
        this.processes = processes;
        this.self = self;
        this.outbox = outbox;
        this.listener = listener;
        this.heartbeatReader = heartbeatReader;
        this.heartbeatWriter = heartbeatWriter;
        this.nowTick = startTick;
        this.planHash = planDigest.toByteArray();
        // Method references bound once here: binding them per tick would allocate on every tick.
        this.neighbourListener = listener::onNeighbourSuspicion;
        sendBuffer = new UnsafeBuffer(new byte[Math.max(
            SwimMessage.maxLength(config.maxPiggybackUpdates()), PlanRefusal.LENGTH)]);
        election = new LeaderElection(config, self, listener::onLeaderChanged);
        detector = new FailureDetector(config, processes, self, new SplittableRandom(seed), this::send, this::onStatus);
        plan = new PlanActivation(planDigest, neighbours);
        isDead = detector::isDead;
        monitor = heartbeatReader != null && heartbeatWriter != null ?
            new NeighbourMonitor(neighbours, config.heartbeatIntervalTicks(), config.neighbourStaleTicks(), startTick) :
            null;
    }

    /**
     * Advance time: probes, timeouts, election, plan activation, memory heartbeats.
     *
     * @param nowTick current tick, non-decreasing.
     */
    public void tick(final long nowTick)
    {
        this.nowTick = nowTick;
        detector.tick(nowTick);
        election.tick(nowTick, detector.rank());
        if (nowTick >= nextNewsTick && election.wantsLeaderNews(nowTick))
        {
            // At most one extra message per period, and only while the leader claim is ageing or
            // missing: after mass crashes most probes hit dead members and news travels slowly.
            nextNewsTick = nowTick + config.protocolPeriodTicks();
            detector.pingRandomMember();
        }
        if (plan.state() == PlanActivation.State.PENDING)
        {
            if (nowTick >= nextHelloTick)
            {
                nextHelloTick = nowTick + config.protocolPeriodTicks();
                final int[] neighbours = plan.neighbours();
                for (int i = 0; i < neighbours.length; i++)
                {
                    if (plan.awaits(i) && !detector.isDead(neighbours[i]))
                    {
                        send(MessageType.PLAN_HELLO, neighbours[i], 0, -1, 0, -1);
                    }
                }
            }
            if (plan.tryActivate(election.leaderId(nowTick) >= 0, isDead))
            {
                listener.onPlanActivation(true, null, nowTick);
            }
        }
        if (monitor != null)
        {
            monitor.tick(nowTick, heartbeatWriter, heartbeatReader, neighbourListener);
        }
    }

    /**
     * A message arrived.
     *
     * @param nowTick current tick.
     * @param src     sender (authenticated by the transport).
     * @param type    message type.
     * @param buffer  holding the message.
     * @param offset  of the message.
     * @param length  in bytes.
     */
    public void onMessage(
        final long nowTick,
        final int src,
        final int type,
        final DirectBuffer buffer,
        final int offset,
        final int length)
    {
        this.nowTick = nowTick;
        messagesReceived++;
        if (src < 0 || src >= processes || src == self)
        {
            malformedMessages++;
            return;
        }
        if (type == MessageType.PLAN_REFUSED)
        {
            onRefused(src, buffer, offset, length);
            return;
        }
        if (!MessageType.isMembership(type))
        {
            malformedMessages++;
            return;
        }
        final SwimMessage message = decoder.wrap(buffer, offset);
        if (!message.isWellFormed(length))
        {
            malformedMessages++;
            return;
        }
        if (message.planFingerprint() != plan.fingerprint())
        {
            refuse(src, message.planFingerprint());
            return;
        }
        if (!applyPiggyback(message))
        {
            return;
        }
        detector.onDirectContact(src, message.senderIncarnation(), nowTick);
        election.onHeard(nowTick);
        switch (type)
        {
            case MessageType.PING:
                detector.onPing(src, message.probeSeq(), validOrigin(message.origin()));
                break;
            case MessageType.ACK:
                detector.onAck(message.probeSeq(), message.subject(), message.subjectIncarnation(),
                    validOrigin(message.origin()), nowTick);
                break;
            case MessageType.PING_REQ:
                detector.onPingReq(src, message.probeSeq(), message.subject());
                break;
            case MessageType.PLAN_HELLO:
                plan.onConfirmed(src);
                send(MessageType.PLAN_ACK, src, 0, -1, 0, -1);
                break;
            case MessageType.PLAN_ACK:
                plan.onConfirmed(src);
                break;
            default:
                malformedMessages++;
                break;
        }
    }

    private int validOrigin(final int origin)
    {
        return origin >= 0 && origin < processes ? origin : -1;
    }

    private boolean applyPiggyback(final SwimMessage message)
    {
        final int count = message.updateCount();
        for (int i = 0; i < count; i++)
        {
            final int member = message.updateMember(i);
            final MemberStatus status = MemberStatus.fromCode(message.updateStatus(i));
            if (member < 0 || member >= processes || status == null || message.updateIncarnation(i) < 0)
            {
                malformedMessages++;
                return false;
            }
        }
        for (int i = 0; i < count; i++)
        {
            detector.apply(message.updateMember(i), message.updateIncarnation(i),
                MemberStatus.fromCode(message.updateStatus(i)), nowTick);
        }
        final int leaderId = message.leaderId();
        if (leaderId >= 0 && leaderId < processes)
        {
            final int leaderIncarnation = message.leaderIncarnation();
            if (leaderIncarnation > detector.incarnation(leaderId))
            {
                // The claim was made by the leader itself at that incarnation: evidence it is alive,
                // which revives a leader this view had (falsely) declared dead.
                detector.apply(leaderId, leaderIncarnation, MemberStatus.ALIVE, nowTick);
            }
            election.onClaim(nowTick, leaderId, message.leaderEpoch(), message.leaderAgeTicks(), leaderIncarnation,
                detector.isDead(leaderId));
        }
        return true;
    }

    private void refuse(final int src, final long fingerprint)
    {
        foreignPlanMessages++;
        if (nowTick - refusalPeriodStartTick >= config.protocolPeriodTicks())
        {
            refusalPeriodStartTick = nowTick;
            refusalsThisPeriod = 0;
        }
        // Bounded: a misconfigured process cannot make this one send more than a few refusals per period.
        if (refusalsThisPeriod++ < 4)
        {
            final int length = PlanRefusal.encode(sendBuffer, 0, planHash, fingerprint);
            messagesSent++;
            outbox.send(self, src, MessageType.PLAN_REFUSED, sendBuffer, 0, length);
        }
    }

    private void onRefused(final int src, final DirectBuffer buffer, final int offset, final int length)
    {
        if (length != PlanRefusal.LENGTH)
        {
            malformedMessages++;
            return;
        }
        final long received = PlanRefusal.decode(buffer, offset, scratchHash);
        if (received != plan.fingerprint() || PlanDigest.membershipFingerprint(scratchHash) == plan.fingerprint())
        {
            // Not about our plan, or not actually a different plan: a stale or forged refusal.
            malformedMessages++;
            return;
        }
        final String sentence = plan.onRefused(self, src, scratchHash);
        if (sentence != null)
        {
            listener.onPlanActivation(false, sentence, nowTick);
        }
    }

    private void onStatus(final int member, final MemberStatus status, final int incarnation, final long tick)
    {
        if (status == MemberStatus.DEAD)
        {
            election.onMemberDead(member, tick);
        }
        listener.onMemberStatus(member, status, incarnation, tick);
    }

    private void send(
        final int type,
        final int dst,
        final int probeSeq,
        final int subject,
        final int subjectIncarnation,
        final int origin)
    {
        final int leaderAge = election.recordAgeTicks(nowTick);
        encoder.wrapForEncode(sendBuffer, 0).header(
            plan.fingerprint(),
            detector.selfIncarnation(),
            probeSeq,
            subject,
            subjectIncarnation,
            origin,
            leaderAge < 0 ? -1 : election.recordLeaderId(nowTick),
            election.recordEpoch(nowTick),
            Math.max(0, leaderAge),
            election.recordIncarnation(detector.selfIncarnation()));
        // News about the leader (its death, its refutation) goes first: Ω waits on it.
        final int count = detector.dissemination().fill(encoder, config.maxPiggybackUpdates(), election.lastLeaderId());
        final int length = encoder.updateCount(count);
        messagesSent++;
        outbox.send(self, dst, type, sendBuffer, 0, length);
    }

    /** @return this process id. */
    public int self()
    {
        return self;
    }

    /** @return the leader this process follows, or -1. */
    public int leaderId()
    {
        return election.leaderId(nowTick);
    }

    /** @return the epoch of {@link #leaderId()}. */
    public long leaderEpoch()
    {
        return election.leaderEpoch(nowTick);
    }

    /** @return the election state. */
    public ElectionState electionState()
    {
        return election.state();
    }

    /**
     * @param member id.
     * @return its status in this process's view.
     */
    public MemberStatus status(final int member)
    {
        return detector.status(member);
    }

    /** @return members this view holds dead. */
    public int deadCount()
    {
        return detector.deadCount();
    }

    /** @return this process's incarnation. */
    public int incarnation()
    {
        return detector.selfIncarnation();
    }

    /** @return plan activation state. */
    public PlanActivation.State planState()
    {
        return plan.state();
    }

    /** @return the refusal sentence, or null. */
    public String planRefusal()
    {
        return plan.refusal();
    }

    /**
     * @param neighbourId plan neighbour.
     * @return true if its memory heartbeat is stale.
     */
    public boolean isNeighbourSuspected(final int neighbourId)
    {
        return monitor != null && monitor.isSuspected(neighbourId);
    }

    /** @return messages handed to the outbox. */
    public long messagesSent()
    {
        return messagesSent;
    }

    /** @return messages received. */
    public long messagesReceived()
    {
        return messagesReceived;
    }

    /** @return messages dropped as malformed. */
    public long malformedMessages()
    {
        return malformedMessages;
    }

    /** @return messages dropped because they carried another plan. */
    public long foreignPlanMessages()
    {
        return foreignPlanMessages;
    }

    /** @return dissemination updates evicted for lack of room. */
    public long disseminationEvictions()
    {
        return detector.dissemination().evictions();
    }
}
