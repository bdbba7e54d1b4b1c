package io.mmx.runtime.core;

import io.mmx.planner.graph.Graph;

/**
 * Learns decided slots (from Commit messages, the leader's own quorums, and decided logs read
 * from regions), applies them in slot order, and makes them durable in the process's own region's
 * decided log. The durable prefix is the floor executors may give acceptor records: every
 * reclaimed slot stays readable in some region's decided log.
 *
 * <p>The decided log is written in runs of up to {@code logRunSlots} slots, each followed by a write
 * of {@code DECIDED_THROUGH}: a run starts once the applied prefix reaches this process's next run
 * boundary (every {@code logRunSlots} slots, staggered across processes) or once slots applied
 * before the previous tick are still unlogged, not after every slot applied (docs/protocol.md §7).
 *
 * <p>Bounded: a ring of {@code learnerCapacity} decided slots; one decided-log write and one
 * catch-up read outstanding.
 *
 * <p>A slot the ring holds keeps its value where it came: a slot learned with a run (a Commit's
 * group) names the run in a small table of runs, so the run's value array is stored once, not
 * once per slot, and the effects and checkers see the Commit's own array. At n = 4096 every
 * learner holds every slot: references stored into a long-lived ring cost the collector's write
 * barrier a card to refine per learner per Commit. A slot learned alone (a decided-log read)
 * keeps its own reference.
 */
final class Learner
{
    /** Runs the table holds: the ring spans about capacity / maxSlotsPerAccept of them while the log keeps up. */
    private static final int RUNS = 64;
    private static final byte OWN = -1;

    private final int self;
    private final CoreConfig config;
    private final RegionLayout layout;
    private final Effects effects;
    private final Graph graph;
    private final int mask;
    private final long[] ringSlot;
    /** The run in {@link #runValues} holding ring entry i's value, or {@link #OWN}: {@code ringOwn[i]}. */
    private final byte[] ringRun;
    /** Values of entries learned alone; made at the first such entry. */
    private long[][] ringOwn;
    /** The runs ring entries point into: run r's values, the slot of its first value, and how many entries name it. */
    private long[][][] runValues = new long[RUNS][][];
    private final long[] runFirst = new long[RUNS];
    private final int[] runEntries = new int[RUNS];
    /** The table entry the next run takes (the oldest run). */
    private int nextRun;
    /** Where a run of entries is laid out for its write: shared with the core's other payloads. */
    private final PayloadScratch scratch;
    /** {@code logRunSlots}: the most entries written past DECIDED_THROUGH, and the run length. */
    private final int logRun;
    /** Where this process's runs end: slots b with (b + 1 + runPhase) mod logRun = 0. */
    private final int runPhase;

    private long appliedThrough = -1;
    private long highestKnownDecided = -1;
    private long durableThrough = -1;
    /** Highest durable prefix another process reported (Accept messages): decided, and logged there. */
    private long reportedDurableThrough = -1;

    private long logOpId = -1;
    /** What the decided-log op in flight does. */
    private byte logStep = LogStep.ENTRIES;
    private long loggingThrough;
    /** The value DECIDED_THROUGH holds in our region (written and confirmed). */
    private long markedThrough = -1;
    /**
     * Entries of slots (markedThrough, wholeThrough] were written whole (or cleared) by this
     * incarnation. Past DECIDED_THROUGH an entry may be torn (a crash or a timed-out write in the
     * middle of it), with echo words that already match its slot.
     */
    private long wholeThrough = -1;
    /** DECIDED_THROUGH when this incarnation started: the log reload trusts nothing past it. */
    private long recoveredThrough = -1;
    private long opSeq;
    /** Slots through this are owed to the log now (they waited a tick, or their write failed). */
    private long flushThrough = -1;
    /** The applied prefix at the previous tick. */
    private long appliedAtLastTick = -1;

    private long catchupOpId = -1;
    private long reloadOpId = -1;
    private long catchupFrom;
    private int catchupRegionCursor;
    private long lastProgressTick;
    private long lastCatchupTick = Long.MIN_VALUE / 2;
    private long catchupRequests;
    private long skippedSlots;

    Learner(final int self, final CoreConfig config, final Effects effects)
    {
        this(self, config, effects, new PayloadScratch());
    }

