package io.mmx.runtime.core;

import java.util.HashMap;

/**
 * The proposer's phase 1 and its ballots: picks a round above every round seen or persisted,
 * persists it in the process's own region before any Prepare (so a restart never reuses a
 * ballot, and {@link #recover} starts above it), broadcasts the Prepare and sends it again while
 * no quorum promises, and collects the Promises: distinct acceptors (I6), the highest floor, and
 * for every reported slot the value of the highest ballot, which the leader re-proposes.
 */
final class Phase1
{
    /** What a completed persist of the round asks of the proposer. */
    enum Persisted
    {
        /** Nothing: a stale completion, a failed persist (retried after a period) or the Prepare is out. */
        NOTHING,
        /** An earlier persist landed late and the word is higher than known: start phase 1 again. */
        RESTART,
        /** Flaw {@code skip-phase1}: lead at once, without Promises. */
        LEAD
    }

    /** Most doublings of the wait between resends of one Prepare (32 retry periods: 1.6 s in a node). */
    static final int MAX_RETRY_BACKOFF_SHIFT = 5;

    private final int self;
    private final int n;
    private final int quorum;
    private final CoreConfig config;
    private final Effects effects;
    /** The slots this proposer has applied (a Prepare names them, so Promises leave them out). */
    private final java.util.function.LongSupplier knownThrough;

    private long ballot = Ballot.NONE;
    private long maxRoundSeen;
    private long persistedRound;
    /** What PROPOSER_ROUND in our region holds, as far as we know: the expected value of the next CAS. */
    private long roundWord;
    private long roundOpId = -1;
    private long opSeq;
    private boolean prepareSent;
    private long phaseTick;
    private long retransmissions;
    /** The current wait before the Prepare goes out again: doubled by each resend, up to the cap. */
    private long retryTicks;
    /** Promises counted when the last retry period ended: more since then is progress. */
    private int promisesAtLastRetry;

    private final AcceptorSet promised;
    private int promiseCount;
    private long maxFloor;
    private long highestSlotSeen = -1;
    private final HashMap<Long, long[]> candidateValues = new HashMap<>();
    private final HashMap<Long, Long> candidateBallots = new HashMap<>();
    /** Only for the counting flaw {@code count-pairs-phase1} (never allocated into otherwise). */
    private final java.util.HashSet<String> flawPairs = new java.util.HashSet<>();

    Phase1(final int self, final CoreConfig config, final Effects effects, final java.util.function.LongSupplier knownThrough)
    {
        this.knownThrough = knownThrough;
        this.self = self;
        this.n = config.n();
        this.quorum = config.quorumSize();
        this.config = config;
        this.effects = effects;
        this.promised = new AcceptorSet(n);
    }

    /** The current ballot: the last one phase 1 started. */
    long ballot()
    {
        return ballot;
    }

    /** Distinct acceptors that promised the current ballot. */
    int promises()
    {
        return promiseCount;
    }

    /** The highest floor the promises reported: every slot below it is decided (I5). */
    long maxFloor()
    {
        return maxFloor;
    }

    /** The highest slot any promise reported an entry for, -1 if none. */
    long highestSlotSeen()
    {
        return highestSlotSeen;
    }

    /** The value to re-propose in {@code slot}: the highest ballot's among the promises, or null. */
    long[] valueFor(final long slot)
    {
        return candidateValues.get(slot);
    }

    /** Prepares sent again because no quorum promised within the retry period. */
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

    void observeBallot(final long seen)
    {
        final long round = Ballot.round(seen, n);
        if (round > maxRoundSeen)
        {
            maxRoundSeen = round;
        }
    }

    /** Persist the new round in our own region first, so a restart never reuses a ballot. */
    void start(final long nowTicks)
    {
        final long round = Math.max(maxRoundSeen, persistedRound) + 1;
        ballot = Ballot.of(round, self, n);
        maxRoundSeen = round;
        promised.clear();
        promiseCount = 0;
        maxFloor = 0;
        highestSlotSeen = -1;
        candidateValues.clear();
        candidateBallots.clear();
        prepareSent = false;
        phaseTick = nowTicks;
        retryTicks = config.prepareRetryTicks();
        promisesAtLastRetry = 0;
        roundOpId = OpIds.make(OpIds.PROPOSER_ROUND, 0, ++opSeq);
        // A CAS from the value we know, not a plain write: a persist whose timeout was reported may
        // still land later, and a plain write landing late could lower the round (a restart would
        // then reuse a ballot). A late CAS finds the word moved on and fails; the word only rises.
        effects.memory(roundOpId, MemoryOpKind.CAS, self, RegionLayout.PROPOSER_ROUND_WORD, 1, roundWord, round, null);
    }

