package io.mmx.runtime.sim;

import io.mmx.runtime.core.AcceptorRecord;

import java.util.Arrays;

/**
 * One acceptor's published state as {@link AcceptorAudit} keeps it: the words of the record its
 * head pointed to, copied at the publish, and an index of the entries (slot, ballot, where the
 * value lies, the entry's hash). Primitive arrays only: thousands of audited acceptors hold no
 * references for the collector to track, and a publish compares words instead of decoding
 * value arrays.
 */
final class PublishedState
{
    private final int maxEntries;
    private final int maxBatch;
    private long[] words = new long[0];
    private long promised;
    private long floor;
    private int count;
    /** Where the entries end: the record's trailing echo word. */
    private int entriesEnd;
    // The entry arrays grow to the entries held, as the words do to the record's length: one state
    // per audited acceptor, and arrays of the capacity were a tenth of an n = 4096 run's memory.
    private long[] slots = new long[0];
    private long[] ballots = new long[0];
    /** Entry i's value: {@code words[valueAt[i]..]}, {@code words[valueAt[i] - 1]} words long. */
    private int[] valueAt = new int[0];
    /** Entry i's hash (see {@link AcceptorAudit}), kept so that an unchanged entry is not hashed again. */
    long[] hashes = new long[0];

    PublishedState(final int maxEntries, final int maxBatch)
    {
        this.maxEntries = maxEntries;
        this.maxBatch = maxBatch;
    }

    /**
     * Copies the record at {@code offset} of {@code region} (at most {@code capacityWords}) and
     * indexes it; false when it is not visibly a whole record published with {@code seq}, the
     * check of {@link AcceptorRecord#decode}.
     */
    boolean read(final SimRegion region, final int offset, final int capacityWords, final long seq)
    {
        count = 0;
        // The record's own length, not its capacity: what lies after it is not part of the state.
        final int available = (int)Math.max(0, Math.min(capacityWords, region.get(offset + AcceptorRecord.LENGTH)));
        if (words.length < available)
        {
            // States pass from acceptor to acceptor (the audit's spare), so few grow more than once.
            words = new long[Math.min(capacityWords, Math.max(available, 2 * words.length))];
        }
        region.read(offset, words, available);
        final long entries = available > AcceptorRecord.COUNT ? words[AcceptorRecord.COUNT] : 0;
        if (entries > slots.length && entries <= maxEntries) // more than a record holds: index() refuses it
        {
            final int grown = (int)Math.min(maxEntries, Math.max(entries, 2L * slots.length));
            slots = new long[grown];
            ballots = new long[grown];
            valueAt = new int[grown];
            hashes = new long[grown];
        }
        final int n = AcceptorRecord.index(words, 0, available, seq, maxEntries, maxBatch, slots, ballots, valueAt);
        if (n < 0)
        {
            return false;
        }
        count = n;
        entriesEnd = (int)words[AcceptorRecord.LENGTH] - 1;
        promised = words[AcceptorRecord.PROMISED];
        floor = words[AcceptorRecord.FLOOR];
        return true;
    }

    long promised()
    {
        return promised;
    }

    long floor()
    {
        return floor;
    }

    int count()
    {
        return count;
    }

    long slot(final int i)
    {
        return slots[i];
    }

    long ballot(final int i)
    {
        return ballots[i];
    }

    /** Where entry i's value starts in {@link #words()}. */
    int valueAt(final int i)
    {
        return valueAt[i];
    }

    int valueLength(final int i)
    {
        return (int)words[valueAt[i] - 1];
    }

    long[] words()
    {
        return words;
    }

    /**
     * How many entries from entry i on equal (slot, ballot and value) those from entry j of
     * {@code other} on, in order: one comparison of the words where they lie, which is how a
     * record that only gained entries at its end and dropped some at its start is checked.
     */
    int sameRun(final int i, final PublishedState other, final int j)
    {
        final int from = valueAt[i] - AcceptorRecord.ENTRY_FIXED_WORDS;
        final int otherFrom = other.valueAt[j] - AcceptorRecord.ENTRY_FIXED_WORDS;
        int same = Arrays.mismatch(words, from, entriesEnd, other.words, otherFrom, other.entriesEnd);
        if (same < 0)
        {
            same = entriesEnd - from;
        }
        // The words agree from the two starts on, so both parse into the same entries there.
        int k = i;
        while (k < count && k - i < other.count - j && valueAt[k] + valueLength(k) - from <= same)
        {
            k++;
        }
        return k - i;
    }

    /** Whether entry i holds the same value words as entry j of {@code other}. */
    boolean sameValue(final int i, final PublishedState other, final int j)
    {
        final int a = valueAt[i];
        final int b = other.valueAt[j];
        return Arrays.equals(words, a, a + valueLength(i), other.words, b, b + other.valueLength(j));
    }

    /** Whether entry i holds {@code value}. */
    boolean holds(final int i, final long[] value)
    {
        final int a = valueAt[i];
        return Arrays.equals(words, a, a + valueLength(i), value, 0, value.length);
    }

    long[] value(final int i)
    {
        return Arrays.copyOfRange(words, valueAt[i], valueAt[i] + valueLength(i));
    }

    /**
     * Whether entries i.. hold slots {@code first..first + slots - 1}, one each: slots are sorted
     * and distinct, so the first and the last entry tell.
     */
    boolean holdsRun(final int i, final long first, final int slots)
    {
        return slots > 0 && i + slots <= count && this.slots[i] == first && this.slots[i + slots - 1] == first + slots - 1;
    }

    /** {@link #holdsRun} with every one of those entries at {@code ballot} or above. */
    boolean holdsAtLeast(final int i, final long first, final int slots, final long ballot)
    {
        if (!holdsRun(i, first, slots))
        {
            return false;
        }
        for (int k = i; k < i + slots; k++)
        {
            if (ballots[k] < ballot)
            {
                return false;
            }
        }
        return true;
    }

    /** Index of the first entry whose slot is at least {@code slot} ({@link #count()} if none). */
    int indexAtOrAbove(final long slot)
    {
        if (count == 0 || slot <= slots[0])
        {
            return 0;
        }
        if (slot > slots[count - 1])
        {
            return count;
        }
        // Slots are distinct and sorted, so slots[i] >= slots[0] + i: where the entries run without
        // a gap (the common case, asked for every acceptor of every group) the slot sits at its offset.
        final long offset = slot - slots[0];
        if (offset < count && slots[(int)offset] == slot)
        {
            return (int)offset;
        }
        final int i = Arrays.binarySearch(slots, 0, count, slot);
        return i >= 0 ? i : -i - 1;
    }

    /** As the record it holds prints itself: violations name states the way they always did. */
    @Override
    public String toString()
    {
        final AcceptorRecord record = new AcceptorRecord(maxEntries, maxBatch);
        record.decode(words, 0, words.length, words[AcceptorRecord.SEQ]);
        return record.toString();
    }
}