    Learner(final int self, final CoreConfig config, final Effects effects, final PayloadScratch scratch)
    {
        this.self = self;
        this.config = config;
        this.layout = config.layout();
        this.effects = effects;
        this.graph = config.graph();
        this.mask = config.learnerCapacity() - 1;
        this.ringSlot = new long[config.learnerCapacity()];
        java.util.Arrays.fill(ringSlot, -1L);
        this.ringRun = new byte[config.learnerCapacity()];
        java.util.Arrays.fill(ringRun, OWN);
        this.logRun = config.logRunSlots();
        // Staggered so that, of the processes whose durable prefixes the leader relays (§7), some
        // have always just ended a run: floors follow the decided prefix, not the last boundary.
        this.runPhase = (int)((long)self * logRun / Math.max(1, config.n()));
        this.scratch = scratch;
    }

    /** After a restart: the region's decided log says slots through {@code decidedThrough} were applied. */
    void recover(final long decidedThrough)
    {
        appliedThrough = decidedThrough;
        durableThrough = decidedThrough;
        markedThrough = decidedThrough;
        wholeThrough = decidedThrough;
        recoveredThrough = decidedThrough;
        highestKnownDecided = Math.max(highestKnownDecided, decidedThrough);
    }

    /**
     * After a restart the in-memory ring is empty: reload it from our own decided log so this
     * process can serve catch-up requests for the slots it had applied.
     */
    void reloadLog()
    {
        if (recoveredThrough < 0)
        {
            return; // nothing was applied: no entry of the log could be trusted (onReload)
        }
        reloadOpId = OpIds.make(OpIds.LOG_RELOAD, 0, ++opSeq);
        effects.memory(reloadOpId, MemoryOpKind.READ_BULK, self, layout.decidedEntryOffsetWords(0),
            layout.decidedCapacity() * layout.decidedEntryWords(), 0, 0, null);
    }

    void onReload(final long opId, final MemoryStatus status, final long[] data)
    {
        if (opId != reloadOpId || status != MemoryStatus.OK || data == null)
        {
            return;
        }
        reloadOpId = -1;
        final int entryWords = layout.decidedEntryWords();
        for (int w = 0; w + entryWords <= data.length; w += entryWords)
        {
            final long slot = data[w] - 1;
            final long len = data[w + 1];
            // Our own log writes since the restart may have rewritten an entry while this read copied
            // it (the echo words can both be old): they reach at most logRunSlots past durableThrough,
            // so an entry whose ring position they could have reached is not trusted (seed 108986 of
            // an earlier build: an agreement violation from a torn reload).
            // Past the prefix we recovered, an entry may be torn by the crash that ended the last
            // incarnation; a skip may have moved appliedThrough past it meanwhile.
            if (slot < 0 || data[w + entryWords - 1] != data[w] || len < 0 || len > layout.maxValueWords() ||
                slot > recoveredThrough || slot <= appliedThrough - ringSlot.length ||
                slot + layout.decidedCapacity() <= durableThrough + logRun)
            {
                continue;
            }
            final int i = (int)(slot & mask);
            if (ringSlot[i] < slot)
            {
                holdOwn(i, slot, java.util.Arrays.copyOfRange(data, w + 2, w + 2 + (int)len));
            }
        }
    }

    long appliedThrough()
    {
        return appliedThrough;
    }

    long highestKnownDecided()
    {
        return highestKnownDecided;
    }

    /**
     * The prefix our region's DECIDED_THROUGH holds (written and confirmed): what we report as
     * durable, so floors never pass it. Entries written beyond it are not trusted by readers or
     * by our own restart, so reporting them lets a crash between the entry write and the mark
     * reclaim slots nobody can read back (seed 101840 of an earlier build: a one-process cluster
     * stuck for ever).
     */
    long durableThrough()
    {
        return markedThrough;
    }

    long catchupRequests()
    {
        return catchupRequests;
    }

    /**
     * Slots below this are decided and written to the decided logs of at least
     * {@code reclaimReplicas} regions, as the leader reported: acceptor entries below it may be
     * reclaimed. Our own log alone is not enough: its host may be lost.
     */
    long durableFloor()
    {
        return reportedDurableThrough + 1;
    }

