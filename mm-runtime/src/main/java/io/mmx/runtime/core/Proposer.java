package io.mmx.runtime.core;

import io.mmx.membership.Role;

import java.util.ArrayList;
import java.util.HashMap;

/**
 * The proposer/leader role: phase 1 over all undecided slots on becoming leader, then phase 2
 * only, with batching (up to {@code maxBatch} proposals per slot), groups of up to
 * {@code maxSlotsPerAccept} slots per Accept, and at most {@code pipelineSlots} slots beyond the
 * applied prefix in flight. Quorums count DISTINCT acceptors (bitsets), whoever executed them.
 */
final class Proposer
{
    private static final long[] NOOP = new long[0];

    private final int self;
    private final int n;
    private final CoreConfig config;
    private final Effects effects;
    private final Learner learner;
    private final int quorum;

    private Role role = Role.FOLLOWER;
    private boolean leaderByOracle;
    private boolean preempted;
    private long ballot = Ballot.NONE;
    private long maxRoundSeen;
    private long persistedRound;
    private boolean mayLead = true;
    private boolean named; // the leader oracle names this process
    /** What PROPOSER_ROUND in our region holds, as far as we know: the expected value of the next CAS. */
    private long roundWord;
    private long roundOpId = -1;
    private long opSeq;
    private boolean prepareSent;
    private long phaseTick;
    /** When phase 1 last ran again for slots our learner lost (ticks). */
    private long rerunTick = Long.MIN_VALUE / 2;

    private final long[] promiseBits;
    private int promiseCount;
    private long maxFloor;
    private long highestSlotSeen = -1;
    private final HashMap<Long, long[]> candidateValues = new HashMap<>();
    private final HashMap<Long, Long> candidateBallots = new HashMap<>();

    private final ArrayList<Group> groups = new ArrayList<>();
    private long nextSlot;
    /**
     * Every slot up to here is decided as far as this proposer knows (its learner, phase 1
     * floors, its own quorums). The pipeline is measured from here, not from the learner's
     * applied prefix, so a leader whose learner lags (say, after a restart) still leads.
     */
    private long decidedBase = -1;
    private final long[] decidedRing;
    /** Values of the slots in {@link #decidedRing}: catch-up source even when our own learner lags. */
    private final long[][] decidedValues;
    private int lastDecidedAcks;

    /** Thrifty phase 2: the executor that last ran each acceptor for us, or -1. */
    private int[] executorOf;
    /** Leader only: each process's durable decided prefix as its Accepted bundles reported. */
    private long[] durableOf;
    private long[] topDurable;
    /** When each process last reported its durable prefix (ticks). */
    private long[] durableHeardTick;
    private int[] thriftyCount;
    private int[][] thriftyLists;
    private final int thriftyTarget;

    private final long[] queue;
    private int queueHead;
    private int queueSize;

    private long groupsDecided;
    private long slotsDecided;
    private long accepts;
    private long proposals;
    private long retransmissions;

    /** Slots first..first+values.length-1 proposed together at the current ballot. */
    private static final class Group
    {
        final long firstSlot;
        final long[][] values;
        final long[] ackBits;
        int ackCount;
        long sentTick;
        long firstSentTick;

        Group(final long firstSlot, final long[][] values, final int n)
        {
            this.firstSlot = firstSlot;
            this.values = values;
            this.ackBits = new long[(n + 63) >>> 6];
        }
    }

    Proposer(final int self, final CoreConfig config, final Effects effects, final Learner learner)
    {
        this.self = self;
        this.n = config.n();
        this.config = config;
        this.effects = effects;
        this.learner = learner;
        this.quorum = config.quorumSize();
        this.promiseBits = new long[(n + 63) >>> 6];
        this.queue = new long[config.proposalQueueCapacity() * config.proposalWords()];
        // A margin above the quorum absorbs a few slow or lost executors before a retransmission.
        this.thriftyTarget = Math.min(n, quorum + Math.max(1, n / 32));
        this.decidedRing = new long[4 * config.recordMaxEntries()];
        java.util.Arrays.fill(decidedRing, -1L);
        this.decidedValues = new long[decidedRing.length][];
    }

    Role role()
    {
        return role;
    }

    long ballot()
    {
        return ballot;
    }

    int quorum()
    {
        return quorum;
    }

    long groupsDecided()
    {
        return groupsDecided;
    }

    long slotsDecided()
    {
        return slotsDecided;
    }

    long accepts()
    {
        return accepts;
    }

    /** Proposals this proposer queued (each ends up in a slot unless leadership is lost first). */
    long proposals()
    {
        return proposals;
    }

