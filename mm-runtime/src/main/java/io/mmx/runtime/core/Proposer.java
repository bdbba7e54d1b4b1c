package io.mmx.runtime.core;

import io.mmx.membership.Role;

import java.util.ArrayList;

/**
 * The proposer/leader role: phase 1 over all undecided slots on becoming leader, then phase 2
 * only, with at most {@code pipelineSlots} slots beyond the decided prefix in flight. Quorums
 * count DISTINCT acceptors, whoever executed them. This class holds the role and the decided
 * prefix and coordinates its parts: {@link Phase1} (ballots, the round's persist, Promises),
 * {@link ProposalQueue} (the queue and batching), {@link AcceptRouter} (which executors a new
 * group goes to), {@link InFlightGroups} (acks, floors, retransmission) and {@link DurableRelay}
 * (the durable prefix relayed to executors).
 */
final class Proposer
{
    private static final long[] NOOP = new long[0];

    private final int self;
    private final CoreConfig config;
    private final Effects effects;
    private final Learner learner;
    private final int quorum;
    private final Phase1 phase1;
    private final ProposalQueue queue;
    private final InFlightGroups inFlight;
    /** Leader-only parts of size n, made when this process first leads. */
    private AcceptRouter router;
    private DurableRelay relay;

    private Role role = Role.FOLLOWER;
    private boolean leaderByOracle;
    private boolean preempted;
    private boolean mayLead = true;
    private boolean named; // the leader oracle names this process
    /** When phase 1 last ran again for slots our learner lost (ticks). */
    private long rerunTick = Long.MIN_VALUE / 2;

    private long nextSlot;
    /**
     * Every slot up to here is decided as far as this proposer knows (its learner, phase 1
     * floors, its own quorums). The pipeline is measured from here, not from the learner's
     * applied prefix, so a leader whose learner lags (say, after a restart) still leads.
     */
    private long decidedBase = -1;
    // Allocated at the first decision: only a leader decides, and every process carrying the ring
    // cost thousands of mostly idle cores in one simulation or host a ring each.
    private long[] decidedRing;
    /** Values of the slots in {@link #decidedRing}: catch-up source even when our own learner lags. */
    private long[][] decidedValues;
    /** Slots {@link #decidedRing} holds. */
    private final int decidedRingSlots;
    private int lastDecidedAcks;
    /** True for the acceptors this process's own drivers execute (see AcceptRouter). */
    private final java.util.function.IntPredicate executesLocally;

    Proposer(final int self, final CoreConfig config, final Effects effects, final Learner learner,
        final java.util.function.IntPredicate executesLocally)
    {
        this.self = self;
        this.executesLocally = executesLocally;
        this.config = config;
        this.effects = effects;
        this.learner = learner;
        this.quorum = config.quorumSize();
        this.phase1 = new Phase1(self, config, effects, learner::appliedThrough);
        this.queue = new ProposalQueue(config);
        this.inFlight = new InFlightGroups(self, config, effects, learner);
        this.decidedRingSlots = 4 * config.recordMaxEntries();
    }

    Role role()
    {
        return role;
    }

    long ballot()
    {
        return phase1.ballot();
    }

    int quorum()
    {
        return quorum;
    }

    /** Proposals this proposer queued (each ends up in a slot unless leadership is lost first). */
    long proposals()
    {
        return queue.proposals();
    }

    /** Messages sent again because no quorum answered in time: phase 1 prepares and phase 2 accepts. */
    long retransmissions()
    {
        return phase1.retransmissions() + inFlight.retransmissions();
    }

    /** After a restart: never use a round at or below {@code persistedRound}; the word holds {@code roundWord}. */
    void recover(final long persistedRound, final long roundWord)
    {
        phase1.recover(persistedRound, roundWord);
    }

