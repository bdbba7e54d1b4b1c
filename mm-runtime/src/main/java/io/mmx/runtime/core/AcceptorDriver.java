package io.mmx.runtime.core;

/**
 * Runs acceptor q's transitions from one executor p (p = q, or a neighbour of q that suspects q).
 *
 * <p>A transition: know the head word and the state its record chain holds (cached after our own
 * publishes, otherwise READ head, then READ_BULK each record of the chain back to its whole record),
 * apply all queued requests to that state in place ({@link AcceptorTransition}), WRITE_BULK the new
 * record (a delta of what changed, or the whole window every {@code recordChainDepth + 1}-th time)
 * into p's own lane of R_q at a record slot that is not in the chain p knows, then CAS the head
 * word from the old head to the new.
 * Only a successful CAS makes the transition happen, so q's acceptor is linearizable whoever
 * executes it. A failed CAS returns the current head: re-read and retry, bounded.
 *
 * <p>One operation outstanding at a time; requests arriving meanwhile are queued (bounded) and
 * coalesced into the next transition.
 */
final class AcceptorDriver
{
    private enum State
    {
        IDLE, READ_HEAD, READ_INCARNATION, READ_RECORD, VALIDATE_HEAD, WRITE_RECORD, PUBLISH_HEAD;

        static final State[] ALL = values();
    }

    private final int self;
    private final int acceptor;
    private final int lane;
    private final int index;
    private final CoreConfig config;
    private final RegionLayout layout;
    private final Effects effects;
    private final AcceptorReplies replies;
    private final Learner learner;

    private boolean active;
    /** The operation outstanding, as its {@link State}'s ordinal: no reference stored per operation (docs/protocol.md §12). */
    private byte state;
    private long expectedOpId = -1;
    private long opSeq;
    private int retries;
    /**
     * Words a record read asks for: a record of {@link #FIRST_READ_ENTRIES} full entries at first,
     * grown to the longest record this driver met (up to the capacity). A record holds the window,
     * mostly far below the capacity, and a read of the whole capacity (about 50 KB in the node) at
     * each takeover was the largest item of a busy n = 4096 node's profile.
     */
    private int recordReadWords;
    private static final int FIRST_READ_ENTRIES = 4;

    private boolean cacheValid;
    /** The region came back empty after a loss: this acceptor forgot its promises and never acts again. */
    private boolean amnesiac;
    private long cachedHead;
    // Allocated on first activation: most neighbour drivers never run (n = 4096: ~8 per process).
    private AcceptorRecord cached;
    private long nextHead;
    /** Record slots of our own lane in the chain of {@link #cachedHead}, as bits by index: never written. */
    private int ownChain;
    /** {@link #ownChain} once {@link #nextHead} is published. */
    private int nextOwnChain;
    /** The head word of the chain record being read: {@link #cachedHead}, then each delta's prev. */
    private long reading;
    /** Delta records of the chain read so far, newest first, copied: they are applied once the whole one is read. */
    private long[][] chainWords;
    private int chainRead;
    private boolean publishAmbiguous;
    private final PayloadScratch scratch;

    /** Highest Prepare waiting; the one taken into the current transition. */
    private long pendingPrepare = Ballot.NONE;
    private long flightPrepare = Ballot.NONE;
    private final Message.Accept[] accepts;
    /** Each queued Accept's outcome by ordinal: a byte, not a reference stored into this long-lived array per transition. */
    private final byte[] outcomes;
    private int acceptCount;
    private int flightAccepts;

    private long transitions;
    private long casFailures;

    AcceptorDriver(final int self, final int acceptor, final int lane, final int index, final CoreConfig config,
        final Effects effects, final AcceptorReplies replies, final Learner learner,
        final PayloadScratch scratch)
    {
        this.self = self;
        this.acceptor = acceptor;
        this.lane = lane;
        this.index = index;
        this.config = config;
        this.layout = config.layout();
        this.effects = effects;
        this.replies = replies;
        this.learner = learner;
        this.scratch = scratch;
        this.recordReadWords = Math.min(layout.recordCapacityWords(),
            AcceptorRecord.capacityWords(FIRST_READ_ENTRIES, config.valueWords()));
        this.accepts = new Message.Accept[config.driverQueueCapacity()];
        this.outcomes = new byte[config.driverQueueCapacity()];
    }

    int acceptor()
    {
        return acceptor;
    }