    /** Messages sent again because no quorum answered in time: phase 1 prepares and phase 2 accepts. */
    long retransmissions()
    {
        return retransmissions;
    }

    /** After a restart: never use a round at or below {@code persistedRound}; the word holds {@code roundWord}. */
    void recover(final long persistedRound, final long roundWord)
    {
        this.persistedRound = persistedRound;
        this.roundWord = roundWord;
        maxRoundSeen = Math.max(maxRoundSeen, persistedRound);
    }

    /**
     * Distinct acceptors heard in the current attempt: promises while preparing; while leading,
     * the acks of the oldest group once it is overdue (a retransmission period old), else the
     * acks that decided the last group.
     */
    int reachableAcceptors(final long nowTicks)
    {
        if (role == Role.CANDIDATE)
        {
            return promiseCount;
        }
        if (role == Role.LEADER)
        {
            if (groups.isEmpty())
            {
                return lastDecidedAcks;
            }
            final Group oldest = groups.get(0);
            final boolean overdue = nowTicks - oldest.firstSentTick >= config.retransmitTicks();
            return overdue ? oldest.ackCount : Math.max(lastDecidedAcks, oldest.ackCount);
        }
        return 0;
    }

    void observeBallot(final long seen)
    {
        final long round = Ballot.round(seen, n);
        if (round > maxRoundSeen)
        {
            maxRoundSeen = round;
        }
    }