    /** A leader reported a replicated durable decided prefix (or a floor implies one). */
    void reportedDurable(final long through)
    {
        if (through > reportedDurableThrough)
        {
            reportedDurableThrough = through;
        }
        hint(through);
    }

    /** The decided value of {@code slot} if this learner still holds it, else null. */
    long[] decidedValue(final long slot)
    {
        if (slot < 0)
        {
            return null;
        }
        final int i = (int)(slot & mask);
        return ringSlot[i] == slot ? heldValue(i) : null;
    }

    /** The value of the slot ring entry {@code i} holds. */
    private long[] heldValue(final int i)
    {
        final int r = ringRun[i];
        return r == OWN ? ringOwn[i] : runValues[r][(int)(ringSlot[i] - runFirst[r])];
    }

    /** Ring entry {@code i} forgets its slot's value (it is about to hold another slot, or its run's values move). */
    private void release(final int i)
    {
        final int r = ringRun[i];
        if (r != OWN)
        {
            runEntries[r]--;
        }
        else if (ringOwn != null)
        {
            ringOwn[i] = null;
        }
    }

    /** Ring entry {@code i} holds {@code slot} with its own reference to {@code value}. */
    private void holdOwn(final int i, final long slot, final long[] value)
    {
        release(i);
        if (ringOwn == null)
        {
            ringOwn = new long[ringSlot.length][];
        }
        ringSlot[i] = slot;
        ringRun[i] = OWN;
        ringOwn[i] = value;
    }

    /**
     * Takes the oldest run's table entry for a run of {@code values} from {@code first}. Ring
     * entries that still name the old run (a learner far behind, or one fed many short runs) get
     * their own references first.
     */
    private int addRun(final long first, final long[][] values)
    {
        final int r = nextRun;
        nextRun = (r + 1) % RUNS;
        if (nextRun == 0)
        {
            // A new table each time round: young, so storing a run into it costs the collector no
            // card to refine (docs/protocol.md §12). 64 references per 64 runs.
            runValues = runValues.clone();
        }
        final long[][] old = runValues[r];
        for (int k = 0; old != null && runEntries[r] > 0 && k < old.length; k++)
        {
            final long s = runFirst[r] + k;
            final int i = (int)(s & mask);
            if (ringSlot[i] == s && ringRun[i] == r)
            {
                holdOwn(i, s, old[k]);
            }
        }
        assert runEntries[r] == 0 : "a run left the table with entries naming it";
        runValues[r] = values;
        runFirst[r] = first;
        return r;
    }

    boolean isDecided(final long slot)
    {
        return slot <= appliedThrough || decidedValue(slot) != null;
    }

    void hint(final long decidedSlot)
    {
        if (decidedSlot > highestKnownDecided)
        {
            highestKnownDecided = decidedSlot;
        }
    }

    void onDecided(final long slot, final long[] value, final long nowTicks)
    {
        if (hold(slot, value))
        {
            applyHeld(nowTicks);
        }
    }

    /**
     * A run of decided slots from {@code firstSlot}: held first, then applied and logged once, so a
     * Commit of a whole group makes one pass and one log write instead of one per slot.
     */
    void onDecided(final long firstSlot, final long[][] values, final long nowTicks)
    {
        effects.learnedRun(firstSlot, values);
        hint(firstSlot + values.length - 1);
        int run = -1;
        for (int k = 0; k < values.length; k++)
        {
            final long slot = firstSlot + k;
            if (holds(slot))
            {
                if (run < 0)
                {
                    run = addRun(firstSlot, values);
                }
                final int i = (int)(slot & mask);
                release(i);
                ringSlot[i] = slot;
                ringRun[i] = (byte)run;
                runEntries[run]++;
            }
        }
        if (run >= 0)
        {
            applyHeld(nowTicks);
        }
    }

    /** Keeps a decided slot until it is applied; false if it was applied or held already, or lies past the ring. */
    private boolean hold(final long slot, final long[] value)
    {
        effects.learned(slot, value);
        hint(slot);
        if (!holds(slot))
        {
            return false;
        }
        holdOwn((int)(slot & mask), slot, value);
        return true;
    }

