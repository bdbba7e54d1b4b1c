package io.mmx.membership.swim;

import io.mmx.membership.MembershipConfig;
import io.mmx.membership.OwnStalls;
import io.mmx.membership.wire.MessageType;

import java.util.SplittableRandom;

/**
 * One process's SWIM failure detector and its view of all n members. Sans-IO: time is the tick
 * passed in, randomness the generator passed in, messages go out through {@link Sender}.
 * <p>
 * Probe order is a random cyclic walk (start and stride coprime with n, redrawn every pass), so
 * every live process probes every member within two passes: detection is bounded even with no
 * gossip at all ({@link MembershipConfig#detectionBoundTicks(int)}).
 * <p>
 * Timeouts run on this process's own time: a gap between two of its ticks of {@code probeTimeoutTicks}
 * or more (its thread waited for a core, its JVM paused) counts as one tick. It could read no ACK or
 * refutation meanwhile, and would otherwise suspect and declare dead, on waking, members that did
 * answer. Shorter gaps (an idle host parks between ticks) count as time.
 */
public final class FailureDetector
{
    /** How the detector sends; the caller adds piggybacked updates and the leader record. */
    public interface Sender
    {
        /**
         * @param type               message type.
         * @param dst                destination.
         * @param probeSeq           probe sequence.
         * @param subject            subject.
         * @param subjectIncarnation subject incarnation.
         * @param origin             origin or -1.
         */
        void send(int type, int dst, int probeSeq, int subject, int subjectIncarnation, int origin);
    }

    /** Told of every status change in this view. */
    public interface StatusListener
    {
        /**
         * @param member      id.
         * @param status      new status.
         * @param incarnation its incarnation.
         * @param nowTick     when.
         */
        void onStatus(int member, MemberStatus status, int incarnation, long nowTick);
    }

    private static final byte ALIVE = 0;
    private static final byte SUSPECT = 1;
    private static final byte DEAD = 2;
    private static final int NO_PROBE = 0;
    private static final int DIRECT = 1;
    private static final int INDIRECT = 2;
    private static final int ACKED = 3;

    private final MembershipConfig config;
    private final int processes;
    private final int self;
    private final SplittableRandom random;
    private final Sender sender;
    private final StatusListener listener;
    private final byte[] status;
    private final int[] incarnation;
    private final long[] suspectDeadline;
    private final int[] suspectQueueIds;
    private final long[] suspectQueueDeadlines;
    private final DisseminationBuffer dissemination;
    private int queueHead;
    private int queueSize;
    private int selfIncarnation;
    private int deadBelowSelf;
    private int deadCount;
    private long nextPeriodTick;
    private int probeState = NO_PROBE;
    private int probeTarget = -1;
    private int probeSeq;
    private long probeDeadlineTick;
    private long orderStart;
    private long orderStride = 1;
    private int orderIndex;
    private final OwnStalls stalls;

    /**
     * @param config    concluded configuration.
     * @param processes n.
     * @param self      this process.
     * @param random    seeded generator owned by this detector.
     * @param sender    where messages go.
     * @param listener  told of status changes.
     */
    public FailureDetector(
        final MembershipConfig config,
        final int processes,
        final int self,
        final SplittableRandom random,
        final Sender sender,
        final StatusListener listener)
    {
        this.config = config;
        // Probe deadlines shorter than this gap would expire on the stall alone.
        this.stalls = new OwnStalls(Math.max(2, config.probeTimeoutTicks()));
        this.processes = processes;
        this.self = self;
        this.random = random;
        this.sender = sender;
        this.listener = listener;
        status = new byte[processes];
        incarnation = new int[processes];
        suspectDeadline = new long[processes];
        // At most n-1 entries are live at once, so compaction always frees room in n+16.
        suspectQueueIds = new int[processes + 16];
        suspectQueueDeadlines = new long[processes + 16];
        dissemination = new DisseminationBuffer(config.disseminationCapacity(), config.retransmitLimit(processes));
        orderIndex = processes;
        // Spread period starts so that n processes do not all probe on the same tick.
        nextPeriodTick = random.nextInt(config.protocolPeriodTicks());
    }

    /**
     * Advance to {@code nowTick}: expire suspicions, start a period, or escalate to indirect probes.
     *
     * @param nowTick current tick, non-decreasing.
     */
    public void tick(final long nowTick)
    {
        stalls.onTick(nowTick);
        final long ownTick = ownTick(nowTick);
        expireSuspicions(ownTick, nowTick);
        if (ownTick >= nextPeriodTick)
        {
            startPeriod(ownTick, nowTick);
            nextPeriodTick = ownTick + config.protocolPeriodTicks();
        }
        else if (probeState == DIRECT && ownTick >= probeDeadlineTick)
        {
            probeIndirectly();
            probeState = INDIRECT;
        }
    }

    /** Deadlines are kept in own ticks: the host's ticks less those this process stalled through. */
    private long ownTick(final long nowTick)
    {
        return nowTick - stalls.stalledTicks();
    }