    /**
     * Our region came back empty: the rounds we used before the loss are forgotten, so any ballot
     * of ours might be reused. Such a process never leads (until a configuration change).
     */
    /** Named leader, but the amnesia rule forbids it to lead: it reports itself blocked. */
    boolean barred()
    {
        return named && !mayLead;
    }

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
        final int w = config.proposalWords();
        if (!leaderByOracle || queueSize * w == queue.length)
        {
            return false;
        }
        // The queue holds whole proposals, so a proposal's words are contiguous modulo the length.
        int at = (queueHead + queueSize * w) % queue.length;
        for (int i = 0; i < w; i++)
        {
            queue[at] = words[offset + i];
            at = at + 1 == queue.length ? 0 : at + 1;
        }
        queueSize++;
        proposals++;
        return true;
    }

    private void stepDown()
    {
        role = Role.FOLLOWER;
        preempted = false;
        groups.clear();
        candidateValues.clear();
        candidateBallots.clear();
        queueSize = 0;
        roundOpId = -1;
    }

    /** Persist the new round in our own region first, so a restart never reuses a ballot. */
    void startPhase1(final long nowTicks)
    {
        if (executorOf == null)
        {
            // Leader-only state, allocated when this process first leads.
            executorOf = new int[n];
            java.util.Arrays.fill(executorOf, -1);
            durableOf = new long[n];
            java.util.Arrays.fill(durableOf, -1L);
            durableHeardTick = new long[n];
            java.util.Arrays.fill(durableHeardTick, Long.MIN_VALUE / 2);
            topDurable = new long[config.reclaimReplicas()];
            thriftyCount = new int[n];
            thriftyLists = new int[n][];
        }
        final long round = Math.max(maxRoundSeen, persistedRound) + 1;
        ballot = Ballot.of(round, self, n);
        maxRoundSeen = round;
        role = Role.CANDIDATE;
        preempted = false;
        groups.clear();
        java.util.Arrays.fill(promiseBits, 0L);
        promiseCount = 0;
        maxFloor = 0;
        highestSlotSeen = -1;
        candidateValues.clear();
        candidateBallots.clear();
        prepareSent = false;
        phaseTick = nowTicks;
        roundOpId = OpIds.make(OpIds.PROPOSER_ROUND, 0, ++opSeq);
        // A CAS from the value we know, not a plain write: a persist whose timeout was reported may
        // still land later, and a plain write landing late could lower the round (a restart would
        // then reuse a ballot). A late CAS finds the word moved on and fails; the word only rises.
        effects.memory(roundOpId, MemoryOpKind.CAS, self, RegionLayout.PROPOSER_ROUND_WORD, 1, roundWord, round, null);
    }

    void onRoundPersisted(final long opId, final MemoryStatus status, final long previous, final long nowTicks)
    {
        if (opId != roundOpId)
        {
            return;
        }
        roundOpId = -1;
        if (status == MemoryStatus.OK && previous != roundWord)
        {
            // An earlier persist of ours landed late: the word is higher than we knew.
            roundWord = previous;
            if (!config.has(Flaw.FORGET_PROPOSER_ROUND))
            {
                persistedRound = Math.max(persistedRound, previous);
                maxRoundSeen = Math.max(maxRoundSeen, previous);
            }
            if (role == Role.CANDIDATE)
            {
                startPhase1(nowTicks);
            }
            return;
        }
        if (status == MemoryStatus.OK)
        {
            roundWord = Ballot.round(ballot, n);
        }
        if (role != Role.CANDIDATE)
        {
            return;
        }
        if (status != MemoryStatus.OK)
        {
            // Maybe landed: the next CAS, from the value we knew, tells. It waits a prepare retry
            // period (onTick): a region that refuses at once (fenced after a timeout, not connected)
            // would otherwise spin phase 1 at the duty-cycle rate, burning a round per turn (a node
            // under load reached ballot 23,066,883 that way and starved the daemon it waited for).
            phaseTick = nowTicks;
            return;
        }
        persistedRound = Ballot.round(ballot, n);
        prepareSent = true;
        phaseTick = nowTicks;
        if (config.has(Flaw.SKIP_PHASE1))
        {
            becomeLeader(nowTicks);
            return;
        }
        effects.broadcast(new Message.Prepare(self, ballot));
    }

    void onPromise(final Message.Promise p, final long nowTicks)
    {
        if (role != Role.CANDIDATE || p.ballot != ballot || !countPromise(p))
        {
            return;
        }
        promiseCount++;
        maxFloor = Math.max(maxFloor, p.floor);
        for (int i = 0; i < p.slots.length; i++)
        {
            final long slot = p.slots[i];
            final Long known = candidateBallots.get(slot);
            if (known == null || known < p.ballots[i] && !config.has(Flaw.ADOPT_FIRST_VALUE))
            {
                candidateBallots.put(slot, p.ballots[i]);
                candidateValues.put(slot, p.values[i]);
            }
            highestSlotSeen = Math.max(highestSlotSeen, slot);
        }
        if (promiseCount >= quorum)
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
        effects.quorumCounted(ballot, 0, 0);
        role = Role.LEADER;
        lastDecidedAcks = promiseCount;
        if (maxFloor > 0)
        {
            learner.reportedDurable(maxFloor - 1);
        }
        decidedBase = Math.max(decidedBase, Math.max(learner.appliedThrough(), maxFloor - 1));
        advanceBase();
        final long start = Math.max(maxFloor, learner.appliedThrough() + 1);
        nextSlot = Math.max(start, highestSlotSeen + 1);
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
            final long[] v = candidateValues.get(s);
            run.add(v == null ? NOOP : v);
        }
        candidateValues.clear();
        candidateBallots.clear();
        fill(nowTicks);
    }

    private void sendGroup(final long firstSlot, final long[][] values, final long nowTicks)
    {
        final long durable = learner.durableFloor() - 1;
        final Group g = new Group(firstSlot, values, n);
        g.sentTick = nowTicks;
        g.firstSentTick = nowTicks;
        groups.add(g);
        accepts++;
        if (!sendThrifty(firstSlot, values, durable))
        {
            effects.broadcast(new Message.Accept(self, ballot, firstSlot, values, durable, decidedBase));
        }
    }

    /**
     * Thrifty phase 2: ask only as many acceptors as a quorum plus a margin, each from the
     * executor that last ran it for us, one Accept per executor naming its acceptors. Returns
     * false (broadcast instead) until enough acceptors have known executors. Retransmissions
     * always broadcast, so a wrong guess costs one retransmission period, never safety.
     */
    private boolean sendThrifty(final long firstSlot, final long[][] values, final long durable)
    {
        int known = 0;
        for (int q = 0; q < n && known < thriftyTarget; q++)
        {
            known += executorOf[q] >= 0 ? 1 : 0;
        }
        if (known < thriftyTarget)
        {
            return false;
        }
        int chosen = 0;
        for (int q = 0; q < n && chosen < thriftyTarget; q++)
        {
            final int e = executorOf[q];
            if (e < 0)
            {
                continue;
            }
            if (thriftyLists[e] == null || thriftyLists[e].length == thriftyCount[e])
            {
                thriftyLists[e] = thriftyLists[e] == null ? new int[4] :
                    java.util.Arrays.copyOf(thriftyLists[e], thriftyLists[e].length * 2);
            }
            thriftyLists[e][thriftyCount[e]++] = q;
            chosen++;
        }
        for (int e = 0; e < n; e++)
        {
            if (thriftyCount[e] > 0)
            {
                effects.send(e, new Message.Accept(self, ballot, firstSlot, values, durable, decidedBase,
                    java.util.Arrays.copyOf(thriftyLists[e], thriftyCount[e])));
                thriftyCount[e] = 0;
            }
        }
        return true;
    }

    /** Forms new groups from queued proposals while the pipeline has room. */
    void fill(final long nowTicks)
    {
        if (role != Role.LEADER)
        {
            return;
        }
        final int maxBatch = config.maxBatch();
        while (queueSize > 0)
        {
            // Within the pipeline, and never so far past our own learner that it could not hold what
            // we decide (it would then have to catch up on our decisions from others' logs).
            final long room = Math.min(decidedBase + config.pipelineSlots() + 1,
                learner.appliedThrough() + 1 + decidedRing.length / 2) - nextSlot;
            if (room <= 0)
            {
                return;
            }
            final int slots = (int)Math.min(Math.min(room, config.maxSlotsPerAccept()), (queueSize + maxBatch - 1) / maxBatch);
            final long[][] values = new long[slots][];
            for (int k = 0; k < slots; k++)
            {
                final int take = Math.min(maxBatch, queueSize);
                final long[] v = new long[take * config.proposalWords()];
                for (int j = 0; j < v.length; j++)
                {
                    v[j] = queue[queueHead];
                    queueHead = queueHead + 1 == queue.length ? 0 : queueHead + 1;
                }
                queueSize -= take;
                values[k] = v;
            }
            sendGroup(nextSlot, values, nowTicks);
            nextSlot += slots;
        }
    }

    void onAccepted(final Message.Accepted a, final long nowTicks)
    {
        // Executors' durable prefixes (facts, whatever the ballot): the reclaimReplicas-th highest
        // travels on to all executors in our Accepts (see relayDurable), so acceptor windows drain
        // even while some learners (ours included) lag, and no decided value lives in fewer logs.
        if (durableOf != null)
        {
            durableOf[a.from()] = Math.max(durableOf[a.from()], a.durableThrough);
            durableHeardTick[a.from()] = nowTicks;
        }
        if (role != Role.LEADER || a.ballot != ballot || a.acceptors.length == 0)
        {
            return;
        }
        final Group g = find(a.firstSlot);
        if (g == null)
        {
            return;
        }
        for (final int acceptor : a.acceptors)
        {
            executorOf[acceptor] = a.from();
            if (countAck(g, acceptor, a.from()))
            {
                g.ackCount++;
            }
        }
        if (g.ackCount >= quorum)
        {
            decide(g, nowTicks);
            fill(nowTicks);
        }
    }

    private void decide(final Group g, final long nowTicks)
    {
        effects.quorumCounted(ballot, g.firstSlot, g.values.length);
        groups.remove(g);
        groupsDecided++;
        slotsDecided += g.values.length;
        lastDecidedAcks = g.ackCount;
        for (int k = 0; k < g.values.length; k++)
        {
            final long slot = g.firstSlot + k;
            assert slot - decidedBase <= decidedRing.length : "decided slot beyond the proposer's window";
            decidedRing[(int)(slot % decidedRing.length)] = slot;
            decidedValues[(int)(slot % decidedRing.length)] = g.values[k];
            learner.onDecided(slot, g.values[k], nowTicks);
        }
        advanceBase();
        effects.broadcast(new Message.Commit(self, g.firstSlot, g.values));
    }

    /**
     * Slots below {@code f.floor} are decided (I5), with values we may not know. Stop proposing
     * them: trim every group that reaches below the floor to its slots at or above it (same
     * ballot, same values, so nothing an acceptor accepted changes meaning) and let the learner
     * catch up on the rest.
     */
    void onFloored(final Message.Floored f, final long nowTicks)
    {
        learner.reportedDurable(f.floor - 1);
        if (role != Role.LEADER || f.ballot != ballot)
        {
            return;
        }
        decidedBase = Math.max(decidedBase, f.floor - 1);
        for (int i = 0; i < groups.size(); i++)
        {
            final Group g = groups.get(i);
            if (g.firstSlot >= f.floor)
            {
                continue;
            }
            final long end = g.firstSlot + g.values.length;
            groups.remove(i--);
            if (end > f.floor)
            {
                final long[][] rest = java.util.Arrays.copyOfRange(g.values, (int)(f.floor - g.firstSlot), g.values.length);
                final Group t = new Group(f.floor, rest, n);
                t.sentTick = nowTicks;
                t.firstSentTick = g.firstSentTick;
                groups.add(i + 1, t);
                i++;
                effects.broadcast(new Message.Accept(self, ballot, f.floor, rest, learner.durableFloor() - 1, decidedBase));
            }
        }
        advanceBase();
        fill(nowTicks);
    }

    void onNack(final Message.Nack nack)
    {
        observeBallot(nack.promised);
        if (role != Role.FOLLOWER && nack.ballot == ballot && nack.promised > ballot)
        {
            preempted = true;
        }
    }

    /**
     * Reports the prefix that at least {@code reclaimReplicas} processes have logged, or, while
     * fewer than that report at all (the others crashed: their logs stand still), the prefix that
     * every process still reporting has logged. Without the second rule a cluster running on fewer
     * live processes than {@code reclaimReplicas} never raises acceptor floors, and its windows stay
     * full (a wedge above the tolerance line). Safety needs only "decided" (I5).
     */
    private void relayDurable(final long nowTicks)
    {
        if (durableOf == null)
        {
            return;
        }
        final int k = topDurable.length;
        java.util.Arrays.fill(topDurable, -1L);
        int reporting = 0;
        long lowestReporting = Long.MAX_VALUE;
        for (int p = 0; p < n; p++)
        {
            final long d = durableOf[p];
            if (d >= 0 && nowTicks - durableHeardTick[p] <= config.heartbeatTicks() * 4L)
            {
                reporting++;
                lowestReporting = Math.min(lowestReporting, d);
            }
            if (d > topDurable[k - 1])
            {
                int i = k - 1;
                while (i > 0 && topDurable[i - 1] < d)
                {
                    topDurable[i] = topDurable[i - 1];
                    i--;
                }
                topDurable[i] = d;
            }
        }
        final long relayed = reporting > 0 && reporting < k ? Math.max(topDurable[k - 1], lowestReporting) :
            topDurable[k - 1];
        learner.reportedDurable(relayed);
    }

    void onTick(final long nowTicks)
    {
        relayDurable(nowTicks);
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
            if (prepareSent && nowTicks - phaseTick >= config.prepareRetryTicks())
            {
                phaseTick = nowTicks;
                retransmissions++;
                effects.broadcast(new Message.Prepare(self, ballot));
            }
            else if (!prepareSent && roundOpId == -1 && nowTicks - phaseTick >= config.prepareRetryTicks())
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
        // Groups the learner completed meanwhile (by catch-up) are done.
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
        int resent = 0;
        for (int i = 0; i < groups.size() && resent < 4; i++)
        {
            final Group g = groups.get(i);
            if (nowTicks - g.sentTick >= config.retransmitTicks())
            {
                g.sentTick = nowTicks;
                resent++;
                retransmissions++;
                // A fresh copy: it carries today's durable prefix, which lets executors raise
                // floors and make room in acceptor windows that filled up meanwhile.
                effects.broadcast(new Message.Accept(self, ballot, g.firstSlot, g.values, learner.durableFloor() - 1,
                    decidedBase));
            }
        }
        fill(nowTicks);
    }

    /** Decided values this proposer decided, contiguous from {@code fromSlot}, at most {@code count}; or null. */
    long[][] decidedRun(final long fromSlot, final int count)
    {
        int k = 0;
        while (k < count && fromSlot + k >= 0 && decidedRing[(int)((fromSlot + k) % decidedRing.length)] == fromSlot + k)
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
            if (decidedRing[(int)(s % decidedRing.length)] != s && !learner.isDecided(s))
            {
                return;
            }
            decidedBase = s;
        }
    }

    private Group find(final long firstSlot)
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

    /** Sets bit {@code i}; returns true if it was clear (a distinct acceptor). */
    /** Distinct acceptors count (I6); the flaws count something else. */
    private boolean countPromise(final Message.Promise p)
    {
        if (config.has(Flaw.COUNT_EXECUTORS_PHASE1))
        {
            return mark(promiseBits, p.from());
        }
        if (config.has(Flaw.COUNT_PAIRS_PHASE1))
        {
            return flawPairs.add(ballot + "/" + p.acceptor + "/" + p.from());
        }
        return mark(promiseBits, p.acceptor);
    }

    private boolean countAck(final Group g, final int acceptor, final int executor)
    {
        if (config.has(Flaw.COUNT_EXECUTORS_PHASE2))
        {
            return flawPairs.add(ballot + "/" + g.firstSlot + "/" + executor);
        }
        if (config.has(Flaw.COUNT_PAIRS_PHASE2))
        {
            return flawPairs.add(ballot + "/" + g.firstSlot + "/" + acceptor + "/" + executor);
        }
        return mark(g.ackBits, acceptor);
    }

    /** Only for the counting flaws (never allocated into otherwise). */
    private final java.util.HashSet<String> flawPairs = new java.util.HashSet<>();

    private static boolean mark(final long[] bits, final int i)
    {
        final long mask = 1L << (i & 63);
        final int w = i >>> 6;
        if ((bits[w] & mask) != 0)
        {
            return false;
        }
        bits[w] |= mask;
        return true;
    }
}