    /** Leadership lost: the attempt is over, and a persist still in flight no longer matters. */
    void abandon()
    {
        forgetValues();
        roundOpId = -1;
    }

    /** The leader re-proposed the promised values: they are no longer needed. */
    void forgetValues()
    {
        candidateValues.clear();
        candidateBallots.clear();
    }

    /**
     * The persist of the round completed; {@code preparing} says whether the proposer still runs
     * phase 1. Once the round is in the region, the Prepare goes out.
     */
    Persisted onRoundPersisted(final long opId, final MemoryStatus status, final long previous, final long nowTicks,
        final boolean preparing)
    {
        if (opId != roundOpId)
        {
            return Persisted.NOTHING;
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
            return preparing ? Persisted.RESTART : Persisted.NOTHING;
        }
        if (status == MemoryStatus.OK)
        {
            roundWord = Ballot.round(ballot, n);
        }
        if (!preparing)
        {
            return Persisted.NOTHING;
        }
        if (status != MemoryStatus.OK)
        {
            // Maybe landed: the next CAS, from the value we knew, tells. It waits a prepare retry
            // period (onTick): a region that refuses at once (fenced after a timeout, not connected)
            // would otherwise spin phase 1 at the duty-cycle rate, burning a round per turn (a node
            // under load reached ballot 23,066,883 that way and starved the daemon it waited for).
            phaseTick = nowTicks;
            return Persisted.NOTHING;
        }
        persistedRound = Ballot.round(ballot, n);
        prepareSent = true;
        phaseTick = nowTicks;
        if (config.has(Flaw.SKIP_PHASE1))
        {
            return Persisted.LEAD;
        }
        effects.broadcast(new Message.Prepare(self, ballot, knownThrough.getAsLong()));
        return Persisted.NOTHING;
    }

    /** Counts a Promise (the proposer runs phase 1); returns true once a quorum of distinct acceptors promised. */
    boolean onPromise(final Message.Promise p)
    {
        if (p.ballot != ballot || !countPromise(p))
        {
            return false;
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
        return promiseCount >= quorum;
    }

    /**
     * A tick while the proposer runs phase 1: the Prepare goes out again once a retry period
     * passed without a quorum and without a new Promise. Returns true when phase 1 must start
     * over: the round's persist failed a retry period ago.
     * <p>
     * Every acceptor that gets a Prepare runs a transition and answers with its window, so a resend
     * costs the whole cluster a phase 1. While Promises still come in the phase is under way, and a
     * resend only adds work (at n = 4096 the Promises of one Prepare take seconds to arrive, and a
     * resend every retry period kept a new leader from ever reaching a quorum); each resend doubles
     * the wait for the next, up to {@link #MAX_RETRY_BACKOFF_SHIFT} doublings.
     */
    boolean onTick(final long nowTicks)
    {
        if (prepareSent && nowTicks - phaseTick >= retryTicks)
        {
            phaseTick = nowTicks;
            if (promiseCount > promisesAtLastRetry)
            {
                promisesAtLastRetry = promiseCount;
                return false;
            }
            retransmissions++;
            retryTicks = Math.min(retryTicks * 2, (long)config.prepareRetryTicks() << MAX_RETRY_BACKOFF_SHIFT);
            effects.broadcast(new Message.Prepare(self, ballot, knownThrough.getAsLong()));
        }
        else if (!prepareSent && roundOpId == -1 && nowTicks - phaseTick >= config.prepareRetryTicks())
        {
            return true;
        }
        return false;
    }

    /** Distinct acceptors count (I6); the flaws count something else. */
    private boolean countPromise(final Message.Promise p)
    {
        if (config.has(Flaw.COUNT_EXECUTORS_PHASE1))
        {
            return promised.add(p.from());
        }
        if (config.has(Flaw.COUNT_PAIRS_PHASE1))
        {
            return flawPairs.add(ballot + "/" + p.acceptor + "/" + p.from());
        }
        return promised.add(p.acceptor);
    }
}
