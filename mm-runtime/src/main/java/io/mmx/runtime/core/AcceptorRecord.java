package io.mmx.runtime.core;

import java.util.Arrays;

/**
 * The state of one acceptor as held by the record chain its head points to: the promised ballot,
 * the floor (every slot below it is decided and durably logged, so its entry was dropped) and the
 * accepted (slot, ballot, value) entries of the slots at or above the floor.
 *
 * <p>A record is <em>whole</em> (depth 0: the complete state) or a <em>delta</em> (depth k &gt; 0:
 * the promise and floor of the new state, and only the entries its transition changed, to be
 * applied to the state of the record {@code prev} names, which has depth k - 1). A chain is read
 * from the head back to its whole record and applied oldest first ({@link #decode},
 * {@link #applyDelta}).
 *
 * <p>This object is a mutable, reusable decoder/encoder; the record in the region is never changed
 * once published. An executor's cached state is one of these, changed in place by each transition
 * ({@link #beginTransition}). Values are held as words, {@code maxBatch} per entry, not as arrays:
 * thousands of cached windows hold no references for the collector to track.
 *
 * <pre>
 * word 0       seq          the head sequence that publishes this record
 * word 1       length       words used, including the trailing echo
 * word 2       promised     promised ballot
 * word 3       floor        slots below are decided; no entries for them
 * word 4       count        number of entries
 * word 5       prev         the head word this record replaced (a delta's base)
 * word 6       depth        0: whole record; k &gt; 0: delta on top of prev, which has depth k - 1
 * entries      slot, ballot, valueLength, value[valueLength], sorted by slot; a whole record's
 *              are every entry at or above the floor, a delta's those its transition changed
 * word len-1   seq echo     equals word 0 when the record was read whole
 * </pre>
 */
public final class AcceptorRecord
{
    /** Word index of the head sequence, as in the table above. */
    public static final int SEQ = 0;
    /** Word index of the length, as in the table above. */
    public static final int LENGTH = 1;
    /** Word index of the promised ballot, as in the table above. */
    public static final int PROMISED = 2;
    /** Word index of the floor, as in the table above. */
    public static final int FLOOR = 3;
    /** Word index of the entry count, as in the table above. */
    public static final int COUNT = 4;
    /** Word index of the head word this record replaced, as in the table above. */
    public static final int PREV = 5;
    /** Word index of the chain depth, as in the table above. */
    public static final int DEPTH = 6;
    static final int ENTRIES = 7;
    /** Words of an entry before its value: slot, ballot, value length. */
    public static final int ENTRY_FIXED_WORDS = 3;

    private final int maxEntries;
    private final int maxBatch;
    private long seq;
    private long promised;
    private long floor;
    private long prevHead;
    private int depth;
    private int count;
    /** Slots put since beginTransition, a decode or a clear: the entries of a delta; may repeat. */
    private long[] touched = new long[INITIAL_ENTRIES];
    private int touchedCount;
    /** The entries of the delta {@link #deltaWords} prepared, by index, in slot order. */
    private int[] deltaIndex = new int[INITIAL_ENTRIES];
    private int deltaCount;
    /** Set when a transition changed promised, floor or entries: nothing to publish otherwise. */
    private boolean changed;
    private long[] slots;
    private long[] ballots;
    /** Entry i's value: words [i * maxBatch, i * maxBatch + lengths[i]). */
    private long[] words;
    private int[] lengths;

    /** An empty record of at most {@code maxEntries} entries of {@code maxBatch}-proposal values. */
    public AcceptorRecord(final int maxEntries, final int maxBatch)
    {
        this.maxEntries = maxEntries;
        this.maxBatch = maxBatch;
        // Grown to the entries held, up to maxEntries: a window is mostly far below its bound, and
        // every acceptor a host may run (its own and each neighbour's, at a takeover) keeps two records.
        final int initial = Math.min(maxEntries, INITIAL_ENTRIES);
        this.slots = new long[initial];
        this.ballots = new long[initial];
        this.words = new long[initial * maxBatch];
        this.lengths = new int[initial];
        clear();
    }

    /** Entries whose values a new record has room for before it grows. */
    private static final int INITIAL_ENTRIES = 4;