    /**
     * Distinct acceptors heard in the current attempt: promises while preparing; while leading,
     * the acks of the oldest group once it and the last decision are a retransmission timeout old,
     * else the acks that decided the last group.
     */
    int reachableAcceptors(final long nowTicks)
    {
        if (role == Role.CANDIDATE)
        {
            return phase1.promises();
        }
        if (role == Role.LEADER)
        {
            return inFlight.reachableAcceptors(nowTicks, lastDecidedAcks);
        }
        return 0;
    }

    void observeBallot(final long seen)
    {
        phase1.observeBallot(seen);
    }

    /** Named leader, but the amnesia rule forbids it to lead: it reports itself blocked. */
    boolean barred()
    {
        return named && !mayLead;
    }

    /**
     * Our region came back empty: the rounds we used before the loss are forgotten, so any ballot
     * of ours might be reused. Such a process never leads (until a configuration change).
     */
    void forbidLeading()
    {
        mayLead = false;
        leaderByOracle = false;
        stepDown();
    }

    void onLeaderChange(final int leader, final long nowTicks, final boolean ready)
    {
        named = leader == self;
        leaderByOracle = named && mayLead;
        if (!leaderByOracle)
        {
            stepDown();
            return;
        }
        if (ready && role == Role.FOLLOWER)
        {
            startPhase1(nowTicks);
        }
    }

    /** Queues one proposal of {@code proposalWords} words from {@code words[offset..]}. */
    boolean propose(final long[] words, final int offset)
    {
        return leaderByOracle && queue.offer(words, offset);
    }

    private void stepDown()
    {
        role = Role.FOLLOWER;
        preempted = false;
        inFlight.clear();
        phase1.abandon();
        queue.clear();
    }

    private void startPhase1(final long nowTicks)
    {
        if (router == null)
        {
            router = new AcceptRouter(self, config, effects, executesLocally);
            relay = new DurableRelay(config);
        }
        role = Role.CANDIDATE;
        preempted = false;
        inFlight.clear();
        // Executors heard in an earlier term may have crashed since (the leader we replace among
        // them): the Promises of this ballot name live ones.
        router.forgetExecutors();
        phase1.start(nowTicks);
    }

    void onRoundPersisted(final long opId, final MemoryStatus status, final long previous, final long nowTicks)
    {
        switch (phase1.onRoundPersisted(opId, status, previous, nowTicks, role == Role.CANDIDATE))
        {
            case RESTART -> startPhase1(nowTicks);
            case LEAD -> becomeLeader(nowTicks);
            case NOTHING ->
            {
            }
        }
    }

    void onPromise(final Message.Promise p, final long nowTicks)
    {
        if (role != Role.FOLLOWER && p.ballot == phase1.ballot())
        {
            router.heard(p.acceptor, p.from());
        }
        if (role == Role.CANDIDATE && phase1.onPromise(p))
        {
            becomeLeader(nowTicks);
        }
    }

    /**
     * Phase 1 done: re-propose, for every slot from the floor up to the highest slot any promise
     * reported, the value of the highest ballot (or a no-op), skipping slots already learned.
     */
    private void becomeLeader(final long nowTicks)
    {
        effects.quorumCounted(phase1.ballot(), 0, 0);
        role = Role.LEADER;
        lastDecidedAcks = phase1.promises();
        final long maxFloor = phase1.maxFloor();
        if (maxFloor > 0)
        {
            learner.reportedDurable(maxFloor - 1);
        }
        decidedBase = Math.max(decidedBase, Math.max(learner.appliedThrough(), maxFloor - 1));
        advanceBase();
        final long start = Math.max(maxFloor, learner.appliedThrough() + 1);
        nextSlot = Math.max(start, phase1.highestSlotSeen() + 1);
        final ArrayList<long[]> run = new ArrayList<>();
        long runStart = start;
        for (long s = start; s <= nextSlot; s++)
        {
            final boolean end = s == nextSlot || learner.isDecided(s) || run.size() == config.maxSlotsPerAccept();
            if (end && !run.isEmpty())
            {
                sendGroup(runStart, run.toArray(new long[0][]), nowTicks);
                run.clear();
            }
            if (s == nextSlot)
            {
                break;
            }
            if (learner.isDecided(s))
            {
                runStart = s + 1;
                continue;
            }
            if (run.isEmpty())
            {
                runStart = s;
            }
            final long[] v = phase1.valueFor(s);
            run.add(v == null ? NOOP : v);
        }
        phase1.forgetValues();
        fill(nowTicks);
    }