    /** @return ticks this process did not count as time: the gaps it stalled through, less one tick each. */
    public long stalledTicks()
    {
        return stalls.stalledTicks();
    }

    private void startPeriod(final long ownTick, final long nowTick)
    {
        if (probeTarget >= 0 && probeState != ACKED && probeState != NO_PROBE && status[probeTarget] == ALIVE)
        {
            apply(probeTarget, incarnation[probeTarget], MemberStatus.SUSPECT, nowTick);
        }
        probeTarget = nextTarget();
        if (probeTarget < 0)
        {
            probeState = NO_PROBE;
            return;
        }
        probeSeq++;
        probeState = DIRECT;
        probeDeadlineTick = ownTick + config.probeTimeoutTicks();
        sender.send(MessageType.PING, probeTarget, probeSeq, -1, 0, -1);
    }

    private int nextTarget()
    {
        for (int tries = 0; tries < processes; tries++)
        {
            if (orderIndex >= processes)
            {
                newOrder();
            }
            final int candidate = (int)((orderStart + orderStride * orderIndex) % processes);
            orderIndex++;
            if (candidate != self && status[candidate] != DEAD)
            {
                return candidate;
            }
        }
        return -1;
    }

    private void newOrder()
    {
        orderIndex = 0;
        orderStart = random.nextInt(processes);
        orderStride = 1;
        if (processes > 2)
        {
            for (int tries = 0; tries < 64; tries++)
            {
                final long stride = 1 + random.nextInt(processes - 1);
                if (gcd(stride, processes) == 1)
                {
                    orderStride = stride;
                    break;
                }
            }
        }
    }

    private static long gcd(final long a, final long b)
    {
        long x = a;
        long y = b;
        while (y != 0)
        {
            final long t = x % y;
            x = y;
            y = t;
        }
        return x;
    }

    private void probeIndirectly()
    {
        final int wanted = config.indirectProbes();
        int sent = 0;
        for (int tries = 0; tries < 4 * wanted && sent < wanted && processes > 2; tries++)
        {
            final int helper = random.nextInt(processes);
            if (helper != self && helper != probeTarget && status[helper] != DEAD)
            {
                sender.send(MessageType.PING_REQ, helper, probeSeq, probeTarget, 0, -1);
                sent++;
            }
        }
    }

    /**
     * Ping a random member outside the probe schedule, to pull news (its ACK carries its leader claim
     * and piggybacked updates); it settles no probe and suspects nobody.
     *
     * @return the member pinged, or -1 if none was found in a few tries.
     */
    public int pingRandomMember()
    {
        for (int tries = 0; tries < 8 && processes > 1; tries++)
        {
            final int member = random.nextInt(processes);
            if (member != self && status[member] != DEAD)
            {
                sender.send(MessageType.PING, member, 0, -1, 0, -1);
                return member;
            }
        }
        return -1;
    }

    /**
     * A PING arrived: answer it (to the relay if it was indirect; the relay forwards to the origin).
     *
     * @param src      sender.
     * @param probeSeq its sequence.
     * @param origin   requester of an indirect probe, or -1.
     */
    public void onPing(final int src, final int probeSeq, final int origin)
    {
        sender.send(MessageType.ACK, src, probeSeq, self, selfIncarnation, origin);
    }

    /**
     * A PING_REQ arrived: probe the target on the requester's behalf, statelessly.
     *
     * @param src      requester.
     * @param probeSeq its sequence.
     * @param target   member to probe.
     */
    public void onPingReq(final int src, final int probeSeq, final int target)
    {
        if (target >= 0 && target < processes && target != self && target != src)
        {
            sender.send(MessageType.PING, target, probeSeq, -1, 0, src);
        }
        else if (target == self)
        {
            sender.send(MessageType.ACK, src, probeSeq, self, selfIncarnation, -1);
        }
    }

    /**
     * An ACK arrived: relay it to its origin, or settle this process's probe.
     *
     * @param probeSeq           its sequence.
     * @param subject            member that answered.
     * @param subjectIncarnation that member's incarnation.
     * @param origin             requester of an indirect probe, or -1.
     * @param nowTick            now.
     */
    public void onAck(
        final int probeSeq, final int subject, final int subjectIncarnation, final int origin, final long nowTick)
    {
        if (subject < 0 || subject >= processes)
        {
            return;
        }
        if (origin >= 0 && origin < processes && origin != self)
        {
            sender.send(MessageType.ACK, origin, probeSeq, subject, subjectIncarnation, -1);
        }
        else if (subject == probeTarget && probeSeq == this.probeSeq)
        {
            probeState = ACKED;
        }
        if (subjectIncarnation > incarnation[subject])
        {
            apply(subject, subjectIncarnation, MemberStatus.ALIVE, nowTick);
        }
    }

    /**
     * A message came straight from {@code src}: a higher incarnation than known proves it alive;
     * a member held dead at its current incarnation is told so.
     *
     * @param src         sender.
     * @param incarnation its incarnation.
     * @param nowTick     now.
     */
    public void onDirectContact(final int src, final int incarnation, final long nowTick)
    {
        if (incarnation > this.incarnation[src])
        {
            apply(src, incarnation, MemberStatus.ALIVE, nowTick);
        }
        else if (status[src] == DEAD)
        {
            // A member held dead is talking (restarted, or falsely declared): tell it, on the reply's
            // piggyback, so that it refutes with a higher incarnation instead of staying dead forever.
            dissemination.add(src, this.incarnation[src], MemberStatus.DEAD);
        }
    }