    boolean active()
    {
        return active;
    }

    long transitions()
    {
        return transitions;
    }

    long casFailures()
    {
        return casFailures;
    }

    void activate()
    {
        if (cached == null)
        {
            cached = new AcceptorRecord(config.recordMaxEntries(), config.valueWords());
        }
        active = true;
        kick();
    }

    /** Stops executing for q: drop every request (the leader retransmits), forget the cache. */
    void deactivate()
    {
        active = false;
        cacheValid = false;
        dropAll();
    }

    /** True once this acceptor was found amnesiac: its requests are dropped without a reply. */
    boolean amnesiac()
    {
        return amnesiac;
    }

    void enqueuePrepare(final long ballot)
    {
        if (!active || amnesiac)
        {
            return;
        }
        final long highest = Math.max(pendingPrepare, flightPrepare);
        if (ballot <= highest)
        {
            if (ballot < highest)
            {
                replies.refused(acceptor, ballot, highest);
            }
            return;
        }
        pendingPrepare = ballot;
        kick();
    }

    /** Queues an Accept; the caller counts one {@link AcceptorReplies#acceptResolved} for it. */
    void enqueueAccept(final Message.Accept accept)
    {
        if (!active || amnesiac || acceptCount == accepts.length)
        {
            replies.acceptResolved(acceptor, accept, null, 0);
            return;
        }
        accepts[acceptCount++] = accept;
        kick();
    }

    private void kick()
    {
        if (!active || state() != State.IDLE || (pendingPrepare == Ballot.NONE && flightPrepare == Ballot.NONE &&
            acceptCount == 0))
        {
            return;
        }
        if (!cacheValid)
        {
            readHead();
            return;
        }
        build();
    }

    /**
     * Applies all queued requests to the cached record, in place; publishes it if it changed. Until
     * the CAS succeeds the cache holds a state nobody published, so every way a publish can fail
     * forgets it ({@code cacheValid = false}) and the next transition reads the chain again; while
     * the write and the CAS are outstanding nothing reads it.
     */
    private void build()
    {
        assert cacheValid && state() == State.IDLE;
        final AcceptorRecord next = cached;
        next.beginTransition(learner.durableFloor());
        flightAccepts = acceptCount;
        for (int i = 0; i < flightAccepts; i++)
        {
            final Message.Accept a = accepts[i];
            if (config.has(Flaw.RECLAIM_EARLY))
            {
                next.raiseFloor(a.firstSlot);
            }
            outcomes[i] = (byte)AcceptorTransition.accept(next, a.ballot, a.firstSlot, a.values,
                config.has(Flaw.ACCEPT_IGNORES_PROMISE)).ordinal();
        }
        if (pendingPrepare > flightPrepare)
        {
            flightPrepare = pendingPrepare;
        }
        pendingPrepare = Ballot.NONE;
        if (flightPrepare != Ballot.NONE)
        {
            AcceptorTransition.prepare(next, flightPrepare);
        }
        if (!next.changed())
        {
            // Nothing to publish: the cached record already says it all (facts about q never expire).
            retries = 0;
            resolveFlight(next);
            kick();
            return;
        }
        final long seq = RegionLayout.headSeq(cachedHead) + 1;
        next.seq(seq);
        next.prevHead(cachedHead);
        // A delta when the chain has room for one more link and the changes fit a delta slot and
        // take fewer words than the whole window; otherwise the whole record, which ends the chain.
        int deltaWords = 0;
        if (cachedHead != 0 && next.depth() < layout.chainDepth())
        {
            deltaWords = next.deltaWords();
            if (deltaWords > layout.deltaCapacityWords() || next.deltaHoldsEverything())
            {
                deltaWords = 0;
            }
        }
        final int recordIndex = freeSlot(deltaWords > 0);
        nextHead = RegionLayout.headWord(seq, lane, recordIndex);
        final long[] words;
        final int length;
        if (deltaWords > 0)
        {
            next.depth(next.depth() + 1);
            words = scratch.words(deltaWords);
            length = next.encodeDelta(words, 0);
            nextOwnChain = ownChain | 1 << recordIndex;
        }
        else
        {
            next.depth(0);
            // Room for the record's entries at full values: a bound known without a walk over them.
            words = scratch.words(AcceptorRecord.capacityWords(next.count(), config.valueWords()));
            length = next.encode(words, 0);
            nextOwnChain = 1 << recordIndex;
        }
        issue(State.WRITE_RECORD, MemoryOpKind.WRITE_BULK, layout.recordOffsetWords(lane, recordIndex), length,
            0, 0, words);
    }

