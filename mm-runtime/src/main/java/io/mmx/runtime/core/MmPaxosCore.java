package io.mmx.runtime.core;

import io.mmx.membership.Role;
import io.mmx.planner.graph.Graph;
import io.mmx.rdma.region.RegionHeader;

/**
 * One process of m&amp;m Paxos as a single-threaded, I/O-free state machine: events in
 * ({@link #onMessage}, {@link #onMemoryCompletion}, {@link #onTick}, {@link #onSuspicion},
 * {@link #onLeaderChange}, {@link #propose}), effects out through {@link Effects}. No threads,
 * clocks or global random: time arrives as ticks, randomness from the seed given here.
 *
 * <p>Roles, one class each: {@link AcceptorDriver} executes acceptor transitions on regions of
 * N[p] (its own always, a neighbour's while it suspects it or while p prepares or leads:
 * {@link CoreConfig#leaderExecutesNeighbours}), {@link Proposer} leads,
 * {@link Learner} learns, applies and logs decisions, {@link AcceptedBundles} batches replies.
 *
 * <p>Lifecycle: {@link #start} reads the own region's header (recovering the decided prefix and
 * the proposer round after a restart); until that completes, messages are dropped.
 */
public final class MmPaxosCore implements AcceptorReplies
{
    private final int self;
    private final int n;
    private final CoreConfig config;
    private final Effects effects;
    private final Graph graph;
    private final Learner learner;
    private final Proposer proposer;
    private final AcceptedBundles bundles;
    private final AcceptorDriver[] drivers;
    private final Message.Accept[] recentAccepts;
    /** Per driver index: membership suspects that neighbour (index 0, ourselves, is never suspected). */
    private final boolean[] suspected;
    /** True while the neighbours' drivers run because this process prepares or leads. */
    private boolean coveringAsLeader;
    private int recentCursor;
    private long lastPrepare = Ballot.NONE;
    /** The knownThrough of the Prepare of {@link #lastPrepare} (-1: leave nothing out). */
    private long lastPrepareKnown = -1;

    private boolean ready;
    private long recoveryOpId = -1;
    private long heartbeatOpId = -1;
    private long opSeq;
    private long nowTicks;
    private long lastHeartbeatTick;
    private int leader = -1;
    private long random;
    private boolean catchupToggle;
    private Status lastStatus;
    private final long[] single = new long[1];

    /** The core of process {@code self}; it asks for effects through {@code effects} and draws its randomness from {@code seed}. */
    public MmPaxosCore(final int self, final CoreConfig config, final Effects effects, final long seed)
    {
        this(self, config, effects, seed, new PayloadScratch());
    }

    /**
     * As above, encoding payloads in {@code scratch}, which the cores one thread runs may share
     * ({@link PayloadScratch}).
     */
    public MmPaxosCore(final int self, final CoreConfig config, final Effects effects, final long seed,
        final PayloadScratch scratch)
    {
        config.conclude();
        this.self = self;
        this.n = config.n();
        this.config = config;
        // The first tick after recovery bumps the heartbeat at once: a reader sees the process live from its start.
        this.lastHeartbeatTick = -config.heartbeatTicks();
        this.effects = effects;
        this.graph = config.graph();
        if (self < 0 || self >= n)
        {
            throw new IllegalArgumentException("process id " + self + " outside 0.." + (n - 1));
        }
        this.random = seed == 0 ? 0x9E3779B97F4A7C15L : seed;
        this.learner = new Learner(self, config, effects, scratch);
        this.proposer = new Proposer(self, config, effects, learner, this::executesFor);
        final int degree = graph.degree(self);
        this.suspected = new boolean[degree + 1];
        this.bundles = new AcceptedBundles(self, n, 64, degree + 1, effects, learner);
        this.drivers = new AcceptorDriver[degree + 1];
        // One scratch for all drivers (and the learner): Effects.memory copies the payload during the call.
        drivers[0] = new AcceptorDriver(self, self, 0, 0, config, effects, this, learner, scratch);
        for (int i = 0; i < degree; i++)
        {
            final int q = graph.neighbour(self, i);
            final int lane = 1 + java.util.Arrays.binarySearch(graph.targets(), graph.offsets()[q],
                graph.offsets()[q + 1], self) - graph.offsets()[q];
            assert lane >= 1 && lane < config.layout().laneCount();
            drivers[i + 1] = new AcceptorDriver(self, q, lane, i + 1, config, effects, this, learner, scratch);
        }
        this.recentAccepts = new Message.Accept[config.recentAccepts()];
    }

