package io.mmx.runtime.sim;

import java.util.Arrays;

/**
 * One acceptor's published states as {@link AcceptorAudit} keeps them: the current one and the
 * last few before it, which a Promise may still report.
 *
 * <p>Each entry is (slot, ballot, hash of the entry, {@link AcceptorAudit}'s), not its value: a
 * value was checked against the proposal of its (slot, ballot) when it was first published, and
 * that proposal never changes. The entries live in one log, and a state is a range of it in slot
 * order. A transition that adds entries above the others and drops those below its new floor (what
 * almost every transition does) makes the new state by appending its new entries and moving the
 * range's start: the work follows the change, not the window, and the states before it stay intact
 * as ranges of the same log, so keeping the recent ones costs nothing. Any other change (a slot
 * accepted again at a higher ballot, a slot below the last, a whole record) appends the whole new
 * state.
 *
 * <p>The log is a ring: a position counts every entry ever appended and lives at {@code position &
 * mask}, so entries older than every recent state are simply overwritten, and nothing is moved
 * until the ranges in use outgrow the ring, which then doubles. At n = 4096 a ring sized to a
 * steady run's ranges holds about a third less than a log with room to compact, and the audit's
 * logs are most of the simulator's heap.
 */
final class PublishedStates
{
    private long[] slots;
    private long[] ballots;
    private long[] hashes;
    /** {@code slots.length - 1}: the ring's length is a power of two. */
    private int mask;
    /** The position the next entry goes to. */
    private int logEnd;
    /** The first position {@link #add} may not fill: the oldest entry in use, one ring further on. */
    private int roomEnd;

    /** The recent states, a ring; {@link #newest} is the current one. Their ranges are positions. */
    private final int[] base;
    private final int[] end;
    private final long[] promised;
    private final long[] floor;
    private final long[] sum;
    private int newest = -1;
    private int size;

    /** A new state being built ({@link #begin} .. {@link #commit}): its range starts here. */
    private int building;
    private long buildingSum;

    /**
     * {@code logEntries}: room for what the recent states span in a steady run (a window and a
     * group per recent state), rounded up to a power of two; the ring grows past it only when
     * the ranges in use do.
     */
    PublishedStates(final int recentStates, final int logEntries)
    {
        base = new int[recentStates];
        end = new int[recentStates];
        promised = new long[recentStates];
        floor = new long[recentStates];
        sum = new long[recentStates];
        final int length = Integer.highestOneBit(Math.max(2, logEntries - 1)) << 1;
        slots = new long[length];
        ballots = new long[length];
        hashes = new long[length];
        mask = length - 1;
    }

    /** True once a state was published. */
    boolean any()
    {
        return size > 0;
    }

    long promised()
    {
        return promised[newest];
    }

    long floor()
    {
        return floor[newest];
    }

    /** The sum of the current state's entry hashes: with promise, floor and count, its fingerprint. */
    long sum()
    {
        return sum[newest];
    }

    int count()
    {
        return size == 0 ? 0 : end[newest] - base[newest];
    }

    long slot(final int i)
    {
        return slots[(base[newest] + i) & mask];
    }

    long ballot(final int i)
    {
        return ballots[(base[newest] + i) & mask];
    }

    long hash(final int i)
    {
        return hashes[(base[newest] + i) & mask];
    }

    /** Index of the first entry whose slot is at least {@code slot} ({@link #count()} if none). */
    int indexAtOrAbove(final long slot)
    {
        final int n = count();
        if (n == 0 || slot <= slot(0))
        {
            return 0;
        }
        if (slot > slot(n - 1))
        {
            return n;
        }
        // Slots are distinct and sorted, so slots[i] >= slots[0] + i: where the entries run without
        // a gap (the common case, asked for every acceptor of every group) the slot sits at its offset.
        final long offset = slot - slot(0);
        if (offset < n && slot((int)offset) == slot)
        {
            return (int)offset;
        }
        // slot(0) < slot <= slot(n - 1): the answer lies in (0, n - 1].
        int low = 1;
        int high = n - 1;
        while (low < high)
        {
            final int mid = (low + high) >>> 1;
            if (slot(mid) < slot)
            {
                low = mid + 1;
            }
            else
            {
                high = mid;
            }
        }
        return low;
    }

    /**
     * Whether entries i.. hold slots {@code first..first + slots - 1}, one each: slots are sorted
     * and distinct, so the first and the last entry tell.
     */
    boolean holdsRun(final int i, final long first, final int slots)
    {
        return slots > 0 && i + slots <= count() && slot(i) == first && slot(i + slots - 1) == first + slots - 1;
    }