    private void sendGroup(final long firstSlot, final long[][] values, final long nowTicks)
    {
        final long durable = learner.durableFloor() - 1;
        inFlight.open(firstSlot, values, nowTicks);
        router.send(phase1.ballot(), firstSlot, values, durable, decidedBase);
    }

    /** Forms new groups from queued proposals while the pipeline has room. */
    void fill(final long nowTicks)
    {
        if (role != Role.LEADER)
        {
            return;
        }
        while (!queue.isEmpty())
        {
            // Within the pipeline, and never so far past our own learner that it could not hold what
            // we decide (it would then have to catch up on our decisions from others' logs).
            long room = Math.min(decidedBase + config.pipelineSlots() + 1,
                learner.appliedThrough() + 1 + decidedRingSlots / 2) - nextSlot;
            if (room <= 0)
            {
                return;
            }
            if (!inFlight.isEmpty())
            {
                // Within the acceptor windows the Accept opens: an executor raises its floors to the
                // durable prefix we send, and a slot past floor + recordMaxEntries is refused
                // (WINDOW_FULL) until a retransmission carries a higher one. While groups are in
                // flight their replies bring the durable news, so a group waits here for a whole
                // group's room instead (a sliver of room would cost a round to every acceptor): room
                // for the group the queue would make now, which under light load is a slot or two.
                final int wanted = queue.groupSlots(room);
                if (windowRoom() < wanted && relay != null)
                {
                    // The replies since the last tick may have raised it: take their news now, not at
                    // the next tick (the relay keeps its highest reports as they come).
                    learner.reportedDurable(relay.replicated());
                }
                if (windowRoom() < wanted)
                {
                    return;
                }
                room = Math.min(room, windowRoom());
            }
            final long[][] values = queue.takeGroup(room);
            sendGroup(nextSlot, values, nowTicks);
            nextSlot += values.length;
        }
    }

    /** Slots from {@link #nextSlot} that fit the acceptor windows an Accept sent now opens (§6). */
    private long windowRoom()
    {
        return learner.durableFloor() + config.recordMaxEntries() - nextSlot;
    }

    void onAccepted(final Message.Accepted a, final long nowTicks)
    {
        // Executors' durable prefixes (facts, whatever the ballot) travel on to all executors in
        // our Accepts (DurableRelay).
        if (relay != null)
        {
            relay.heard(a.from(), a.durableThrough, nowTicks);
        }
        if (role != Role.LEADER || a.ballot != phase1.ballot() || a.acceptors.length == 0)
        {
            return;
        }
        final InFlightGroups.Group g = inFlight.find(a.firstSlot);
        if (g == null)
        {
            return;
        }
        for (final int acceptor : a.acceptors)
        {
            router.heard(acceptor, a.from());
            inFlight.ack(g, acceptor, a.from(), phase1.ballot());
        }
        if (g.ackCount >= quorum)
        {
            decide(g, nowTicks);
            fill(nowTicks);
        }
    }