    /** Makes room for {@code entries} entries, keeping those held. */
    private void ensureEntries(final int entries)
    {
        if (entries > slots.length)
        {
            // Four times, not twice: an acceptor's window fills in a few transitions, and each
            // step of doubling copied and dropped the record so far (74 MB in an n = 4096 run).
            final int grown = Math.min(maxEntries, Math.max(entries, 4 * slots.length));
            slots = Arrays.copyOf(slots, grown);
            ballots = Arrays.copyOf(ballots, grown);
            lengths = Arrays.copyOf(lengths, grown);
            words = Arrays.copyOf(words, grown * maxBatch);
        }
    }

    /** Words a record needs at most. */
    public static int capacityWords(final int maxEntries, final int maxBatch)
    {
        return ENTRIES + maxEntries * (ENTRY_FIXED_WORDS + maxBatch) + 1;
    }

    /** The initial state (head word 0): nothing promised, nothing accepted. */
    public void clear()
    {
        seq = 0;
        promised = Ballot.NONE;
        floor = 0;
        prevHead = 0;
        depth = 0;
        count = 0;
        changed = false;
        touchedCount = 0;
    }

    /**
     * Starts a transition on this state, in place: forgets what the last one changed (a delta holds
     * only this one's changes) and raises the floor to {@code newFloor}.
     */
    void beginTransition(final long newFloor)
    {
        changed = false;
        touchedCount = 0;
        raiseFloor(newFloor);
    }

    /** The head sequence that published this record. */
    public long seq()
    {
        return seq;
    }

    void seq(final long seq)
    {
        this.seq = seq;
    }

    /** The promised ballot. */
    public long promised()
    {
        return promised;
    }

    void promised(final long ballot)
    {
        assert ballot >= promised : "promised ballot must never decrease";
        changed |= ballot != promised;
        promised = ballot;
    }

    /** True if a transition applied since beginTransition, a decode or a clear changed the state. */
    public boolean changed()
    {
        return changed;
    }

    /** The depth of the record that published this state: 0 whole, k a k-th delta above one. */
    public int depth()
    {
        return depth;
    }

    void depth(final int depth)
    {
        this.depth = depth;
    }

    /** Slots below this are decided and have no entries. */
    public long floor()
    {
        return floor;
    }

    /** The head word this record replaced (for audits). */
    public long prevHead()
    {
        return prevHead;
    }

    void prevHead(final long head)
    {
        prevHead = head;
    }

    /** Accepted entries held. */
    public int count()
    {
        return count;
    }

    /** Entries this record can hold. */
    public int maxEntries()
    {
        return maxEntries;
    }

    /** The slot of entry {@code i}. */
    public long slot(final int i)
    {
        return slots[i];
    }

    /** The ballot entry {@code i} was accepted at. */
    public long ballot(final int i)
    {
        return ballots[i];
    }

    /** The value of entry {@code i}: a new array, the caller's to keep. */
    public long[] value(final int i)
    {
        final int from = i * maxBatch;
        return Arrays.copyOfRange(words, from, from + lengths[i]);
    }

    private void setValue(final int i, final long[] src, final int from, final int length)
    {
        System.arraycopy(src, from, words, i * maxBatch, length);
        lengths[i] = length;
    }

    /** Index of the entry for {@code slot}, or -1. Entries are kept sorted by slot. */
    public int find(final long slot)
    {
        final int i = Arrays.binarySearch(slots, 0, count, slot);
        return i >= 0 ? i : -1;
    }

    /** Index of the first entry whose slot is at least {@code slot} ({@link #count()} if none). */
    public int indexAtOrAbove(final long slot)
    {
        final int i = Arrays.binarySearch(slots, 0, count, slot);
        return i >= 0 ? i : -i - 1;
    }

    /** Raises the floor and drops entries below it: reclamation of decided slots. */
    void raiseFloor(final long newFloor)
    {
        if (newFloor <= floor)
        {
            return;
        }
        floor = newFloor;
        changed = true;
        int drop = 0;
        while (drop < count && slots[drop] < newFloor)
        {
            drop++;
        }
        if (drop > 0)
        {
            System.arraycopy(slots, drop, slots, 0, count - drop);
            System.arraycopy(ballots, drop, ballots, 0, count - drop);
            System.arraycopy(lengths, drop, lengths, 0, count - drop);
            System.arraycopy(words, drop * maxBatch, words, 0, (count - drop) * maxBatch);
            count -= drop;
        }
    }

    /**
     * Records (slot, ballot, value) as accepted, replacing an older entry of the slot.
     * The caller has checked the window has room and {@code slot >= floor}.
     */
    void put(final long slot, final long ballot, final long[] value)
    {
        assert slot >= floor && value.length <= maxBatch;
        final boolean put = putWords(slot, ballot, value, 0, value.length);
        assert put : "an accepted ballot for a slot never decreases, and the window never overflows";
    }

