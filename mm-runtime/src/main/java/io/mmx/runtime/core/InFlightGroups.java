package io.mmx.runtime.core;

import java.util.ArrayList;

/**
 * The leader's Accept groups in flight at its ballot, oldest first, until a quorum of distinct
 * acceptors accepted them: their acks, their trimming at a reported floor, and their
 * retransmission. An overdue group goes out again (at most 4 per tick) as a fresh broadcast
 * Accept carrying the current durable prefix, so executors can raise floors and free windows;
 * when a group is overdue follows the decide latency measured this term ({@link RetransmitTimer}).
 */
final class InFlightGroups
{
    private static final int MAX_RESENT_PER_TICK = 4;

    /** Slots first..first+values.length-1 proposed together at the current ballot. */
    static final class Group
    {
        final long firstSlot;
        final long[][] values;
        final AcceptorSet acked;
        int ackCount;
        long sentTick;
        long firstSentTick;
        /** Times it was broadcast again; each doubles the wait before the next (up to the cap). */
        int resends;
        /** Sent once only, so its quorum times the round trip (Karn's rule); a trimmed rest went out twice. */
        boolean timed = true;

        Group(final long firstSlot, final long[][] values, final int n)
        {
            this.firstSlot = firstSlot;
            this.values = values;
            this.acked = new AcceptorSet(n);
        }
    }

    private final int self;
    private final int n;
    private final CoreConfig config;
    private final Effects effects;
    private final Learner learner;
    private final ArrayList<Group> groups = new ArrayList<>();
    /** Only for the counting flaws of phase 2 (never allocated into otherwise). */
    private final java.util.HashSet<String> flawPairs = new java.util.HashSet<>();
    private long retransmissions;
    private final RetransmitTimer timer;
    /** When a group was last decided this term (ticks). */
    private long lastDecidedTick = Long.MIN_VALUE / 2;

    InFlightGroups(final int self, final CoreConfig config, final Effects effects, final Learner learner)
    {
        this.self = self;
        this.n = config.n();
        this.config = config;
        this.effects = effects;
        this.learner = learner;
        this.timer = new RetransmitTimer(config);
    }

    /** The retransmission timeout learnt this term, before any group's backoff (ticks). */
    long timeoutTicks()
    {
        return timer.timeoutTicks();
    }

    /** Accepts broadcast again because no quorum answered within the retransmit period. */
    long retransmissions()
    {
        return retransmissions;
    }

    /** True when no group awaits its quorum. */
    boolean isEmpty()
    {
        return groups.isEmpty();
    }

    /** A new group, sent now. */
    void open(final long firstSlot, final long[][] values, final long nowTicks)
    {
        final Group g = new Group(firstSlot, values, n);
        g.sentTick = nowTicks;
        g.firstSentTick = nowTicks;
        groups.add(g);
    }

    /** The group that starts at {@code firstSlot}, or null. */
    Group find(final long firstSlot)
    {
        for (int i = 0; i < groups.size(); i++)
        {
            final Group g = groups.get(i);
            if (g.firstSlot == firstSlot)
            {
                return g;
            }
        }
        return null;
    }

    /** A quorum accepted {@code g}: it leaves, and times the round trip if it was sent once. */
    void decided(final Group g, final long nowTicks)
    {
        groups.remove(g);
        lastDecidedTick = nowTicks;
        if (g.timed)
        {
            timer.sample(nowTicks - g.sentTick);
        }
    }

    /** Drops every group and what the term learnt of its latency (a new ballot, or leadership lost). */
    void clear()
    {
        groups.clear();
        timer.reset();
        lastDecidedTick = Long.MIN_VALUE / 2;
    }

