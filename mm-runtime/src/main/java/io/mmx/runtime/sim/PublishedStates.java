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
 * state. When the log is full the ranges still in use move to its start.
 */
final class PublishedStates
{
    private long[] slots;
    private long[] ballots;
    private long[] hashes;
    /** The log's used end: the next entry goes here. */
    private int logEnd;

    /** The recent states, a ring; {@link #newest} is the current one. */
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
     * {@code logEntries}: the log's first size, room for what the recent states span in a steady
     * run (a window and a group per recent state) twice over, so that it seldom grows: growing
     * from small copied and dropped about as much as it kept, in the largest runs.
     */
    PublishedStates(final int recentStates, final int logEntries)
    {
        base = new int[recentStates];
        end = new int[recentStates];
        promised = new long[recentStates];
        floor = new long[recentStates];
        sum = new long[recentStates];
        slots = new long[logEntries];
        ballots = new long[logEntries];
        hashes = new long[logEntries];
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
        return slots[base[newest] + i];
    }

    long ballot(final int i)
    {
        return ballots[base[newest] + i];
    }

    long hash(final int i)
    {
        return hashes[base[newest] + i];
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
        final int b = base[newest];
        final int i = Arrays.binarySearch(slots, b, end[newest], slot);
        return (i >= 0 ? i : -i - 1) - b;
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
            if (ballots[k] < ballot)
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
        slots[logEnd] = slot;
        ballots[logEnd] = ballot;
        hashes[logEnd] = hash;
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
            s -= hashes[k];
        }
        for (int k = building; k < logEnd; k++)
        {
            s += hashes[k];
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
     * Room for {@code entries} more at the log's end. A full log keeps only the ranges still in use
     * (the recent states'), moved to its start, and grows when they fill more than half of it.
     */
    private void ensureRoom(final int entries)
    {
        if (logEnd + entries <= slots.length)
        {
            return;
        }
        int live = logEnd;
        for (int k = 0; k < size; k++)
        {
            live = Math.min(live, base[k]);
        }
        final int used = logEnd - live;
        final int capacity = used + entries > slots.length / 2 ? Math.max(2 * slots.length, 2 * (used + entries)) :
            slots.length;
        final long[] s = capacity == slots.length ? slots : new long[capacity];
        final long[] b = capacity == slots.length ? ballots : new long[capacity];
        final long[] h = capacity == slots.length ? hashes : new long[capacity];
        System.arraycopy(slots, live, s, 0, used);
        System.arraycopy(ballots, live, b, 0, used);
        System.arraycopy(hashes, live, h, 0, used);
        slots = s;
        ballots = b;
        hashes = h;
        for (int k = 0; k < size; k++)
        {
            base[k] -= live;
            end[k] -= live;
        }
        building -= live;
        logEnd = used;
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
            while (k < end[j] && slots[k] <= omitted)
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
                s += hashes[e];
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