    /**
     * {@link #put} of the value in {@code src[from, from + length)}; false, changing nothing, if the
     * entry would lower the slot's ballot or overflow the window (a torn delta may say so).
     */
    private boolean putWords(final long slot, final long ballot, final long[] src, final int from, final int length)
    {
        if (count == 0 || slot > slots[count - 1])
        {
            if (count == maxEntries)
            {
                return false;
            }
            ensureEntries(count + 1);
            slots[count] = slot;
            ballots[count] = ballot;
            setValue(count, src, from, length);
            count++;
            changed = true;
            touch(slot);
            return true;
        }
        final int i = Arrays.binarySearch(slots, 0, count, slot);
        if (i >= 0)
        {
            if (ballots[i] > ballot)
            {
                return false;
            }
            final int at = i * maxBatch;
            if (ballots[i] != ballot || !Arrays.equals(words, at, at + lengths[i], src, from, from + length))
            {
                ballots[i] = ballot;
                setValue(i, src, from, length);
                changed = true;
                touch(slot);
            }
            return true;
        }
        if (count == maxEntries)
        {
            return false;
        }
        ensureEntries(count + 1);
        final int at = -i - 1;
        System.arraycopy(slots, at, slots, at + 1, count - at);
        System.arraycopy(ballots, at, ballots, at + 1, count - at);
        System.arraycopy(lengths, at, lengths, at + 1, count - at);
        System.arraycopy(words, at * maxBatch, words, (at + 1) * maxBatch, (count - at) * maxBatch);
        slots[at] = slot;
        ballots[at] = ballot;
        setValue(at, src, from, length);
        count++;
        changed = true;
        touch(slot);
        return true;
    }

    /**
     * {@link #put} of {@code values[i]} at slot {@code first + i} for each i, at {@code ballot}:
     * a group that lands in a gap below the last entry (it arrived after a later group) moves the
     * entries above it once, not once per slot.
     */
    void putGroup(final long first, final long ballot, final long[][] values)
    {
        final int n = values.length;
        final int at = count == 0 ? 0 : indexAtOrAbove(first);
        if (n == 0 || at == count || slots[at] < first + n && slots[at] >= first || count + n > maxEntries)
        {
            for (int i = 0; i < n; i++)
            {
                put(first + i, ballot, values[i]);
            }
            return;
        }
        assert first >= floor && slots[at] >= first + n;
        ensureEntries(count + n);
        System.arraycopy(slots, at, slots, at + n, count - at);
        System.arraycopy(ballots, at, ballots, at + n, count - at);
        System.arraycopy(lengths, at, lengths, at + n, count - at);
        System.arraycopy(words, at * maxBatch, words, (at + n) * maxBatch, (count - at) * maxBatch);
        for (int i = 0; i < n; i++)
        {
            assert values[i].length <= maxBatch;
            slots[at + i] = first + i;
            ballots[at + i] = ballot;
            setValue(at + i, values[i], 0, values[i].length);
            touch(first + i);
        }
        count += n;
        changed = true;
    }

    private void touch(final long slot)
    {
        if (touchedCount == touched.length)
        {
            touched = Arrays.copyOf(touched, 2 * touched.length);
        }
        touched[touchedCount++] = slot;
    }

    /** Writes the record at {@code dst[offset..]}; returns the number of words written. */
    public int encode(final long[] dst, final int offset)
    {
        int w = offset + ENTRIES;
        for (int i = 0; i < count; i++)
        {
            w = putEntry(dst, w, i);
        }
        return finish(dst, offset, w, count, 0);
    }

    /** Writes entry i at {@code dst[w..]}; returns where the next entry starts. */
    private int putEntry(final long[] dst, final int w, final int i)
    {
        final int len = lengths[i];
        dst[w] = slots[i];
        dst[w + 1] = ballots[i];
        dst[w + 2] = len;
        System.arraycopy(words, i * maxBatch, dst, w + ENTRY_FIXED_WORDS, len);
        return w + ENTRY_FIXED_WORDS + len;
    }