    /**
     * Counts {@code acceptor}'s accept of {@code g}, run by {@code executor}: distinct acceptors
     * count (I6); the flaws count something else.
     */
    void ack(final Group g, final int acceptor, final int executor, final long ballot)
    {
        final boolean counted;
        if (config.has(Flaw.COUNT_EXECUTORS_PHASE2))
        {
            counted = flawPairs.add(ballot + "/" + g.firstSlot + "/" + executor);
        }
        else if (config.has(Flaw.COUNT_PAIRS_PHASE2))
        {
            counted = flawPairs.add(ballot + "/" + g.firstSlot + "/" + acceptor + "/" + executor);
        }
        else
        {
            counted = g.acked.add(acceptor);
        }
        if (counted)
        {
            g.ackCount++;
        }
    }

    /**
     * Distinct acceptors heard while leading: the acks of the oldest group once it is a timeout old
     * and no group was decided for a timeout, else the acks that decided the last group. A leader
     * whose groups are being decided reaches a quorum, however late its oldest group is.
     */
    int reachableAcceptors(final long nowTicks, final int lastDecidedAcks)
    {
        if (groups.isEmpty())
        {
            return lastDecidedAcks;
        }
        final Group oldest = groups.get(0);
        final long timeout = timer.timeoutTicks();
        final boolean stalled = nowTicks - oldest.firstSentTick >= timeout && nowTicks - lastDecidedTick >= timeout;
        return stalled ? oldest.ackCount : Math.max(lastDecidedAcks, oldest.ackCount);
    }

    /**
     * Slots below {@code floor} are decided (I5): trims every group that reaches below it to its
     * slots at or above it (same ballot, same values, so nothing an acceptor accepted changes
     * meaning) and sends the rest again at once.
     */
    void trimBelow(final long floor, final long ballot, final long decidedBase, final long nowTicks)
    {
        for (int i = 0; i < groups.size(); i++)
        {
            final Group g = groups.get(i);
            if (g.firstSlot >= floor)
            {
                continue;
            }
            final long end = g.firstSlot + g.values.length;
            groups.remove(i--);
            if (end > floor)
            {
                final long[][] rest = java.util.Arrays.copyOfRange(g.values, (int)(floor - g.firstSlot), g.values.length);
                final Group t = new Group(floor, rest, n);
                t.sentTick = nowTicks;
                t.firstSentTick = g.firstSentTick;
                t.timed = false;
                groups.add(i + 1, t);
                i++;
                effects.broadcast(new Message.Accept(self, ballot, floor, rest, learner.durableFloor() - 1, decidedBase));
            }
        }
    }

    /** Drops the groups whose every slot the learner holds decided meanwhile (by catch-up). */
    void dropLearned()
    {
        for (int i = groups.size() - 1; i >= 0; i--)
        {
            final Group g = groups.get(i);
            boolean all = true;
            for (int k = 0; k < g.values.length && all; k++)
            {
                all = learner.isDecided(g.firstSlot + k);
            }
            if (all)
            {
                groups.remove(i);
            }
        }
    }

    /**
     * Broadcasts again the oldest groups that waited their timeout, at most 4: the timeout the first
     * time, then twice as long after each broadcast, up to {@link CoreConfig#retransmitMaxTicks()}. A broadcast makes every
     * acceptor execute; when answers are late because the hosts are short of CPU (a thousand acceptors
     * on two cores), broadcasting every period only adds work, and the leader reached fewer acceptors
     * with each round; the timeout itself follows the measured decide latency for the same reason.
     * Timing only: safety never rests on when an Accept is sent.
     */
    void retransmitOverdue(final long ballot, final long decidedBase, final long nowTicks)
    {
        int resent = 0;
        for (int i = 0; i < groups.size() && resent < MAX_RESENT_PER_TICK; i++)
        {
            final Group g = groups.get(i);
            if (nowTicks - g.sentTick >= timer.waitTicks(g.resends))
            {
                g.sentTick = nowTicks;
                g.resends++;
                g.timed = false;
                resent++;
                retransmissions++;
                // A fresh copy: it carries today's durable prefix, which lets executors raise
                // floors and make room in acceptor windows that filled up meanwhile.
                effects.broadcast(new Message.Accept(self, ballot, g.firstSlot, g.values, learner.durableFloor() - 1,
                    decidedBase));
            }
        }
    }
}
