package io.mmx.runtime.core;

import java.util.Arrays;

/**
 * The state of one acceptor as held by one immutable record in its region: the promised ballot,
 * the floor (every slot below it is decided and durably logged, so its entry was dropped) and the
 * accepted (slot, ballot, value) entries of the slots at or above the floor.
 *
 * <p>This object is a mutable, reusable decoder/encoder; the record in the region is never changed
 * once published. Values are held as words, {@code maxBatch} per entry, not as arrays: a copy of
 * the window (every transition starts from one) is then a copy of primitive arrays, with no
 * reference stores for the collector to track.
 *
 * <pre>
 * word 0       seq          the head sequence that publishes this record
 * word 1       length       words used, including the trailing echo
 * word 2       promised     promised ballot
 * word 3       floor        slots below are decided; no entries for them
 * word 4       count        number of entries
 * word 5       prev         the head word this record replaced (audit only, never followed: a
 *                           record is a whole snapshot of the window, so no chain is walked)
 * entries      slot, ballot, valueLength, value[valueLength]
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
    static final int PREV = 5;
    static final int ENTRIES = 6;
    /** Words of an entry before its value: slot, ballot, value length. */
    public static final int ENTRY_FIXED_WORDS = 3;

    private final int maxEntries;
    private final int maxBatch;
    private long seq;
    private long promised;
    private long floor;
    private long prevHead;
    private int count;
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
            final int grown = Math.min(maxEntries, Math.max(entries, 2 * slots.length));
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
        count = 0;
        changed = false;
    }

    /** Becomes a copy of {@code other}. */
    public void copyFrom(final AcceptorRecord other)
    {
        copyFrom(other, other.floor);
    }

    /**
     * {@link #copyFrom(AcceptorRecord)} then {@link #raiseFloor(long)} to {@code newFloor}, in one
     * pass: the entries below the new floor are never copied, only to be shifted out again.
     */
    void copyFrom(final AcceptorRecord other, final long newFloor)
    {
        assert other.maxEntries == maxEntries && other.maxBatch == maxBatch;
        seq = other.seq;
        promised = other.promised;
        prevHead = other.prevHead;
        changed = newFloor > other.floor;
        floor = Math.max(other.floor, newFloor);
        int drop = 0;
        while (drop < other.count && other.slots[drop] < floor)
        {
            drop++;
        }
        count = other.count - drop;
        ensureEntries(count);
        System.arraycopy(other.slots, drop, slots, 0, count);
        System.arraycopy(other.ballots, drop, ballots, 0, count);
        System.arraycopy(other.lengths, drop, lengths, 0, count);
        System.arraycopy(other.words, drop * maxBatch, words, 0, count * maxBatch);
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

    /** True if a transition applied since the last copy/decode/clear changed the state. */
    public boolean changed()
    {
        return changed;
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

    private boolean valueEquals(final int i, final long[] value)
    {
        final int from = i * maxBatch;
        return Arrays.equals(words, from, from + lengths[i], value, 0, value.length);
    }

    private void setValue(final int i, final long[] value)
    {
        System.arraycopy(value, 0, words, i * maxBatch, value.length);
        lengths[i] = value.length;
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
        if (count == 0 || slot > slots[count - 1])
        {
            assert count < maxEntries : "acceptor window overflow";
            ensureEntries(count + 1);
            slots[count] = slot;
            ballots[count] = ballot;
            setValue(count, value);
            count++;
            changed = true;
            return;
        }
        final int i = Arrays.binarySearch(slots, 0, count, slot);
        if (i >= 0)
        {
            assert ballots[i] <= ballot : "an accepted ballot for a slot never decreases";
            if (ballots[i] != ballot || !valueEquals(i, value))
            {
                ballots[i] = ballot;
                setValue(i, value);
                changed = true;
            }
            return;
        }
        assert count < maxEntries : "acceptor window overflow";
        ensureEntries(count + 1);
        final int at = -i - 1;
        System.arraycopy(slots, at, slots, at + 1, count - at);
        System.arraycopy(ballots, at, ballots, at + 1, count - at);
        System.arraycopy(lengths, at, lengths, at + 1, count - at);
        System.arraycopy(words, at * maxBatch, words, (at + 1) * maxBatch, (count - at) * maxBatch);
        slots[at] = slot;
        ballots[at] = ballot;
        setValue(at, value);
        count++;
        changed = true;
    }

    /** Writes the record at {@code dst[offset..]}; returns the number of words written. */
    public int encode(final long[] dst, final int offset)
    {
        int w = offset + ENTRIES;
        for (int i = 0; i < count; i++)
        {
            final int len = lengths[i];
            dst[w++] = slots[i];
            dst[w++] = ballots[i];
            dst[w++] = len;
            System.arraycopy(words, i * maxBatch, dst, w, len);
            w += len;
        }
        dst[w++] = seq;
        final int length = w - offset;
        dst[offset + SEQ] = seq;
        dst[offset + LENGTH] = length;
        dst[offset + PROMISED] = promised;
        dst[offset + FLOOR] = floor;
        dst[offset + COUNT] = count;
        dst[offset + PREV] = prevHead;
        return length;
    }

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
