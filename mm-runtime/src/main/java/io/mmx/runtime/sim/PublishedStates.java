package io.mmx.runtime.sim;

import org.agrona.collections.LongHashSet;

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
 *
 * <p>Laid out for the cache: at n = 4096 every acceptor's states are cold when its next transition
 * or reply is audited, so what one audit touches lies together. The current state is fields of this
 * object, an entry's slot, ballot and hash are adjacent words of one array, the recent states are
 * one array, and the fingerprints of every state ever published are appended to one more (the
 * set a Promise is looked up in is built from them only when a Promise comes).
 */
final class PublishedStates
{
    /** Words per entry in {@link #log}: slot, ballot, hash. */
    private static final int ENTRY = 3;
    /** Words per state in {@link #recent}: base, end, promise, floor, sum of entry hashes. */
    private static final int STATE = 5;

    /** The entries, {@link #ENTRY} words each, the one at position p at {@code (p & mask) * ENTRY}. */
    private long[] log;
    /** Entries the ring holds, less one: its length is a power of two. */
    private int mask;
    /** The position the next entry goes to. */
    private int logEnd;
    /** The first position {@link #add} may not fill: the oldest entry in use, one ring further on. */
    private int roomEnd;

    /** The current state: its range of positions, promise, floor and sum of entry hashes. */
    private int base;
    private int end;
    private long promised;
    private long floor;
    private long sum;

    /** The recent states, the current one included, {@link #STATE} words each, a ring. */
    private final long[] recent;
    private int newest = -1;
    private int size;

    /** A new state being built ({@link #begin} .. {@link #commit}): its range starts here. */
    private int building;
    private long buildingSum;

    /** The fingerprint of every state published, in order, and how many of them {@link #seen} holds. */
    private long[] fingerprints = new long[16];
    private int fingerprintCount;
    private LongHashSet seen;
    private int seenCount;

    /** The head word last published, and the record slots of the chain it names, newest first. */
    private long lastHead;
    private final int[] chain;
    private int chainLength;

    /**
     * {@code logEntries}: room for what the recent states span in a steady run (a window and a
     * group per recent state), rounded up to a power of two; the ring grows past it only when
     * the ranges in use do.
     */
    PublishedStates(final int recentStates, final int logEntries, final int chainLinks)
    {
        chain = new int[chainLinks];
        recent = new long[recentStates * STATE];
        final int length = Integer.highestOneBit(Math.max(2, logEntries - 1)) << 1;
        log = new long[length * ENTRY];
        mask = length - 1;
    }

    /** True once a state was published. */
    boolean any()
    {
        return size > 0;
    }

    long promised()
    {
        return promised;
    }

    long floor()
    {
        return floor;
    }

    /** The sum of the current state's entry hashes: with promise, floor and count, its fingerprint. */
    long sum()
    {
        return sum;
    }

    int count()
    {
        return end - base;
    }

    long slot(final int i)
    {
        return slotAt(base + i);
    }

    long ballot(final int i)
    {
        return ballotAt(base + i);
    }

    long hash(final int i)
    {
        return hashAt(base + i);
    }

    private long slotAt(final int position)
    {
        return log[(position & mask) * ENTRY];
    }

    private long ballotAt(final int position)
    {
        return log[(position & mask) * ENTRY + 1];
    }

    private long hashAt(final int position)
    {
        return log[(position & mask) * ENTRY + 2];
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
        for (int k = base + i; k < base + i + slots; k++)
        {
            if (ballotAt(k) < ballot)
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
        final int at = (logEnd & mask) * ENTRY;
        log[at] = slot;
        log[at + 1] = ballot;
        log[at + 2] = hash;
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
        final int from = base + drop;
        long s = sum;
        for (int k = base; k < from; k++)
        {
            s -= hashAt(k);
        }
        for (int k = building; k < logEnd; k++)
        {
            s += hashAt(k);
        }
        // beginAppend follows a commit, so the current range ends where the appended entries start: one range.
        assert end == building : "entries appended after another state's";
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
        base = from;
        end = to;
        promised = promise;
        floor = floorOf;
        sum = entrySum;
        newest = (newest + 1) % (recent.length / STATE);
        final int r = newest * STATE;
        recent[r] = from;
        recent[r + 1] = to;
        recent[r + 2] = promise;
        recent[r + 3] = floorOf;
        recent[r + 4] = entrySum;
        size = Math.min(size + 1, recent.length / STATE);
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
            live = Math.min(live, (int)recent[k * STATE]);
        }
        final int length = mask + 1;
        if (logEnd - live + entries <= length)
        {
            roomEnd = live + length;
            return;
        }
        int grown = length;
        while (logEnd - live + entries > grown)
        {
            grown <<= 1;
        }
        final long[] g = new long[grown * ENTRY];
        final int newMask = grown - 1;
        for (int k = live; k < logEnd; k++)
        {
            System.arraycopy(log, (k & mask) * ENTRY, g, (k & newMask) * ENTRY, ENTRY);
        }
        log = g;
        mask = newMask;
        roomEnd = live + grown;
    }

    /** True if one of the recent states, its entries through {@code omitted} left out, is the Promise's. */
    boolean holdsTail(final long ballot, final long floorOf, final long omitted, final int entries, final long entrySum)
    {
        for (int j = 0; j < size; j++)
        {
            final int r = j * STATE;
            if (recent[r + 2] != ballot || recent[r + 3] != floorOf)
            {
                continue;
            }
            final int to = (int)recent[r + 1];
            int k = (int)recent[r];
            while (k < to && slotAt(k) <= omitted)
            {
                k++;
            }
            if (to - k != entries)
            {
                continue;
            }
            long s = 0;
            for (int e = k; e < to; e++)
            {
                s += hashAt(e);
            }
            if (s == entrySum)
            {
                return true;
            }
        }
        return false;
    }

    long lastHead()
    {
        return lastHead;
    }

    int chainLength()
    {
        return chainLength;
    }

    /** Record slot {@code k} of the chain the last head names, 0 the newest. */
    int chainLink(final int k)
    {
        return chain[k];
    }

    /**
     * {@code head} was published, naming {@code recordSlot} at {@code depth}: a delta extends the
     * chain of the head it replaced, a whole record (depth 0) starts one.
     */
    void chained(final long head, final int recordSlot, final int depth)
    {
        System.arraycopy(chain, 0, chain, 1, depth == 0 ? 0 : Math.min(chainLength, chain.length - 1));
        chain[0] = recordSlot;
        chainLength = depth + 1;
        lastHead = head;
    }

    /** The region was formatted again, empty: its head is the initial state, with no chain. */
    void formatted()
    {
        chainLength = 0;
        lastHead = 0;
    }

    /** Remembers the fingerprint of the state just published ({@link AcceptorAudit}'s). */
    void published(final long fingerprint)
    {
        if (fingerprintCount == fingerprints.length)
        {
            fingerprints = java.util.Arrays.copyOf(fingerprints, 2 * fingerprintCount);
        }
        fingerprints[fingerprintCount++] = fingerprint;
    }

    /** True if a state with this fingerprint was ever published. */
    boolean everPublished(final long fingerprint)
    {
        if (seen == null)
        {
            seen = new LongHashSet(Math.max(16, 2 * fingerprintCount));
        }
        while (seenCount < fingerprintCount)
        {
            seen.add(fingerprints[seenCount++]);
        }
        return seen.contains(fingerprint);
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