    /** Writes the header of a record of {@code entries} entries ending at {@code w}, and its echo; returns its words. */
    private int finish(final long[] dst, final int offset, final int w, final int entries, final int recordDepth)
    {
        dst[w] = seq;
        final int length = w + 1 - offset;
        dst[offset + SEQ] = seq;
        dst[offset + LENGTH] = length;
        dst[offset + PROMISED] = promised;
        dst[offset + FLOOR] = floor;
        dst[offset + COUNT] = entries;
        dst[offset + PREV] = prevHead;
        dst[offset + DEPTH] = recordDepth;
        return length;
    }

    /**
     * Whether the delta {@link #deltaWords} prepared holds every entry: then it is no shorter than
     * the whole record (its entries are a subset of the record's, its header the same), and the
     * whole record is the one to write.
     */
    public boolean deltaHoldsEverything()
    {
        return deltaCount == count;
    }

    /**
     * Prepares the delta of the changes since beginTransition (the entries put since, still at or
     * above the floor, each once) and returns the words {@link #encodeDelta} will write.
     */
    public int deltaWords()
    {
        // Groups are put in slot order, so the touched slots mostly are already: sort only if not.
        for (int t = 1; t < touchedCount; t++)
        {
            if (touched[t] < touched[t - 1])
            {
                Arrays.sort(touched, 0, touchedCount);
                break;
            }
        }
        if (deltaIndex.length < touchedCount)
        {
            deltaIndex = new int[Math.max(touchedCount, 2 * deltaIndex.length)];
        }
        deltaCount = 0;
        int w = ENTRIES + 1;
        // Entries and touched slots are both sorted: one walk from the first touched slot's entry.
        int i = touchedCount == 0 ? count : indexAtOrAbove(touched[0]);
        for (int t = 0; t < touchedCount && i < count; t++)
        {
            if (t > 0 && touched[t] == touched[t - 1])
            {
                continue;
            }
            while (i < count && slots[i] < touched[t])
            {
                i++;
            }
            if (i < count && slots[i] == touched[t])
            {
                deltaIndex[deltaCount++] = i;
                w += ENTRY_FIXED_WORDS + lengths[i];
            }
        }
        return w;
    }

    /**
     * Writes the delta {@link #deltaWords} prepared at {@code dst[offset..]}, with this record's
     * {@link #depth()} (at least 1), promise, floor and {@link #prevHead()}; returns its words.
     */
    public int encodeDelta(final long[] dst, final int offset)
    {
        assert depth > 0 : "a delta record has a depth of at least 1";
        int w = offset + ENTRIES;
        for (int d = 0; d < deltaCount; d++)
        {
            w = putEntry(dst, w, deltaIndex[d]);
        }
        return finish(dst, offset, w, deltaCount, depth);
    }

    /**
     * Applies the delta record read at {@code src[offset..]} to this state, which must be the state
     * of the record the delta names as {@code prev}, with depth one less. Returns false, leaving
     * this object cleared, when the words are visibly not a whole delta published with
     * {@code expectedSeq} on top of this state (torn, reused, or of another chain); as for
     * {@link #decode}, true does not prove the read was whole: the reader re-reads the head.
     */
    public boolean applyDelta(final long[] src, final int offset, final int availableWords, final long expectedSeq)
    {
        if (valueAt == null)
        {
            valueAt = new int[maxEntries];
        }
        if (deltaSlots == null)
        {
            deltaSlots = new long[maxEntries];
            deltaBallots = new long[maxEntries];
        }
        final int n = index(src, offset, availableWords, expectedSeq, maxEntries, maxBatch, deltaSlots, deltaBallots,
            valueAt);
        if (n < 0 || src[offset + DEPTH] != depth + 1 || src[offset + PROMISED] < promised ||
            src[offset + FLOOR] < floor || RegionLayout.headSeq(src[offset + PREV]) != seq)
        {
            clear();
            return false;
        }
        promised = src[offset + PROMISED];
        raiseFloor(src[offset + FLOOR]);
        for (int d = 0; d < n; d++)
        {
            if (deltaSlots[d] < floor || deltaSlots[d] >= floor + maxEntries)
            {
                clear();
                return false; // not what a transition of this window writes
            }
            final int w = valueAt[d];
            if (!putWords(deltaSlots[d], deltaBallots[d], src, w, (int)src[w - 1]))
            {
                clear();
                return false;
            }
        }
        seq = expectedSeq;
        prevHead = src[offset + PREV];
        depth = (int)src[offset + DEPTH];
        changed = false;
        touchedCount = 0;
        return true;
    }

    /** Where {@link #applyDelta} indexes a delta's entries; allocated on the first one. */
    private long[] deltaSlots;
    private long[] deltaBallots;