    /** The process this core runs. */
    public int id()
    {
        return self;
    }

    /** True once recovery read the own region and the core takes part in the protocol. */
    public boolean ready()
    {
        return ready;
    }

    /** Begins recovery: one read of the own region's header. */
    public void start(final long nowTicks)
    {
        this.nowTicks = nowTicks;
        recoveryOpId = OpIds.make(OpIds.RECOVERY, 0, ++opSeq);
        effects.memory(recoveryOpId, MemoryOpKind.READ_BULK, self, 0, RegionLayout.HEADER_WORDS, 0, 0, null);
    }

    private void onRecovered(final MemoryStatus status, final long[] header)
    {
        if (status != MemoryStatus.OK)
        {
            start(nowTicks);
            return;
        }
        final String identityProblem = RegionHeader.identityProblem(header, self, config.planHash());
        if (identityProblem != null)
        {
            throw new IllegalStateException(identityProblem);
        }
        learner.recover(header[RegionLayout.DECIDED_THROUGH_WORD]);
        learner.reloadLog();
        proposer.recover(config.has(Flaw.FORGET_PROPOSER_ROUND) ? 0 : header[RegionLayout.PROPOSER_ROUND_WORD],
            header[RegionLayout.PROPOSER_ROUND_WORD]);
        if (RegionLayout.amnesiac(header[RegionLayout.INCARNATION_WORD], header[RegionLayout.HEAD_WORD]) &&
            !config.has(Flaw.AMNESIAC_REJOINS))
        {
            proposer.forbidLeading(); // its own rounds were lost with the region: it could reuse a ballot
        }
        ready = true;
        drivers[0].activate();
        if (leader == self)
        {
            proposer.onLeaderChange(leader, nowTicks, true);
        }
        syncCoverage();
    }

    /** Event: message {@code m} arrived. */
    public void onMessage(final Message m, final long nowTicks)
    {
        this.nowTicks = nowTicks;
        if (!ready)
        {
            return;
        }
        switch (m.type())
        {
            case PREPARE:
                onPrepare((Message.Prepare)m);
                break;
            case ACCEPT:
                onAccept((Message.Accept)m);
                break;
            case PROMISE:
                proposer.onPromise((Message.Promise)m, nowTicks);
                break;
            case NACK:
                proposer.onNack((Message.Nack)m);
                break;
            case ACCEPTED:
                proposer.onAccepted((Message.Accepted)m, nowTicks);
                break;
            case FLOORED:
                proposer.onFloored((Message.Floored)m, nowTicks);
                break;
            case COMMIT:
                onCommit((Message.Commit)m);
                break;
            case CATCHUP_REQUEST:
                onCatchupRequest((Message.CatchupRequest)m);
                break;
            case GONE:
                learner.onGone((Message.Gone)m, nowTicks);
                break;
            default:
                throw new IllegalStateException("unknown message " + m);
        }
        proposer.fill(nowTicks);
        syncCoverage();
    }

    private void onPrepare(final Message.Prepare p)
    {
        proposer.observeBallot(p.ballot);
        if (p.ballot > lastPrepare)
        {
            lastPrepare = p.ballot;
            lastPrepareKnown = p.knownThrough;
        }
        else if (p.ballot == lastPrepare)
        {
            // A resend of the same proposer's Prepare: its applied prefix only grows.
            lastPrepareKnown = Math.max(lastPrepareKnown, p.knownThrough);
        }
        for (final AcceptorDriver d : drivers)
        {
            if (d.active())
            {
                d.enqueuePrepare(p.ballot);
            }
        }
    }

    private void onAccept(final Message.Accept a)
    {
        proposer.observeBallot(a.ballot);
        learner.reportedDurable(a.durableThrough);
        learner.hint(a.decidedThrough);
        recentAccepts[recentCursor++ % recentAccepts.length] = a;
        runAccept(a, -1);
    }

    /**
     * Hands {@code a} to every active driver the Accept names (all, if it names none), or only
     * to driver {@code onlyIndex} if >= 0.
     */
    private void runAccept(final Message.Accept a, final int onlyIndex)
    {
        int k = 0;
        for (int i = 0; i < drivers.length; i++)
        {
            if (wants(a, i, onlyIndex))
            {
                k++;
            }
        }
        if (k == 0)
        {
            return;
        }
        bundles.expect(a.ballot, a.firstSlot, k);
        for (int i = 0; i < drivers.length; i++)
        {
            if (wants(a, i, onlyIndex))
            {
                drivers[i].enqueueAccept(a);
            }
        }
    }