    /** Whether a newly decided {@code slot} goes into the ring: not applied, within it, and not held already. */
    private boolean holds(final long slot)
    {
        // Bounded by the durable prefix, not the applied one: an applied slot must stay in the
        // ring until it is in the region's decided log. Already held: a different value would be
        // an agreement violation, and the simulator's checker owns that verdict (it sees every
        // process's applied log).
        return slot > appliedThrough && slot <= durableThrough + ringSlot.length && ringSlot[(int)(slot & mask)] != slot;
    }

    /** Applies every held slot that continues the applied prefix, then logs them. */
    private void applyHeld(final long nowTicks)
    {
        while (true)
        {
            // The held slots that continue the prefix, up to the ring's end: one run for the effects.
            final long first = appliedThrough + 1;
            final int j = (int)(first & mask);
            int count = 0;
            while (j + count < ringSlot.length && ringSlot[j + count] == first + count)
            {
                count++;
            }
            if (count == 0)
            {
                break;
            }
            appliedThrough = first + count - 1;
            lastProgressTick = nowTicks;
            applyRun(first, j, count);
            if (j + count < ringSlot.length)
            {
                break; // a slot not held yet; else the run goes on at the ring's start
            }
        }
        writeLog();
    }

    /** Tells the effects of the ring's {@code count} entries from {@code j}, slots from {@code first}: one call per run they name. */
    private void applyRun(final long first, final int j, final int count)
    {
        int k = 0;
        while (k < count)
        {
            final int r = ringRun[j + k];
            int length = 1;
            while (k + length < count && ringRun[j + k + length] == r)
            {
                length++;
            }
            if (r == OWN)
            {
                effects.decidedRun(first + k, ringOwn, j + k, length);
            }
            else
            {
                effects.decidedRun(first + k, runValues[r], (int)(first + k - runFirst[r]), length);
            }
            k += length;
        }
    }

    /** Appends applied slots to the region's decided log, then publishes the new prefix. */
    private void writeLog()
    {
        if (logOpId != -1 || durableThrough >= appliedThrough && markedThrough >= durableThrough)
        {
            return;
        }
        if (markedThrough < durableThrough)
        {
            // A run of entries starts only right after the published prefix (a skip may have moved
            // durableThrough on): readers rely on "entries being written are at most logRunSlots
            // past DECIDED_THROUGH" to tell a torn entry (onCatchupCompletion).
            final long tornThrough = Math.min(durableThrough, markedThrough + logRun);
            final long clearFrom = Math.max(wholeThrough, markedThrough) + 1;
            if (clearFrom <= tornThrough)
            {
                clearEntries(clearFrom, tornThrough);
                return;
            }
            markDurable();
            return;
        }
        if (appliedThrough < runEnd(durableThrough) && durableThrough >= flushThrough)
        {
            return; // not a run's worth yet, and nothing waited a tick: fewer, longer writes
        }
        final long from = durableThrough + 1;
        final int count = (int)Math.min(Math.min(appliedThrough - durableThrough, layout.decidedEntriesBeforeWrap(from)),
            logRun);
        final int entryWords = layout.decidedEntryWords();
        final long[] logScratch = scratch.words(count * entryWords);
        for (int k = 0; k < count; k++)
        {
            final long slot = from + k;
            // Applied and not yet logged, so still in the ring (holds bounds it by the durable prefix).
            final long[] value = decidedValue(slot);
            assert value != null : "applied slot " + slot + " left the learner ring before it was logged";
            final int w = k * entryWords;
            logScratch[w] = slot + 1; // +1: a never-written (zero) entry must not read as slot 0
            logScratch[w + 1] = value.length;
            System.arraycopy(value, 0, logScratch, w + 2, value.length);
            for (int pad = w + 2 + value.length; pad < w + entryWords - 1; pad++)
            {
                logScratch[pad] = 0L; // a batch shorter than maxBatch: no words of an earlier entry
            }
            logScratch[w + entryWords - 1] = slot + 1;
        }
        loggingThrough = from + count - 1;
        logStep = LogStep.ENTRIES;
        logOpId = OpIds.make(OpIds.DECIDED_LOG, 0, ++opSeq);
        effects.memory(logOpId, MemoryOpKind.WRITE_BULK, self, layout.decidedEntryOffsetWords(from),
            count * entryWords, 0, 0, logScratch);
    }