    /**
     * Apply a disseminated or locally derived update with SWIM's precedence rules; a DEAD member
     * revives only with a higher incarnation (a falsely declared process refutes this way).
     *
     * @param member         id, 0..n-1.
     * @param incarnation    of the update.
     * @param update         status of the update.
     * @param nowTick        now.
     */
    public void apply(final int member, final int incarnation, final MemberStatus update, final long nowTick)
    {
        if (member == self)
        {
            if (update != MemberStatus.ALIVE && incarnation >= selfIncarnation)
            {
                selfIncarnation = incarnation + 1;
                dissemination.add(self, selfIncarnation, MemberStatus.ALIVE);
            }
            return;
        }
        final int known = this.incarnation[member];
        final byte current = status[member];
        final boolean accept;
        switch (update)
        {
            case ALIVE:
                accept = incarnation > known;
                break;
            case SUSPECT:
                accept = current == ALIVE ? incarnation >= known : incarnation > known;
                break;
            default:
                accept = current != DEAD ? incarnation >= known : incarnation > known;
                break;
        }
        if (!accept)
        {
            return;
        }
        final byte next = (byte)update.ordinal();
        this.incarnation[member] = incarnation;
        if (next != current)
        {
            status[member] = next;
            if (current == DEAD)
            {
                deadCount--;
                if (member < self)
                {
                    deadBelowSelf--;
                }
            }
            if (next == DEAD)
            {
                deadCount++;
                if (member < self)
                {
                    deadBelowSelf++;
                }
            }
            if (next == SUSPECT)
            {
                final long deadline = ownTick(nowTick) + config.suspicionTimeoutTicks();
                suspectDeadline[member] = deadline;
                enqueueSuspicion(member, deadline);
            }
        }
        dissemination.add(member, incarnation, update);
        if (next != current)
        {
            listener.onStatus(member, update, incarnation, nowTick);
        }
    }

    private void enqueueSuspicion(final int member, final long deadline)
    {
        final int capacity = suspectQueueIds.length;
        if (queueSize == capacity)
        {
            compactSuspicions();
        }
        final int tail = (queueHead + queueSize) % capacity;
        suspectQueueIds[tail] = member;
        suspectQueueDeadlines[tail] = deadline;
        queueSize++;
    }

    private void compactSuspicions()
    {
        // Keep only live entries, in order; at most n are live, so this always frees space.
        final int capacity = suspectQueueIds.length;
        int kept = 0;
        for (int i = 0; i < queueSize; i++)
        {
            final int at = (queueHead + i) % capacity;
            final int member = suspectQueueIds[at];
            if (status[member] == SUSPECT && suspectDeadline[member] == suspectQueueDeadlines[at])
            {
                final int to = (queueHead + kept) % capacity;
                suspectQueueIds[to] = member;
                suspectQueueDeadlines[to] = suspectQueueDeadlines[at];
                kept++;
            }
        }
        queueSize = kept;
    }

    private void expireSuspicions(final long ownTick, final long nowTick)
    {
        // All suspicions last the same time, so deadlines leave the queue in FIFO order.
        final int capacity = suspectQueueIds.length;
        while (queueSize > 0 && suspectQueueDeadlines[queueHead] <= ownTick)
        {
            final int member = suspectQueueIds[queueHead];
            final long deadline = suspectQueueDeadlines[queueHead];
            queueHead = (queueHead + 1) % capacity;
            queueSize--;
            if (status[member] == SUSPECT && suspectDeadline[member] == deadline)
            {
                apply(member, incarnation[member], MemberStatus.DEAD, nowTick);
            }
        }
    }

    /** @return the buffer of updates to piggyback. */
    public DisseminationBuffer dissemination()
    {
        return dissemination;
    }

    /**
     * @param member id.
     * @return its status in this view.
     */
    public MemberStatus status(final int member)
    {
        return member == self ? MemberStatus.ALIVE : MemberStatus.fromCode(status[member]);
    }

    /**
     * @param member id.
     * @return true if this view holds it DEAD.
     */
    public boolean isDead(final int member)
    {
        return member != self && status[member] == DEAD;
    }

    /**
     * @param member id.
     * @return its incarnation in this view.
     */
    public int incarnation(final int member)
    {
        return member == self ? selfIncarnation : incarnation[member];
    }

    /** @return this process's incarnation. */
    public int selfIncarnation()
    {
        return selfIncarnation;
    }

    /** @return members with a lower id this view does not hold DEAD: the candidate rank. */
    public int rank()
    {
        return self - deadBelowSelf;
    }

    /** @return members this view holds DEAD. */
    public int deadCount()
    {
        return deadCount;
    }

    /** @return n. */
    public int processes()
    {
        return processes;
    }
}