    private boolean wants(final Message.Accept a, final int i, final int onlyIndex)
    {
        if (!drivers[i].active() || (onlyIndex >= 0 && i != onlyIndex))
        {
            return false;
        }
        if (a.acceptors == null)
        {
            return true;
        }
        final int q = drivers[i].acceptor();
        for (final int named : a.acceptors)
        {
            if (named == q)
            {
                return true;
            }
        }
        return false;
    }

    private void onCommit(final Message.Commit c)
    {
        learner.onDecided(c.firstSlot, c.values, nowTicks);
    }

    private void onCatchupRequest(final Message.CatchupRequest r)
    {
        final int count = Math.min(r.count, config.catchupBatch());
        long[][] run = learner.decidedRun(r.fromSlot, count);
        if (run == null)
        {
            run = proposer.decidedRun(r.fromSlot, count);
        }
        if (run != null)
        {
            effects.send(r.from(), new Message.Commit(self, r.fromSlot, run));
        }
        else if (r.fromSlot >= 0 && r.fromSlot <= learner.appliedThrough())
        {
            // Decided and applied here, but no longer held: say so, or the asker waits for ever.
            effects.send(r.from(), new Message.Gone(self, r.fromSlot, learner.oldestHeldAfter(r.fromSlot)));
        }
    }

    /** Event: memory operation {@code opId} completed with {@code status}, its previous word {@code value} or bulk {@code data}. */
    public void onMemoryCompletion(final long opId, final MemoryStatus status, final long value, final long[] data,
        final long nowTicks)
    {
        this.nowTicks = nowTicks;
        switch (OpIds.purpose(opId))
        {
            case OpIds.DRIVER:
                drivers[OpIds.index(opId)].onCompletion(opId, status, value, data);
                break;
            case OpIds.DECIDED_LOG:
                learner.onLogCompletion(opId, status);
                break;
            case OpIds.CATCHUP_READ:
                learner.onCatchupCompletion(opId, status, value, data, nowTicks);
                break;
            case OpIds.LOG_RELOAD:
                learner.onReload(opId, status, data);
                break;
            case OpIds.PROPOSER_ROUND:
                proposer.onRoundPersisted(opId, status, value, nowTicks);
                break;
            case OpIds.RECOVERY:
                if (opId == recoveryOpId)
                {
                    recoveryOpId = -1;
                    onRecovered(status, data);
                }
                break;
            case OpIds.HEARTBEAT:
                if (opId == heartbeatOpId)
                {
                    heartbeatOpId = -1;
                }
                break;
            default:
                throw new IllegalStateException("completion for unknown op id " + Long.toHexString(opId));
        }
        if (ready)
        {
            proposer.fill(nowTicks);
            syncCoverage();
        }
    }

    /** Event: time moved to {@code nowTicks}: timers, retransmissions, catch-up and the status report. */
    public void onTick(final long nowTicks)
    {
        this.nowTicks = nowTicks;
        if (!ready)
        {
            return;
        }
        if (config.bumpsHeartbeat() && nowTicks - lastHeartbeatTick >= config.heartbeatTicks() && heartbeatOpId == -1)
        {
            lastHeartbeatTick = nowTicks;
            heartbeatOpId = OpIds.make(OpIds.HEARTBEAT, 0, ++opSeq);
            effects.memory(heartbeatOpId, MemoryOpKind.FETCH_ADD, self, RegionLayout.HEARTBEAT_WORD, 1, 0, 1, null);
        }
        bundles.flushAll();
        proposer.onTick(nowTicks);
        syncCoverage();
        // Our own proposer's recent decisions first: a leader whose learner fell behind (its log
        // writes were slow) may be the only live process that still knows them.
        final long ownFrom = learner.appliedThrough() + 1;
        final long[][] own = ownFrom <= learner.highestKnownDecided() ?
            proposer.decidedRun(ownFrom, config.catchupBatch()) : null;
        if (own != null)
        {
            learner.onDecided(ownFrom, own, nowTicks);
        }
        // Ask the leader and, every other time, a random process: the leader may lag too.
        catchupToggle = !catchupToggle;
        learner.onTick(nowTicks, leader >= 0 && leader != self && catchupToggle ? leader : nextRandom(n));
        final Status s = status();
        if (!s.sameAs(lastStatus))
        {
            lastStatus = s;
            effects.status(s);
        }
    }