    /** The end of this process's first run after {@code durable}: the first b > durable with (b + 1 + runPhase) mod logRun = 0. */
    private long runEnd(final long durable)
    {
        final long b = durable + 1;
        return b + Math.floorMod(-(b + 1 + runPhase), (long)logRun);
    }

    private long markingThrough;

    /**
     * The steps of writing the decided log: entries, cleared entries, the DECIDED_THROUGH mark.
     * Bytes, not an enum: no reference stored at every log write (docs/protocol.md §12).
     */
    private static final class LogStep
    {
        static final byte ENTRIES = 0;
        static final byte CLEAR = 1;
        static final byte MARK = 2;

        private LogStep()
        {
        }
    }

    /**
     * A skip moves DECIDED_THROUGH past slots whose entries this incarnation never wrote, and the
     * first {@code logRunSlots} of them may hold an entry torn by a crash or a timed-out write,
     * echo words matching its slot: once the mark passes it, readers would trust it (seed 887: an
     * agreement violation, slot 908 read with one word of the value 256 slots earlier). Zero those
     * entries first; the fence lands any overdue write of ours before this one.
     */
    private void clearEntries(final long from, final long through)
    {
        final int count = (int)Math.min(through - from + 1, layout.decidedEntriesBeforeWrap(from));
        final long[] logScratch = scratch.words(count * layout.decidedEntryWords());
        java.util.Arrays.fill(logScratch, 0, count * layout.decidedEntryWords(), 0L);
        loggingThrough = from + count - 1;
        logStep = LogStep.CLEAR;
        logOpId = OpIds.make(OpIds.DECIDED_LOG, 0, ++opSeq);
        effects.memory(logOpId, MemoryOpKind.WRITE_BULK, self, layout.decidedEntryOffsetWords(from),
            count * layout.decidedEntryWords(), 0, 0, logScratch);
    }

    private void markDurable()
    {
        logStep = LogStep.MARK;
        markingThrough = durableThrough;
        logOpId = OpIds.make(OpIds.DECIDED_LOG, 0, ++opSeq);
        effects.memory(logOpId, MemoryOpKind.WRITE, self, RegionLayout.DECIDED_THROUGH_WORD, 1, 0, durableThrough, null);
    }

    void onLogCompletion(final long opId, final MemoryStatus status)
    {
        if (opId != logOpId)
        {
            return;
        }
        logOpId = -1;
        if (status != MemoryStatus.OK)
        {
            if (logStep == LogStep.ENTRIES)
            {
                flushThrough = Math.max(flushThrough, loggingThrough); // owed now: write it again at once
            }
            writeLog();
            return;
        }
        if (logStep == LogStep.ENTRIES)
        {
            wholeThrough = loggingThrough;
            durableThrough = Math.max(durableThrough, loggingThrough); // a skip may have moved it on
        }
        else if (logStep == LogStep.CLEAR)
        {
            wholeThrough = loggingThrough;
        }
        else
        {
            markedThrough = Math.max(markedThrough, markingThrough);
        }
        writeLog();
    }

    /**
     * Behind the known decided prefix for a while: ask {@code askProcess} by message and read the
     * decided log of one region of N[self] (round robin), one read outstanding.
     */
    void onTick(final long nowTicks, final int askProcess)
    {
        // Slots applied before the previous tick and still unlogged are written now: a run waits
        // for its boundary at most one tick, so an idle cluster's tail is logged too.
        if (durableThrough < appliedAtLastTick)
        {
            flushThrough = Math.max(flushThrough, appliedAtLastTick);
            writeLog();
        }
        appliedAtLastTick = appliedThrough;
        if (highestKnownDecided <= appliedThrough)
        {
            lastProgressTick = nowTicks;
            return;
        }
        if (nowTicks - lastProgressTick < config.catchupTicks() || nowTicks - lastCatchupTick < config.catchupTicks())
        {
            return;
        }
        if (appliedThrough + 1 < durableFloor() &&
            nowTicks - lastProgressTick >= (long)belowFloorStallPeriods() * config.catchupTicks())
        {
            skipBelowFloor(nowTicks);
            return;
        }
        lastCatchupTick = nowTicks;
        final long from = appliedThrough + 1;
        final int count = (int)Math.min(highestKnownDecided - appliedThrough, config.catchupBatch());
        if (askProcess >= 0 && askProcess != self)
        {
            catchupRequests++;
            effects.send(askProcess, new Message.CatchupRequest(self, from, count));
        }
        if (catchupOpId == -1)
        {
            final int degree = graph.degree(self);
            final int cursor = catchupRegionCursor++ % (degree + 1);
            catchupRegion = cursor == 0 ? self : graph.neighbour(self, cursor - 1);
            catchupFrom = from;
            catchupCount = Math.min(count, layout.decidedEntriesBeforeWrap(from));
            catchupStep = 0;
            catchupOpId = OpIds.make(OpIds.CATCHUP_READ, 0, ++opSeq);
            effects.memory(catchupOpId, MemoryOpKind.READ, catchupRegion, RegionLayout.DECIDED_THROUGH_WORD, 1, 0, 0, null);
        }
    }