    /**
     * A record slot of our lane that no reader can be following: not in the chain of the head we
     * know. Any later head's chain holds records of our lane only from that chain (only we write
     * here, and each of our publishes becomes the head we know), so while the head stays where a
     * reader found it, nothing it follows is rewritten (docs/protocol.md §3). A chain holds one
     * whole record and at most {@code chainDepth} deltas, and a delta is written only below that
     * depth, so a slot of either kind is always free.
     */
    private int freeSlot(final boolean delta)
    {
        final int from = delta ? RegionLayout.FULL_SLOTS : 0;
        final int to = delta ? layout.recordsPerLane() : RegionLayout.FULL_SLOTS;
        for (int i = from; i < to; i++)
        {
            if ((ownChain & 1 << i) == 0 || config.has(Flaw.REUSE_CHAIN_SLOT) && delta)
            {
                return i;
            }
        }
        throw new IllegalStateException("no free record slot in lane " + lane + " of acceptor " + acceptor +
            ": chain slots " + Integer.toBinaryString(ownChain));
    }

    void onCompletion(final long opId, final MemoryStatus status, final long value, final long[] data)
    {
        if (opId != expectedOpId)
        {
            return;
        }
        expectedOpId = -1;
        final State was = state();
        state = (byte)State.IDLE.ordinal();
        if (!active)
        {
            return;
        }
        switch (was)
        {
            case READ_HEAD:
                onHead(status, value);
                break;
            case READ_INCARNATION:
                onIncarnation(status, value);
                break;
            case READ_RECORD:
                onRecord(status, data);
                break;
            case VALIDATE_HEAD:
                onValidated(status, value);
                break;
            case WRITE_RECORD:
                onRecordWritten(status);
                break;
            case PUBLISH_HEAD:
                onPublished(status, value);
                break;
            default:
                throw new IllegalStateException("completion in state " + was);
        }
    }

    private void onHead(final MemoryStatus status, final long head)
    {
        if (status != MemoryStatus.OK)
        {
            retry();
            return;
        }
        if (publishAmbiguous && head == nextHead)
        {
            published();
            return;
        }
        publishAmbiguous = false;
        useHead(head);
    }

    private void useHead(final long head)
    {
        cachedHead = head;
        reading = head;
        chainRead = 0;
        ownChain = 0;
        if (head == 0)
        {
            // The initial state, or a region that came back empty after a loss: the header says.
            issue(State.READ_INCARNATION, MemoryOpKind.READ, RegionLayout.INCARNATION_WORD, 1, 0, 0, null);
            return;
        }
        readRecord();
    }

    /** Reads the record {@link #reading} names, {@link #recordReadWords} of it (at most its slot). */
    private void readRecord()
    {
        final int index = RegionLayout.headIndex(reading);
        if (RegionLayout.headLane(reading) >= layout.laneCount() || index >= layout.recordsPerLane())
        {
            retry(); // a torn word names no record slot: the head has moved on
            return;
        }
        issue(State.READ_RECORD, MemoryOpKind.READ_BULK, layout.recordOffsetWords(RegionLayout.headLane(reading), index),
            Math.min(recordReadWords, layout.recordSlotWords(index)), 0, 0, null);
    }

    private void onIncarnation(final MemoryStatus status, final long incarnation)
    {
        if (status != MemoryStatus.OK)
        {
            retry();
            return;
        }
        if (RegionLayout.amnesiac(incarnation, cachedHead) && !config.has(Flaw.AMNESIAC_REJOINS))
        {
            // Amnesia rule: it may have promised anything before the loss. Answering now (a
            // Promise, an Accepted or a Nack) could break a promise it no longer remembers, so it
            // stays out of every quorum; only a configuration change could let it back in.
            amnesiac = true;
            cacheValid = false;
            dropAll();
            return;
        }
        cached.clear();
        cacheValid = true;
        kick();
    }