    /**
     * Membership says {@code process} is (no longer) suspected. Only neighbours matter here: we
     * start or stop executing their acceptor transitions. Executing for a live q is safe.
     */
    public void onSuspicion(final int process, final boolean suspected, final long nowTicks)
    {
        this.nowTicks = nowTicks;
        final int i = coverageIndex(process);
        if (i <= 0)
        {
            return;
        }
        this.suspected[i] = suspected;
        setCovering(i, suspected || coveringAsLeader);
    }

    /**
     * A process that prepares or leads executes its live neighbours' acceptors itself
     * ({@link CoreConfig#leaderExecutesNeighbours}): their transitions then complete in its own
     * duty cycle, one memory operation away instead of an Accept and an Accepted away, and when
     * N[leader] holds a quorum a group is decided without any executor's answer. The owners keep
     * executing their own acceptors (a Prepare of another proposer, a broadcast Accept); the head
     * CAS orders the two executors' transitions, so this is as safe as executing for a suspected
     * neighbour.
     */
    private void syncCoverage()
    {
        final boolean want = ready && config.leaderExecutesNeighbours() && proposer.role() != Role.FOLLOWER;
        if (want == coveringAsLeader)
        {
            return;
        }
        coveringAsLeader = want;
        for (int i = 1; i < drivers.length; i++)
        {
            setCovering(i, want || suspected[i]);
        }
    }

    /** Starts or stops executing driver {@code i}'s acceptor; a driver that starts catches up on what q missed. */
    private void setCovering(final int i, final boolean cover)
    {
        final AcceptorDriver d = drivers[i];
        if (cover && !d.active())
        {
            d.activate();
            if (ready)
            {
                // Replay what q missed so the new executor does not wait for retransmissions.
                if (lastPrepare != Ballot.NONE)
                {
                    d.enqueuePrepare(lastPrepare);
                }
                for (final Message.Accept a : recentAccepts)
                {
                    if (a != null && a.ballot >= lastPrepare)
                    {
                        runAccept(a, i);
                    }
                }
            }
        }
        else if (!cover && d.active())
        {
            d.deactivate();
        }
    }

    /** The leader oracle (membership's Omega, later) names {@code leader}. */
    public void onLeaderChange(final int leader, final long nowTicks)
    {
        this.nowTicks = nowTicks;
        this.leader = leader;
        proposer.onLeaderChange(leader, nowTicks, ready);
        syncCoverage();
    }

    /**
     * Queues a client proposal; false if this process does not lead or its queue is full.
     * Queued proposals go out with the next event, or at {@link #flushProposals()}: a burst of
     * proposals then shares slots and groups instead of leaving one slot each.
     */
    public boolean propose(final long proposalId)
    {
        if (config.proposalWords() != 1)
        {
            throw new IllegalStateException("this core takes proposals of " + config.proposalWords() +
                " words: call propose(long[], int)");
        }
        single[0] = proposalId;
        return ready && proposer.propose(single, 0);
    }

    /**
     * Queues a proposal of {@link CoreConfig#proposalWords()} words read from {@code words[offset..]};
     * decided values are concatenations of whole proposals. Same contract as {@link #propose(long)}.
     */
    public boolean propose(final long[] words, final int offset)
    {
        if (offset < 0 || offset + config.proposalWords() > words.length)
        {
            throw new IndexOutOfBoundsException("a proposal is " + config.proposalWords() + " words; " +
                words.length + " from offset " + offset + " is too short");
        }
        return ready && proposer.propose(words, offset);
    }

    /** Forms slots and groups from queued proposals now (call after a burst of {@link #propose}). */
    public void flushProposals()
    {
        if (ready)
        {
            proposer.fill(nowTicks);
            syncCoverage();
        }
    }

    /** The process's status now. */
    public Status status()
    {
        return new Status(self, proposer.role(), proposer.ballot(), proposer.reachableAcceptors(nowTicks), proposer.quorum(),
            learner.appliedThrough(), learner.highestKnownDecided(), proposer.barred());
    }

    /** The learner's prefixes, for diagnosis: applied, durable (own log), floor given to records, highest known. */
    public String learnerSummary()
    {
        return "applied " + learner.appliedThrough() + ", durable " + learner.durableThrough() + ", floor " +
            learner.durableFloor() + ", known " + learner.highestKnownDecided() + ", skipped " + learner.skippedSlots();
    }