    /**
     * Decodes a record read from a region. Returns false, leaving this object cleared, when the
     * words are visibly not a whole record published with {@code expectedSeq} (torn or since
     * reused). True does not prove the record was read whole: a rewrite between the checked words
     * with a record of the same shape passes. A reader confirms by re-reading the head after the
     * record ({@code AcceptorDriver}).
     */
    public boolean decode(final long[] src, final int offset, final int availableWords, final long expectedSeq)
    {
        clear();
        if (valueAt == null)
        {
            valueAt = new int[maxEntries];
        }
        if (availableWords > DEPTH && src[offset + DEPTH] != 0)
        {
            return false; // a delta: applyDelta reads it, on top of the state its chain builds
        }
        if (availableWords > COUNT && src[offset + COUNT] > slots.length && src[offset + COUNT] <= maxEntries)
        {
            ensureEntries((int)src[offset + COUNT]); // index() fills the slots and ballots of that many
        }
        final int n = index(src, offset, availableWords, expectedSeq, maxEntries, maxBatch, slots, ballots, valueAt);
        if (n < 0)
        {
            return false;
        }
        ensureEntries(n);
        for (int i = 0; i < n; i++)
        {
            final int w = valueAt[i];
            final int len = (int)src[w - 1];
            System.arraycopy(src, w, words, i * maxBatch, len);
            lengths[i] = len;
        }
        seq = expectedSeq;
        promised = src[offset + PROMISED];
        floor = src[offset + FLOOR];
        prevHead = src[offset + PREV];
        count = n;
        changed = false;
        return true;
    }

    /** Where {@link #decode} finds each entry's value; allocated on the first decode. */
    private int[] valueAt;

    /**
     * The checks of {@link #decode}, without copying values: whether {@code src[offset..]} is
     * visibly a whole record published with {@code expectedSeq} of at most {@code maxEntries}
     * entries of at most {@code maxBatch} words. Fills entry i's slot, ballot and where its value
     * starts ({@code valueAt[i]}; its length is the word before) and returns the entry count, or
     * -1 when the record is not whole (the arrays then hold garbage). For readers that keep
     * records as words, such as the simulator's audit.
     */
    public static int index(final long[] src, final int offset, final int availableWords, final long expectedSeq,
        final int maxEntries, final int maxBatch, final long[] slots, final long[] ballots, final int[] valueAt)
    {
        if (availableWords < ENTRIES + 1 || src[offset + SEQ] != expectedSeq)
        {
            return -1;
        }
        final long length = src[offset + LENGTH];
        final long n = src[offset + COUNT];
        if (length < ENTRIES + 1 || length > availableWords || n < 0 || n > maxEntries ||
            src[offset + (int)length - 1] != expectedSeq)
        {
            return -1;
        }
        int w = offset + ENTRIES;
        final int end = offset + (int)length - 1;
        for (int i = 0; i < n; i++)
        {
            if (w + ENTRY_FIXED_WORDS > end)
            {
                return -1;
            }
            final long slot = src[w++];
            final long ballot = src[w++];
            final long len = src[w++];
            if (len < 0 || len > maxBatch || w + len > end)
            {
                return -1;
            }
            if (i > 0 && slot <= slots[i - 1])
            {
                return -1;
            }
            slots[i] = slot;
            ballots[i] = ballot;
            valueAt[i] = w;
            w += (int)len;
        }
        // The entries must fill the length exactly, or length and count come from different records.
        return w == end ? (int)n : -1;
    }

    /** Same promised ballot, floor and entries (sequence numbers ignored). */
    public boolean sameStateAs(final AcceptorRecord other)
    {
        if (promised != other.promised || floor != other.floor || count != other.count)
        {
            return false;
        }
        for (int i = 0; i < count; i++)
        {
            final int j = other.find(slots[i]);
            if (j < 0 || other.ballots[j] != ballots[i] || !Arrays.equals(other.words, j * other.maxBatch,
                j * other.maxBatch + other.lengths[j], words, i * maxBatch, i * maxBatch + lengths[i]))
            {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder("AcceptorRecord{seq=").append(seq).append(", promised=")
            .append(promised).append(", floor=").append(floor).append(", entries=[");
        for (int i = 0; i < count; i++)
        {
            sb.append(i == 0 ? "" : ", ").append(slots[i]).append('@').append(ballots[i]).append('=')
                .append(Arrays.toString(value(i)));
        }
        return sb.append("]}").toString();
    }
}