    private void decide(final InFlightGroups.Group g, final long nowTicks)
    {
        effects.quorumCounted(phase1.ballot(), g.firstSlot, g.values.length);
        inFlight.decided(g, nowTicks);
        lastDecidedAcks = g.ackCount;
        for (int k = 0; k < g.values.length; k++)
        {
            final long slot = g.firstSlot + k;
            assert slot - decidedBase <= decidedRingSlots : "decided slot beyond the proposer's window";
            if (decidedRing == null)
            {
                decidedRing = new long[decidedRingSlots];
                java.util.Arrays.fill(decidedRing, -1L);
                decidedValues = new long[decidedRingSlots][];
            }
            decidedRing[(int)(slot % decidedRing.length)] = slot;
            decidedValues[(int)(slot % decidedRing.length)] = g.values[k];
        }
        learner.onDecided(g.firstSlot, g.values, nowTicks);
        advanceBase();
        effects.broadcast(new Message.Commit(self, g.firstSlot, g.values));
    }

    /**
     * Slots below {@code f.floor} are decided (I5), with values we may not know. Stop proposing
     * them (the groups in flight are trimmed to the floor) and let the learner catch up on them.
     */
    void onFloored(final Message.Floored f, final long nowTicks)
    {
        learner.reportedDurable(f.floor - 1);
        if (role != Role.LEADER || f.ballot != phase1.ballot())
        {
            return;
        }
        decidedBase = Math.max(decidedBase, f.floor - 1);
        inFlight.trimBelow(f.floor, phase1.ballot(), decidedBase, nowTicks);
        advanceBase();
        fill(nowTicks);
    }

    void onNack(final Message.Nack nack)
    {
        phase1.observeBallot(nack.promised);
        if (role != Role.FOLLOWER && nack.ballot == phase1.ballot() && nack.promised > phase1.ballot())
        {
            preempted = true;
        }
    }

    void onTick(final long nowTicks)
    {
        if (relay != null)
        {
            learner.reportedDurable(relay.relayed(nowTicks));
        }
        if (preempted && leaderByOracle)
        {
            startPhase1(nowTicks);
            return;
        }
        if (role == Role.LEADER && learner.appliedThrough() < decidedBase && learner.stalled(nowTicks) &&
            learner.appliedThrough() + 1 >= learner.durableFloor() && nowTicks - rerunTick >= learner.stallTicks() &&
            decidedRun(learner.appliedThrough() + 1, 1) == null)
        {
            // We decided slots our own learner lost and nobody gave back; they are still in the
            // acceptors' records above the floor. A new phase 1 re-proposes them from our applied
            // prefix (becomeLeader), and deciding them again teaches our learner. Below the floor
            // phase 1 cannot give them back (the learner skips those), and a re-run waits one stall
            // period for the last to work: re-running at every tick decided nothing at all (seed
            // 139808: a ballot in the thousands).
            rerunTick = nowTicks;
            startPhase1(nowTicks);
            return;
        }
        if (role == Role.CANDIDATE)
        {
            if (phase1.onTick(nowTicks))
            {
                startPhase1(nowTicks); // the round's persist failed a retry period ago
            }
            return;
        }
        if (role != Role.LEADER)
        {
            return;
        }
        advanceBase();
        inFlight.dropLearned();
        inFlight.retransmitOverdue(phase1.ballot(), decidedBase, nowTicks);
        fill(nowTicks);
    }

    /** Decided values this proposer decided, contiguous from {@code fromSlot}, at most {@code count}; or null. */
    long[][] decidedRun(final long fromSlot, final int count)
    {
        int k = 0;
        while (decidedRing != null && k < count && fromSlot + k >= 0 && decidedRing[(int)((fromSlot + k) % decidedRing.length)] == fromSlot + k)
        {
            k++;
        }
        if (k == 0)
        {
            return null;
        }
        final long[][] values = new long[k][];
        for (int i = 0; i < k; i++)
        {
            values[i] = decidedValues[(int)((fromSlot + i) % decidedRing.length)];
        }
        return values;
    }

    private void advanceBase()
    {
        while (true)
        {
            final long s = decidedBase + 1;
            if ((decidedRing == null || decidedRing[(int)(s % decidedRing.length)] != s) && !learner.isDecided(s))
            {
                return;
            }
            decidedBase = s;
        }
    }
}