    private int catchupRegion;
    private int catchupCount;
    /** 0: reading DECIDED_THROUGH before the entries, 1: reading the entries, 2: DECIDED_THROUGH after. */
    private int catchupStep;
    private long catchupMarkedBefore;
    private long[] catchupData;

    /**
     * A decided-log read is three reads: DECIDED_THROUGH (d1), the entries, DECIDED_THROUGH again
     * (d2). Multi-word reads may interleave with the owner's writes, so an entry is used only when
     * it was whole before the read (slot &lt;= d1) and its ring position could not have been
     * rewritten during it (the owner writes entries at most logRunSlots past DECIDED_THROUGH, so
     * slot + capacity &gt; d2 + logRunSlots).
     */
    void onCatchupCompletion(final long opId, final MemoryStatus status, final long value, final long[] data,
        final long nowTicks)
    {
        if (opId != catchupOpId)
        {
            return;
        }
        catchupOpId = -1;
        if (status != MemoryStatus.OK)
        {
            return;
        }
        if (catchupStep == 0)
        {
            catchupMarkedBefore = value;
            final long newest = config.has(Flaw.TRUST_TORN_LOG_READ) ? catchupFrom + catchupCount - 1 :
                Math.min(catchupFrom + catchupCount - 1, value);
            final long unusableThrough = value - layout.decidedCapacity() +
                (config.has(Flaw.TRUST_TORN_LOG_READ) ? 0 : logRun);
            if (catchupFrom == appliedThrough + 1 && unusableThrough >= catchupFrom)
            {
                // The ring moved past the slot we need: everything up to (d1 - capacity) has been
                // overwritten in this log, and the next logRunSlots entries may be being
                // overwritten (the check below would refuse them for ever: a wedge when the owner
                // is down and no other log holds them).
                final long skipTo = unusableThrough;
                if (skipTo > appliedThrough && skipTo <= highestKnownDecided)
                {
                    skip(skipTo, nowTicks);
                }
                return;
            }
            if (newest < catchupFrom)
            {
                return; // this log does not hold the slots yet
            }
            catchupCount = (int)(newest - catchupFrom + 1);
            catchupStep = 1;
            catchupOpId = OpIds.make(OpIds.CATCHUP_READ, 0, ++opSeq);
            effects.memory(catchupOpId, MemoryOpKind.READ_BULK, catchupRegion, layout.decidedEntryOffsetWords(catchupFrom),
                catchupCount * layout.decidedEntryWords(), 0, 0, null);
            return;
        }
        if (catchupStep == 1)
        {
            if (data == null)
            {
                return;
            }
            catchupData = data;
            catchupStep = 2;
            catchupOpId = OpIds.make(OpIds.CATCHUP_READ, 0, ++opSeq);
            effects.memory(catchupOpId, MemoryOpKind.READ, catchupRegion, RegionLayout.DECIDED_THROUGH_WORD, 1, 0, 0, null);
            return;
        }
        final long markedAfter = value;
        final long[] entries = catchupData;
        catchupData = null;
        final int entryWords = layout.decidedEntryWords();
        for (int w = 0, k = 0; w + entryWords <= entries.length; w += entryWords, k++)
        {
            final long slot = catchupFrom + k;
            final long len = entries[w + 1];
            final boolean checked = !config.has(Flaw.TRUST_TORN_LOG_READ);
            if (checked && (slot > catchupMarkedBefore || slot + layout.decidedCapacity() <= markedAfter +
                logRun) || entries[w] != slot + 1 || entries[w + entryWords - 1] != slot + 1 || len < 0 || len > layout.maxValueWords())
            {
                break;
            }
            onDecided(slot, java.util.Arrays.copyOfRange(entries, w + 2, w + 2 + (int)len), nowTicks);
        }
    }