    /** {@link #holdsRun} with every one of those entries at {@code ballot} or above. */
    boolean holdsAtLeast(final int i, final long first, final int slots, final long ballot)
    {
        if (!holdsRun(i, first, slots))
        {
            return false;
        }
        final int from = base[newest] + i;
        for (int k = from; k < from + slots; k++)
        {
            if (ballots[k & mask] < ballot)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Starts building the next state at the log's end, with room for {@code entries} more entries.
     * Entries are then added in slot order ({@link #add}) and {@link #commit}
     * makes it current.
     */
    void begin(final int entries)
    {
        ensureRoom(entries);
        building = logEnd;
        buildingSum = 0;
    }

    /** Adds one entry to the state being built. */
    void add(final long slot, final long ballot, final long hash)
    {
        assert logEnd < roomEnd : "more entries added than begin made room for";
        final int at = logEnd & mask;
        slots[at] = slot;
        ballots[at] = ballot;
        hashes[at] = hash;
        buildingSum += hash;
        logEnd++;
    }

    /** Makes the state being built current, with {@code promise} and {@code floorOf}. */
    void commit(final long promise, final long floorOf)
    {
        push(building, logEnd, promise, floorOf, buildingSum);
    }

    /**
     * The current state's entries from index {@code drop} on, then the entries just appended at the
     * log's end since {@link #beginAppend}: the new state, when they all lie above the current
     * state's last slot. Only the appended entries cost anything.
     */
    void commitAppended(final int drop, final long promise, final long floorOf)
    {
        final int from = base[newest] + drop;
        long s = sum[newest];
        for (int k = base[newest]; k < from; k++)
        {
            s -= hashes[k & mask];
        }
        for (int k = building; k < logEnd; k++)
        {
            s += hashes[k & mask];
        }
        // beginAppend follows a commit, so the current range ends where the appended entries start.
        assert end[newest] == building : "entries appended after another state's";
        // The current state's range ends where the appended entries start: one range.
        push(from, logEnd, promise, floorOf, s);
    }

    /**
     * Starts appending entries above the current state's last slot ({@link #add}), to become part of
     * the next state by {@link #commitAppended}.
     */
    void beginAppend(final int entries)
    {
        ensureRoom(entries);
        building = logEnd;
    }

    private void push(final int from, final int to, final long promise, final long floorOf, final long entrySum)
    {
        newest = (newest + 1) % base.length;
        base[newest] = from;
        end[newest] = to;
        promised[newest] = promise;
        floor[newest] = floorOf;
        sum[newest] = entrySum;
        size = Math.min(size + 1, base.length);
    }

    /**
     * Room for {@code entries} more at the log's end without overwriting a recent state's entries:
     * the ring doubles (its positions kept) while the ranges in use and the new entries do not fit.
     */
    private void ensureRoom(final int entries)
    {
        int live = logEnd;
        for (int k = 0; k < size; k++)
        {
            live = Math.min(live, base[k]);
        }
        if (logEnd - live + entries <= slots.length)
        {
            roomEnd = live + slots.length;
            return;
        }
        int length = slots.length;
        while (logEnd - live + entries > length)
        {
            length <<= 1;
        }
        final long[] s = new long[length];
        final long[] b = new long[length];
        final long[] h = new long[length];
        final int newMask = length - 1;
        for (int k = live; k < logEnd; k++)
        {
            s[k & newMask] = slots[k & mask];
            b[k & newMask] = ballots[k & mask];
            h[k & newMask] = hashes[k & mask];
        }
        slots = s;
        ballots = b;
        hashes = h;
        mask = newMask;
        roomEnd = live + length;
    }

    /** True if one of the recent states, its entries through {@code omitted} left out, is the Promise's. */
    boolean holdsTail(final long ballot, final long floorOf, final long omitted, final int entries, final long entrySum)
    {
        for (int j = 0; j < size; j++)
        {
            if (promised[j] != ballot || floor[j] != floorOf)
            {
                continue;
            }
            int k = base[j];
            while (k < end[j] && slots[k & mask] <= omitted)
            {
                k++;
            }
            if (end[j] - k != entries)
            {
                continue;
            }
            long s = 0;
            for (int e = k; e < end[j]; e++)
            {
                s += hashes[e & mask];
            }
            if (s == entrySum)
            {
                return true;
            }
        }
        return false;
    }

    /** The current state, entries as slot@ballot (values are the proposals of those pairs). */
    @Override
    public String toString()
    {
        if (size == 0)
        {
            return "AcceptorState{nothing published}";
        }
        final StringBuilder sb = new StringBuilder("AcceptorState{promised=").append(promised()).append(", floor=")
            .append(floor()).append(", entries=[");
        for (int i = 0; i < count(); i++)
        {
            sb.append(i == 0 ? "" : ", ").append(slot(i)).append('@').append(ballot(i));
        }
        return sb.append("]}").toString();
    }
}