    private void onRecord(final MemoryStatus status, final long[] data)
    {
        final int capacity = layout.recordSlotWords(RegionLayout.headIndex(reading));
        if (status == MemoryStatus.OK && data.length < capacity && data[AcceptorRecord.LENGTH] > data.length &&
            data[AcceptorRecord.LENGTH] <= capacity)
        {
            // The record is longer than the read (or a torn read says so): read it again, whole.
            // recordReadWords grows every time, so this ends at the capacity at the latest.
            recordReadWords = (int)Math.min(capacity, Math.max(data[AcceptorRecord.LENGTH], 2L * recordReadWords));
            readRecord();
            return;
        }
        if (status == MemoryStatus.OK && data.length > AcceptorRecord.DEPTH && data[AcceptorRecord.DEPTH] > 0)
        {
            // A delta: keep it and read the record it builds on, one link deeper, down to a whole one.
            final long depth = data[AcceptorRecord.DEPTH];
            if (depth > layout.chainDepth() || chainRead > 0 && depth != chainDepthRead() - 1 ||
                data[AcceptorRecord.SEQ] != RegionLayout.headSeq(reading) ||
                data[AcceptorRecord.PREV] == 0)
            {
                retry(); // torn or reused since we read the head
                return;
            }
            keepDelta(data);
            reading = data[AcceptorRecord.PREV];
            readRecord();
            return;
        }
        if (status != MemoryStatus.OK || !cached.decode(data, 0, data.length, RegionLayout.headSeq(reading)) ||
            !applyChain())
        {
            // Torn or reused since we read the head: the head has moved on; start over.
            retry();
            return;
        }
        if (config.has(Flaw.TRUST_TORN_READ))
        {
            // BROKEN (test-only): the two checked words do not prove the record was read whole.
            cacheValid = true;
            kick();
            return;
        }
        // The copy may interleave with a rewrite of the record slot (multi-word reads are not
        // atomic). The slot is rewritten only after the head moved away from it, and head values
        // never repeat: if the head still equals cachedHead, the record was the head for the whole
        // copy, so what we decoded is exactly the published state.
        issue(State.VALIDATE_HEAD, MemoryOpKind.READ, RegionLayout.HEAD_WORD, 1, 0, 0, null);
    }

    /** The depth of the last delta kept. */
    private int chainDepthRead()
    {
        return (int)chainWords[chainRead - 1][AcceptorRecord.DEPTH];
    }

    private void keepDelta(final long[] data)
    {
        if (chainWords == null)
        {
            chainWords = new long[layout.chainDepth()][];
        }
        final int length = (int)Math.min(data.length, Math.max(0, data[AcceptorRecord.LENGTH]));
        if (chainWords[chainRead] == null || chainWords[chainRead].length < data.length)
        {
            chainWords[chainRead] = new long[data.length];
        }
        System.arraycopy(data, 0, chainWords[chainRead], 0, length);
        java.util.Arrays.fill(chainWords[chainRead], length, chainWords[chainRead].length, 0);
        if (RegionLayout.headLane(reading) == lane)
        {
            ownChain |= 1 << RegionLayout.headIndex(reading);
        }
        chainRead++;
    }

    /** Applies the deltas kept, oldest first, to the whole record just decoded; false if one is torn. */
    private boolean applyChain()
    {
        if (RegionLayout.headLane(reading) == lane)
        {
            ownChain |= 1 << RegionLayout.headIndex(reading);
        }
        for (int k = chainRead - 1; k >= 0; k--)
        {
            final long[] words = chainWords[k];
            if (!cached.applyDelta(words, 0, words.length, words[AcceptorRecord.SEQ]))
            {
                return false;
            }
        }
        chainRead = 0;
        return cached.seq() == RegionLayout.headSeq(cachedHead);
    }

    private void onValidated(final MemoryStatus status, final long head)
    {
        if (status != MemoryStatus.OK)
        {
            retry();
            return;
        }
        if (head != cachedHead)
        {
            cached.clear();
            if (++retries > config.maxTransitionRetries())
            {
                giveUp();
                return;
            }
            useHead(head);
            return;
        }
        cacheValid = true;
        kick();
    }

    private void onRecordWritten(final MemoryStatus status)
    {
        if (status != MemoryStatus.OK)
        {
            retry();
            return;
        }
        if (config.has(Flaw.TWO_WRITE_TRANSITION))
        {
            // BROKEN (test-only): publishes with a plain write, losing concurrent transitions.
            issue(State.PUBLISH_HEAD, MemoryOpKind.WRITE, RegionLayout.HEAD_WORD, 1, 0, nextHead, null);
            return;
        }
        issue(State.PUBLISH_HEAD, MemoryOpKind.CAS, RegionLayout.HEAD_WORD, 1, cachedHead, nextHead, null);
    }