    /** Behind the known decided prefix and no progress for {@link #stallTicks()}. */
    boolean stalled(final long nowTicks)
    {
        return highestKnownDecided > appliedThrough && nowTicks - lastProgressTick >= stallTicks();
    }

    /** 20 catch-up periods. */
    long stallTicks()
    {
        return 20L * config.catchupTicks();
    }

    /** The lowest slot above {@code slot}, through the applied prefix, whose value we hold; else applied + 1. */
    long oldestHeldAfter(final long slot)
    {
        for (long s = Math.max(slot + 1, appliedThrough - ringSlot.length + 1); s <= appliedThrough; s++)
        {
            if (ringSlot[(int)(s & mask)] == s)
            {
                return s;
            }
        }
        return appliedThrough + 1;
    }

    /**
     * A process that applied the slot we need no longer holds it. Slots below its {@code heldFrom}
     * are decided; when we have been stuck for a while (no decided log we read holds them either),
     * skip them: the application installs a snapshot. Without this a learner that every holder
     * has forgotten waits for ever, and (the leader's included) holds the floor down.
     */
    void onGone(final Message.Gone g, final long nowTicks)
    {
        hint(g.heldFrom - 1);
        if (g.fromSlot == appliedThrough + 1 && g.heldFrom - 1 > appliedThrough &&
            nowTicks - lastProgressTick >= 4L * config.catchupTicks())
        {
            skip(g.heldFrom - 1, nowTicks);
        }
    }

    /**
     * Catch-up periods without progress after which a learner gives up on slots below the floor:
     * every region of N[self] was read twice, and messages asked the leader and others as often.
     */
    private int belowFloorStallPeriods()
    {
        return Math.max(8, 2 * (graph.degree(self) + 1));
    }

    /**
     * The next slot we need is below the floor: it is decided (I5) and acceptors reclaimed it, so
     * no phase 1 can give it back, and no decided log or process we reach gave it to us. Its value
     * lives only in the decided logs of processes we cannot reach now (the floor rose while only
     * they had logged it, or their hosts were lost). Waiting wedges the log for as long as they
     * stay away, and the leader's learner with it (the leader re-ran phase 1 for ever: seed
     * 139808). So skip to the first slot we hold or the floor, whichever is lower, and mark the gap
     * ({@link Effects#skipped}): the application fills it by state transfer. Safety is untouched:
     * a skip applies nothing, and every slot skipped is decided.
     */
    private void skipBelowFloor(final long nowTicks)
    {
        long through = durableFloor() - 1;
        final long scanTo = Math.min(through, appliedThrough + ringSlot.length);
        for (long s = appliedThrough + 1; s <= scanTo; s++)
        {
            if (ringSlot[(int)(s & mask)] == s)
            {
                through = s - 1;
                break;
            }
        }
        if (through > appliedThrough)
        {
            skip(through, nowTicks);
        }
    }

    /** Gives up on slots through {@code through}: the application needs a snapshot of them. */
    private void skip(final long through, final long nowTicks)
    {
        final long from = appliedThrough + 1;
        skippedSlots += through - appliedThrough;
        appliedThrough = through;
        durableThrough = Math.max(durableThrough, through);
        lastProgressTick = nowTicks;
        effects.skipped(from, through);
        applyHeld(nowTicks); // continue with whatever is already held beyond the gap
    }

    long skippedSlots()
    {
        return skippedSlots;
    }

    /** Decided values from {@code fromSlot}, contiguous, at most {@code count}; null if none held. */
    long[][] decidedRun(final long fromSlot, final int count)
    {
        int n = 0;
        while (n < count && decidedValue(fromSlot + n) != null)
        {
            n++;
        }
        if (n == 0)
        {
            return null;
        }
        final long[][] values = new long[n][];
        for (int k = 0; k < n; k++)
        {
            values[k] = decidedValue(fromSlot + k);
        }
        return values;
    }
}