    /** The last slot applied, -1 before any. */
    public long appliedThrough()
    {
        return learner.appliedThrough();
    }

    /** True while this process leads (phase 2). */
    public boolean leading()
    {
        return proposer.role() == Role.LEADER;
    }

    /** Acceptor transitions this process published (all acceptors it executed for). */
    public long transitionsPublished()
    {
        long t = 0;
        for (final AcceptorDriver d : drivers)
        {
            t += d.transitions();
        }
        return t;
    }

    /** Head compare-and-swaps that found another executor's head (a lost race), over every acceptor it executed for. */
    public long casFailures()
    {
        long t = 0;
        for (final AcceptorDriver d : drivers)
        {
            t += d.casFailures();
        }
        return t;
    }

    /** Proposals this process queued while it led (forwarded ones included). */
    public long proposals()
    {
        return proposer.proposals();
    }

    /** Prepares and accepts this process sent again because no quorum answered in time. */
    public long retransmissions()
    {
        return proposer.retransmissions();
    }

    /**
     * True if this process executes {@code process}'s acceptor transitions: its own, a suspected
     * neighbour's, or, while it prepares or leads, any neighbour's.
     */
    public boolean executesFor(final int process)
    {
        final int i = coverageIndex(process);
        return i >= 0 && drivers[i].active();
    }

    /** Acceptors this process currently executes for (itself included). */
    public int coveredAcceptors()
    {
        int c = 0;
        for (final AcceptorDriver d : drivers)
        {
            c += d.active() ? 1 : 0;
        }
        return c;
    }

    private int coverageIndex(final int process)
    {
        if (process == self)
        {
            return 0;
        }
        final int[] offsets = graph.offsets();
        final int pos = java.util.Arrays.binarySearch(graph.targets(), offsets[self], offsets[self + 1], process);
        return pos < 0 ? -1 : 1 + pos - offsets[self];
    }

    private int nextRandom(final int bound)
    {
        random ^= random << 13;
        random ^= random >>> 7;
        random ^= random << 17;
        return (int)Math.floorMod(random, (long)bound);
    }

    // AcceptorReplies: results of transitions this process executed.

    @Override
    public void promised(final int acceptor, final long ballot, final AcceptorRecord record)
    {
        // Entries the proposer has applied are of no use to it (it proposes only above them, and
        // its applied prefix only grows): at n = 4096 whole windows from ~2,500 acceptors were
        // what kept a new leader's phase 1 waiting for seconds. Only the Prepare of this very ballot
        // says how much to leave out.
        final long omit = ballot == lastPrepare ? lastPrepareKnown : -1;
        final int all = record.count();
        int first = 0;
        while (first < all && record.slot(first) <= omit)
        {
            first++;
        }
        final int count = all - first;
        final long[] slots = new long[count];
        final long[] ballots = new long[count];
        final long[][] values = new long[count][];
        for (int i = 0; i < count; i++)
        {
            slots[i] = record.slot(first + i);
            ballots[i] = record.ballot(first + i);
            values[i] = record.value(first + i);
        }
        effects.send(Ballot.proposer(ballot, n),
            new Message.Promise(self, acceptor, ballot, record.floor(), omit, slots, ballots, values));
    }

    @Override
    public void refused(final int acceptor, final long ballot, final long promised)
    {
        effects.send(Ballot.proposer(ballot, n), new Message.Nack(self, acceptor, ballot, promised));
    }

    @Override
    public void acceptResolved(final int acceptor, final Message.Accept accept,
        final AcceptorTransition.AcceptOutcome outcome, final long floor)
    {
        if (outcome == AcceptorTransition.AcceptOutcome.BELOW_FLOOR)
        {
            effects.send(Ballot.proposer(accept.ballot, n),
                new Message.Floored(self, acceptor, accept.ballot, accept.firstSlot, floor));
        }
        bundles.resolve(accept.ballot, accept.firstSlot, acceptor, outcome == AcceptorTransition.AcceptOutcome.ACCEPTED ||
            outcome == AcceptorTransition.AcceptOutcome.BELOW_FLOOR && config.has(Flaw.BELOW_FLOOR_COUNTED),
            outcome == AcceptorTransition.AcceptOutcome.WINDOW_FULL);
    }
}