    private void onPublished(final MemoryStatus status, final long previous)
    {
        if (config.has(Flaw.TWO_WRITE_TRANSITION))
        {
            if (status == MemoryStatus.OK)
            {
                published();
            }
            else
            {
                retry();
            }
            return;
        }
        if (status == MemoryStatus.TIMEOUT)
        {
            // Ambiguous: the CAS may have landed. Reading the head tells.
            publishAmbiguous = true;
            retry();
            return;
        }
        if (status != MemoryStatus.OK)
        {
            retry();
            return;
        }
        if (previous == cachedHead)
        {
            published();
            return;
        }
        casFailures++;
        // The head only moves forwards, unless the region was lost and formatted again (head 0).
        assert RegionLayout.headSeq(previous) > RegionLayout.headSeq(cachedHead) || previous == 0 :
            "head sequence went backwards";
        if (++retries > config.maxTransitionRetries())
        {
            giveUp();
            return;
        }
        cacheValid = false;
        useHead(previous);
    }

    private void published()
    {
        publishAmbiguous = false;
        transitions++;
        retries = 0;
        cachedHead = nextHead;
        ownChain = nextOwnChain;
        cacheValid = true; // build changed the cache in place: it now holds what the CAS published
        resolveFlight(cached);
        kick();
    }

    private void retry()
    {
        cacheValid = false;
        if (++retries > config.maxTransitionRetries())
        {
            giveUp();
            return;
        }
        readHead();
    }

    private void giveUp()
    {
        retries = 0;
        publishAmbiguous = false;
        cacheValid = false;
        dropAll();
    }

    private State state()
    {
        return State.ALL[state];
    }

    private void readHead()
    {
        issue(State.READ_HEAD, MemoryOpKind.READ, RegionLayout.HEAD_WORD, 1, 0, 0, null);
    }

    private void issue(final State newState, final MemoryOpKind kind, final int offsetWords, final int lengthWords,
        final long expected, final long value, final long[] payload)
    {
        assert state() == State.IDLE && expectedOpId == -1 : "one operation outstanding per driver";
        state = (byte)newState.ordinal();
        expectedOpId = OpIds.make(OpIds.DRIVER, index, ++opSeq);
        effects.memory(expectedOpId, kind, acceptor, offsetWords, lengthWords, expected, value, payload);
    }

    /** Reports the outcome of the requests taken into the transition that {@code record} reflects. */
    private void resolveFlight(final AcceptorRecord record)
    {
        final long prepare = flightPrepare;
        flightPrepare = Ballot.NONE;
        if (prepare != Ballot.NONE)
        {
            if (record.promised() == prepare)
            {
                replies.promised(acceptor, prepare, record);
            }
            else
            {
                replies.refused(acceptor, prepare, record.promised());
            }
        }
        final int n = flightAccepts;
        flightAccepts = 0;
        for (int i = 0; i < n; i++)
        {
            final Message.Accept a = accepts[i];
            // ACCEPTED stays true even if a higher-ballot Accept of the same transition replaced the
            // entry: the transition is that sequence of accepts, applied atomically.
            final AcceptorTransition.AcceptOutcome outcome = AcceptorTransition.AcceptOutcome.ALL[outcomes[i]];
            if (outcome == AcceptorTransition.AcceptOutcome.REFUSED_BALLOT)
            {
                replies.refused(acceptor, a.ballot, record.promised());
            }
            replies.acceptResolved(acceptor, a, outcome, record.floor());
            accepts[i] = null;
        }
        System.arraycopy(accepts, n, accepts, 0, acceptCount - n);
        for (int i = acceptCount - n; i < acceptCount; i++)
        {
            accepts[i] = null;
        }
        acceptCount -= n;
    }

    private void dropAll()
    {
        pendingPrepare = Ballot.NONE;
        flightPrepare = Ballot.NONE;
        final int n = acceptCount;
        acceptCount = 0;
        flightAccepts = 0;
        for (int i = 0; i < n; i++)
        {
            final Message.Accept a = accepts[i];
            accepts[i] = null;
            replies.acceptResolved(acceptor, a, null, 0);
        }
    }

    @Override
    public String toString()
    {
        return "AcceptorDriver{p" + self + " for q" + acceptor + " lane " + lane + " " + state() + "}";
    }
}
