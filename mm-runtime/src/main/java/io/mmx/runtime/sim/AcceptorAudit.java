package io.mmx.runtime.sim;

import io.mmx.runtime.core.AcceptorRecord;
import io.mmx.runtime.core.CoreConfig;
import io.mmx.runtime.core.Message;
import io.mmx.runtime.core.RegionLayout;


import java.util.Arrays;

/**
 * Checks every published acceptor transition, at the moment its head word changes: the record is
 * whole; the promise and the floor never decrease; no accepted ballot exceeds the promise; no
 * entry at or above the floor is lost or goes back to a lower ballot; and a value accepted at
 * ballot b for slot s is the one proposed for (s, b). And every reply (Promise, Accepted) carries
 * only state the acceptor published.
 */
final class AcceptorAudit
{
    private final CoreConfig config;
    private final RegionLayout layout;
    private final SafetyChecker checker;
    /** Per acceptor: its current published state and the last few before it, whose tails a Promise may report. */
    private final PublishedStates[] last;
    /** Per-slot counts of one quorum check. */
    private int[] counts = new int[64];
    /**
     * Which acceptors ever accepted (slot, ballot), by slot, one chain link per ballot: at a quorum
     * the value is chosen, noticed or not. Indexed by slot, so a publish allocates nothing to ask.
     */
    private Acceptors[] acceptedBy = new Acceptors[16]; // small at first: see SafetyChecker.chosen

    AcceptorAudit(final CoreConfig config, final SafetyChecker checker)
    {
        this.config = config;
        this.layout = config.layout();
        this.checker = checker;
        this.last = new PublishedStates[config.graph().n()];
        this.recordSlots = new long[config.recordMaxEntries()];
        this.recordBallots = new long[config.recordMaxEntries()];
        this.recordValueAt = new int[config.recordMaxEntries()];
    }

    /** Slots of each group proposed, by (first slot, ballot): an Accepted answers for all of them. */
    private final SlotBallotIndex<Integer> groupSlots = new SlotBallotIndex<>();

    /** A leader sent an Accept for {@code slots} slots from {@code firstSlot} at {@code ballot}. */
    void proposedGroup(final long ballot, final long firstSlot, final int slots)
    {
        final Integer before = groupSlots.get(firstSlot, ballot);
        if (before == null || before < slots)
        {
            groupSlots.put(firstSlot, ballot, slots);
        }
    }

    /**
     * A reply left an executor: it may carry only state that acceptor q published. A Promise must
     * be exactly one of q's published states (promise, floor and every entry); an Accepted naming
     * q for (b, first) needs q's published state to hold every slot of the group at a ballot of
     * at least b, or to have reclaimed it (states only move forwards, so the newest published state
     * is the one to ask). Every slot, not only the first: a group whose first slot lies below the
     * floor and the rest above is accepted for none of them.
     */
    void replied(final int executor, final Message m)
    {
        if (checker.violation() != null)
        {
            return;
        }
        if (m instanceof Message.Promise)
        {
            final Message.Promise p = (Message.Promise)m;
            long sum = 0;
            boolean aboveOmitted = true;
            for (int i = 0; i < p.slots.length; i++)
            {
                sum += entry(p.slots[i], p.ballots[i], p.values[i], 0, p.values[i].length);
                aboveOmitted &= p.slots[i] > p.omittedThrough;
            }
            final long h = fingerprint(p.ballot, p.floor, p.slots.length, sum);
            // A Promise that left out the entries through omittedThrough reports the tail of a state:
            // every entry it holds lies above that slot, and the tail is one of a published state's.
            final boolean held = last[p.acceptor] != null && aboveOmitted && (last[p.acceptor].everPublished(h) ||
                p.omittedThrough >= 0 && last[p.acceptor].holdsTail(p.ballot, p.floor, p.omittedThrough,
                    p.slots.length, sum));
            if (!held)
            {
                checker.acceptorViolation("reply: executor " + executor + " sent a Promise of acceptor " + p.acceptor +
                    " for ballot " + p.ballot + " (floor " + p.floor + ", slots " + Arrays.toString(p.slots) +
                    " at " + Arrays.toString(p.ballots) + ") that no published state of the acceptor holds; now " +
                    last[p.acceptor]);
            }
        }
        else if (m instanceof Message.Accepted)
        {
            final Message.Accepted a = (Message.Accepted)m;
            final Integer group = groupSlots.get(a.firstSlot, a.ballot);
            final int slots = group == null ? 1 : group;
            for (final int q : a.acceptors)
            {
                final PublishedStates r = last[q] != null && last[q].any() ? last[q] : null;
                int i = r == null ? 0 : r.indexAtOrAbove(a.firstSlot);
                if (r != null && r.holdsAtLeast(i, a.firstSlot, slots, a.ballot))
                {
                    continue; // every slot of the group, in order, at the ballot or above
                }
                for (long s = a.firstSlot; s < a.firstSlot + slots; s++)
                {
                    while (r != null && i < r.count() && r.slot(i) < s)
                    {
                        i++; // entries are sorted by slot: one walk over the group
                    }
                    final boolean holds = r != null && i < r.count() && r.slot(i) == s && r.ballot(i) >= a.ballot;
                    if (r == null || r.floor() <= s && !holds)
                    {
                        checker.acceptorViolation("reply: executor " + executor + " sent Accepted of acceptor " + q +
                            " for slot " + s + " (group from " + a.firstSlot + ") at ballot " + a.ballot +
                            ", but its published state is " + r);
                        return;
                    }
                }
            }
        }
    }

    /**
     * Acceptor q accepted (slot, ballot). Once a quorum did, the value is chosen, whether or not
     * any proposer counts it: every later proposal for the slot must carry it (the claim of the
     * agreement proof), which {@link SafetyChecker#proposedAt} then checks.
     */
    private void chosenIfQuorum(final int q, final long slot, final long ballot)
    {
        if (slot >= acceptedBy.length)
        {
            acceptedBy = Arrays.copyOf(acceptedBy, (int)Math.max(slot + 1, acceptedBy.length * 2L));
        }
        Acceptors who = acceptedBy[(int)slot];
        while (who != null && who.ballot != ballot)
        {
            who = who.next;
        }
        if (who == null)
        {
            who = new Acceptors(ballot, acceptedBy[(int)slot], config.graph().n());
            acceptedBy[(int)slot] = who;
        }
        if (!who.bits.get(q))
        {
            who.bits.set(q);
            if (++who.count == config.graph().n() / 2 + 1)
            {
                checker.decidedAt(slot, ballot);
            }
        }
    }

    /** The acceptors that accepted one (slot, ballot), and how many they are; the slot's other ballots follow. */
    private static final class Acceptors
    {
        final long ballot;
        final Acceptors next;
        final java.util.BitSet bits;
        int count;

        /** {@code n} acceptors: the set is made that large at once, not grown six times as acceptors come. */
        Acceptors(final long ballot, final Acceptors next, final int n)
        {
            this.ballot = ballot;
            this.next = next;
            this.bits = new java.util.BitSet(n);
        }
    }

    private static final long SEED = 0x6D6D785F61756474L;

    private static long mix(final long h, final long x)
    {
        long z = (h ^ x) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        return z ^ (z >>> 31);
    }

    /** One entry's hash, of value words [from, from + length); a state's fingerprint sums them. */
    private static long entry(final long slot, final long ballot, final long[] words, final int from, final int length)
    {
        long e = mix(mix(mix(SEED, slot), ballot), length);
        for (int i = from; i < from + length; i++)
        {
            e = mix(e, words[i]);
        }
        return e;
    }

    /**
     * The entry hash of the proposal for (slot, ballot), which every acceptor that accepts it
     * holds: computed once per proposal, not once per acceptor.
     */
    private long proposalEntry(final long slot, final long ballot, final long[] proposal)
    {
        if (slot >= entryHashBallot.length)
        {
            final int old = entryHashBallot.length;
            entryHashBallot = Arrays.copyOf(entryHashBallot, (int)Math.max(slot + 1, old * 2L));
            Arrays.fill(entryHashBallot, old, entryHashBallot.length, Long.MIN_VALUE);
            entryHash = Arrays.copyOf(entryHash, entryHashBallot.length);
        }
        final int s = (int)slot;
        if (entryHashBallot[s] != ballot)
        {
            entryHashBallot[s] = ballot;
            entryHash[s] = entry(slot, ballot, proposal, 0, proposal.length);
        }
        return entryHash[s];
    }

    /** Per slot: the ballot whose proposal's entry hash {@link #entryHash} holds (MIN_VALUE: none). */
    private long[] entryHashBallot = filled(new long[16]); // small at first: see SafetyChecker.chosen
    private long[] entryHash = new long[16];

    private static long[] filled(final long[] a)
    {
        Arrays.fill(a, Long.MIN_VALUE);
        return a;
    }

    private static long fingerprint(final long promised, final long floor, final int count, final long entrySum)
    {
        return mix(mix(mix(SEED, promised), floor), count) + entrySum;
    }

    /** States kept per acceptor for tail checks: 64 in the sweeps' small clusters, 8 at n = 4096. */
    private static int recentStates(final int n, final int maxEntries)
    {
        return Math.max(8, Math.min(64, (1 << 22) / (n * (2 * maxEntries + 3))));
    }

    /**
     * A proposer counted a quorum for {@code ballot}: check it against the acceptors' published
     * states. Promises never decrease, so every acceptor that promised b still has promised ≥ b;
     * an acceptor that accepted (s, b) still holds s at a ballot ≥ b, or reclaimed it (floor &gt; s).
     * Fewer than a quorum such acceptors means the proposer counted something that is not distinct
     * acceptors. Lost regions keep their last audited state here (they never come back).
     */
    void quorumCounted(final int proposer, final long ballot, final long firstSlot, final int slots)
    {
        if (checker.violation() != null)
        {
            return;
        }
        final int quorum = config.graph().n() / 2 + 1;
        if (slots > 0 && everyAcceptedByQuorum(firstSlot, slots, ballot, quorum))
        {
            return;
        }
        final int k = Math.max(1, slots);
        if (counts.length < k)
        {
            counts = new int[k];
        }
        Arrays.fill(counts, 0, k, 0);
        for (final PublishedStates r : last)
        {
            if (r == null || !r.any())
            {
                continue;
            }
            if (slots == 0)
            {
                counts[0] += r.promised() >= ballot ? 1 : 0;
                continue;
            }
            // Slots below the floor were reclaimed: they count. Above it, when the state holds every
            // slot left (sorted and distinct: its first and last are enough to tell), one entry per
            // slot in order; otherwise one walk over the group's slots.
            final int below = (int)Math.max(0, Math.min(slots, r.floor() - firstSlot));
            for (int j = 0; j < below; j++)
            {
                counts[j]++;
            }
            int i = r.indexAtOrAbove(firstSlot + below);
            final int rest = slots - below;
            if (rest > 0 && r.holdsRun(i, firstSlot + below, rest))
            {
                for (int j = below; j < slots; j++)
                {
                    counts[j] += r.ballot(i + j - below) >= ballot ? 1 : 0;
                }
                continue;
            }
            for (int j = below; j < slots; j++)
            {
                final long s = firstSlot + j;
                while (i < r.count() && r.slot(i) < s)
                {
                    i++;
                }
                if (i < r.count() && r.slot(i) == s && r.ballot(i) >= ballot)
                {
                    counts[j]++;
                }
            }
        }
        for (int j = 0; j < k; j++)
        {
            if (slots > 0)
            {
                checker.decidedAt(firstSlot + j, ballot);
            }
            if (counts[j] < quorum)
            {
                checker.acceptorViolation("quorum: process " + proposer + " counted a quorum of " +
                    (slots == 0 ? "promises" : "acceptances of slot " + (firstSlot + j)) + " for ballot " + ballot +
                    ", but only " + counts[j] + " acceptors' published states show it (a quorum is " + quorum + ")");
                return;
            }
        }
    }

    /**
     * The fast answer of {@link #quorumCounted} for a phase-2 quorum: whether a quorum of acceptors
     * published each slot of the group at {@code ballot} ({@link #acceptedBy}). Enough, because a
     * publish is checked never to lose an entry above the floor nor lower its ballot: an acceptor
     * that once published (s, b) still shows s at b or above, or reclaimed it. When it says no, the
     * walk over every acceptor's state decides (it also counts higher ballots and reclaimed slots),
     * so the verdicts are the walk's, found without visiting thousands of states per group.
     */
    private boolean everyAcceptedByQuorum(final long firstSlot, final int slots, final long ballot, final int quorum)
    {
        for (long s = firstSlot; s < firstSlot + slots; s++)
        {
            Acceptors who = s < acceptedBy.length ? acceptedBy[(int)s] : null;
            while (who != null && who.ballot != ballot)
            {
                who = who.next;
            }
            if (who == null || who.count < quorum)
            {
                return false;
            }
        }
        return true; // and chosenIfQuorum told the checker each slot is decided at the quorum
    }

    /**
     * Acceptor q's head changed: check the record it points to against the last one published.
     * Entries that did not change were checked when they were published (the promise only rises
     * and a (slot, ballot)'s proposal never changes), so only new and changed ones are checked and
     * hashed: a delta record costs what it holds, and a whole one a walk beside the last state.
     */
    void published(final int q, final SimRegion region, final int executor)
    {
        if (checker.violation() != null)
        {
            return;
        }
        final long head = region.get(RegionLayout.HEAD_WORD);
        final int lane = RegionLayout.headLane(head);
        final int index = RegionLayout.headIndex(head);
        if (lane >= layout.laneCount() || index >= layout.recordsPerLane())
        {
            checker.acceptorViolation(where(q, executor, head) + ": the head names no record slot");
            return;
        }
        if (last[q] == null)
        {
            final int recentStates = recentStates(config.graph().n(), config.recordMaxEntries());
            last[q] = new PublishedStates(recentStates, config.recordMaxEntries() + recentStates * config.maxSlotsPerAccept(),
                layout.chainDepth() + 1);
        }
        final PublishedStates r = last[q];
        final int offset = layout.recordOffsetWords(lane, index);
        final long depth = region.get(offset + AcceptorRecord.DEPTH);
        final long prev = region.get(offset + AcceptorRecord.PREV);
        if (depth != 0 && (!r.any() || prev != r.lastHead() || depth != r.chainLength() || depth > layout.chainDepth()))
        {
            checker.acceptorViolation(where(q, executor, head) + ": a delta record of depth " + depth + " on head " +
                Long.toHexString(prev) + ", but the head it replaced is " + Long.toHexString(r.lastHead()) +
                " with a chain of " + r.chainLength() + " records (at most " + (layout.chainDepth() + 1) + ")");
            return;
        }
        // Read the record's own length, not its slot: what lies after it is not part of the state.
        final int slotWords = layout.recordSlotWords(index);
        final int available = (int)Math.max(0, Math.min(slotWords, region.get(offset + AcceptorRecord.LENGTH)));
        // Where the record lies in one piece of the simulator's memory it is read there; else copied.
        record = available > 0 ? region.slabHolding(offset, available) : null;
        final int at = record == null ? 0 : region.slabIndex(offset);
        if (record == null)
        {
            if (recordWords.length < available)
            {
                recordWords = new long[Math.min(layout.recordCapacityWords(), Math.max(available, 2 * recordWords.length))];
            }
            region.read(offset, recordWords, available);
            record = recordWords;
        }
        final int n = AcceptorRecord.index(record, at, available, RegionLayout.headSeq(head), config.recordMaxEntries(),
            config.valueWords(), recordSlots, recordBallots, recordValueAt);
        if (n < 0)
        {
            checker.acceptorViolation(where(q, executor, head) + ": the head was published pointing to a record that is not whole");
            return;
        }
        final long promise = record[at + AcceptorRecord.PROMISED];
        final long newFloor = record[at + AcceptorRecord.FLOOR];
        if (r.any() && (promise < r.promised() || newFloor < r.floor()))
        {
            checker.acceptorViolation(where(q, executor, head) + ": promise or floor went down: " + r + " -> promised " +
                promise + ", floor " + newFloor);
            return;
        }
        if (depth == 0)
        {
            wholeChecked(q, executor, head, r, n, promise, newFloor);
        }
        else
        {
            deltaChecked(q, executor, head, r, n, promise, newFloor);
        }
        if (checker.violation() != null)
        {
            return;
        }
        r.chained(head, lane * layout.recordsPerLane() + index, (int)depth);
        r.published(fingerprint(r.promised(), r.floor(), r.count(), r.sum()));
    }

    /** Reading space for a published record and its index. */
    private long[] recordWords = new long[0];
    /** The words of the record being audited: a slab of the region, or {@link #recordWords}; {@link #recordValueAt} indexes it. */
    private long[] record;
    private final long[] recordSlots;
    private final long[] recordBallots;
    private final int[] recordValueAt;

    /**
     * A new or changed entry i of the record just read, at or above the floor: accepted at most at
     * the promise, and holding the proposal of its (slot, ballot). Returns its hash, or 0 after
     * reporting a violation. {@code changedBallot}: the slot was not held at this ballot before.
     */
    private long entryChecked(final int q, final int executor, final long head, final int i, final long promise,
        final boolean changedBallot)
    {
        final long slot = recordSlots[i];
        final long ballot = recordBallots[i];
        if (ballot > promise)
        {
            checker.acceptorViolation(where(q, executor, head) + ": slot " + slot + " accepted at " + ballot +
                " above the promise " + promise);
            return 0;
        }
        final long[] proposed = checker.proposalAt(slot, ballot);
        final int at = recordValueAt[i];
        final int length = (int)record[at - 1];
        if (proposed == null || !Arrays.equals(record, at, at + length, proposed, 0, proposed.length))
        {
            checker.acceptorViolation(where(q, executor, head) + ": slot " + slot + " at ballot " + ballot +
                " holds " + Arrays.toString(Arrays.copyOfRange(record, at, at + length)) + ", but the proposal was " +
                (proposed == null ? "never made" : Arrays.toString(proposed)));
            return 0;
        }
        if (changedBallot)
        {
            chosenIfQuorum(q, slot, ballot);
        }
        return proposalEntry(slot, ballot, proposed);
    }

    /**
     * A whole record: every entry of the last state at or above the new floor is still there at
     * its ballot or a higher one, and every entry is checked ({@link #entryChecked}); unchanged
     * ones keep their hash.
     */
    private void wholeChecked(final int q, final int executor, final long head, final PublishedStates r, final int n,
        final long promise, final long newFloor)
    {
        final int before = r.count();
        if (keepsAndAppends(r, n, newFloor))
        {
            // What a delta would have said: the held entries from the floor on, then new ones above.
            final int drop = r.indexAtOrAbove(newFloor);
            final int kept = before - drop;
            for (int i = 0; i < kept; i++)
            {
                entryChecked(q, executor, head, i, promise, false);
                if (checker.violation() != null)
                {
                    return;
                }
            }
            appendChecked(q, executor, head, r, kept, n, drop, promise, newFloor);
            return;
        }
        r.begin(n);
        int j = 0;
        for (int i = 0; i <= n; i++)
        {
            final long slot = i < n ? recordSlots[i] : Long.MAX_VALUE;
            // Entries of the last state below this slot are gone from the new one: reclaimed, or lost.
            for (; j < before && r.slot(j) < slot; j++)
            {
                if (r.slot(j) >= newFloor)
                {
                    checker.acceptorViolation(where(q, executor, head) + ": slot " + r.slot(j) + " accepted at " +
                        r.ballot(j) + " was lost or went back: " + r);
                    return;
                }
            }
            if (i == n)
            {
                break;
            }
            final boolean held = j < before && r.slot(j) == slot;
            if (slot < newFloor)
            {
                checker.acceptorViolation(where(q, executor, head) + ": slot " + slot + " held below the floor " + newFloor);
                return;
            }
            if (held && recordBallots[i] < r.ballot(j))
            {
                checker.acceptorViolation(where(q, executor, head) + ": slot " + slot + " accepted at " + r.ballot(j) +
                    " was lost or went back to " + recordBallots[i] + ": " + r);
                return;
            }
            final boolean same = held && recordBallots[i] == r.ballot(j);
            final long hash = entryChecked(q, executor, head, i, promise, !same);
            if (checker.violation() != null)
            {
                return;
            }
            r.add(slot, recordBallots[i], hash);
            if (held)
            {
                j++;
            }
        }
        r.commit(promise, newFloor);
    }

    /**
     * The new state is the last one from entry {@code drop} on, then the record's entries
     * {@code from..n-1}, all above it: each is checked ({@link #entryChecked}) and appended.
     */
    private void appendChecked(final int q, final int executor, final long head, final PublishedStates r, final int from,
        final int n, final int drop, final long promise, final long newFloor)
    {
        r.beginAppend(n - from);
        for (int i = from; i < n; i++)
        {
            final long hash = entryChecked(q, executor, head, i, promise, true);
            if (checker.violation() != null)
            {
                return;
            }
            r.add(recordSlots[i], recordBallots[i], hash);
        }
        r.commitAppended(drop, promise, newFloor);
    }

    /**
     * Whether the whole record just read holds the last state's entries from {@code newFloor} on,
     * at the same ballots, and then only slots above them: then the state is kept as a delta's is.
     */
    private boolean keepsAndAppends(final PublishedStates r, final int n, final long newFloor)
    {
        if (!r.any())
        {
            return false;
        }
        final int before = r.count();
        final int drop = r.indexAtOrAbove(newFloor);
        final int kept = before - drop;
        if (n < kept || n > kept && kept > 0 && recordSlots[kept] <= r.slot(before - 1))
        {
            return false;
        }
        for (int i = 0; i < kept; i++)
        {
            if (recordSlots[i] != r.slot(drop + i) || recordBallots[i] != r.ballot(drop + i))
            {
                return false;
            }
        }
        return n == kept || recordSlots[kept] >= newFloor;
    }

    /**
     * A delta record: the last state with the entries below the new floor dropped and the delta's
     * entries put over it, each checked ({@link #entryChecked}); the delta's entries are sorted,
     * distinct and inside the new window, as a transition writes them.
     */
    private void deltaChecked(final int q, final int executor, final long head, final PublishedStates r, final int n,
        final long promise, final long newFloor)
    {
        // Sorted and distinct already (AcceptorRecord.index refuses a record that is not), so the
        // first and the last entry tell whether all lie in the window.
        if (n > 0 && (recordSlots[0] < newFloor || recordSlots[n - 1] >= newFloor + config.recordMaxEntries()))
        {
            checker.acceptorViolation(where(q, executor, head) + ": a delta record's entries " + recordSlots[0] + ".." +
                recordSlots[n - 1] + " lie outside the window from the floor " + newFloor);
            return;
        }
        final int before = r.count();
        final int drop = r.indexAtOrAbove(newFloor);
        if (n == 0 || before == 0 || recordSlots[0] > r.slot(before - 1))
        {
            // New slots above every held one, the old ones below the floor dropped: the common transition.
            if (before - drop + n > config.recordMaxEntries())
            {
                checker.acceptorViolation(where(q, executor, head) + ": more than " + config.recordMaxEntries() +
                    " entries held");
                return;
            }
            appendChecked(q, executor, head, r, 0, n, drop, promise, newFloor);
            return;
        }
        // A slot accepted again or below the last held one: merge the two in slot order.
        r.begin(before - drop + n);
        int j = drop;
        int count = 0;
        for (int i = 0; i <= n; i++)
        {
            final long slot = i < n ? recordSlots[i] : Long.MAX_VALUE;
            for (; j < before && r.slot(j) < slot; j++, count++)
            {
                r.add(r.slot(j), r.ballot(j), r.hash(j));
            }
            if (i == n)
            {
                break;
            }
            final boolean held = j < before && r.slot(j) == slot;
            if (held && recordBallots[i] < r.ballot(j))
            {
                checker.acceptorViolation(where(q, executor, head) + ": slot " + slot + " accepted at " + r.ballot(j) +
                    " went back to " + recordBallots[i] + ": " + r);
                return;
            }
            final long hash = entryChecked(q, executor, head, i, promise, !held || recordBallots[i] != r.ballot(j));
            if (checker.violation() != null)
            {
                return;
            }
            r.add(slot, recordBallots[i], hash);
            count++;
            if (held)
            {
                j++;
            }
        }
        if (count > config.recordMaxEntries())
        {
            checker.acceptorViolation(where(q, executor, head) + ": more than " + config.recordMaxEntries() +
                " entries held");
            return;
        }
        r.commit(promise, newFloor);
    }

    /**
     * Words [offset, offset + length) of region q were written: no record of the chain its head
     * names may change while the head stays (readers follow that chain and trust it when the head
     * did not move: docs/protocol.md §3).
     */
    void wrote(final int q, final int offset, final int length)
    {
        // The layout first: a write that touches no record slot (the decided log) needs nothing of q's.
        final int first = layout.recordSlotAt(offset);
        final int lastSlot = layout.recordSlotAt(offset + length - 1);
        if (first < 0 && lastSlot < 0 || checker.violation() != null || last[q] == null)
        {
            return;
        }
        final PublishedStates r = last[q];
        for (int k = 0; k < r.chainLength(); k++)
        {
            final int slot = r.chainLink(k);
            if ((first < 0 || slot >= first) && (lastSlot < 0 || slot <= lastSlot))
            {
                checker.acceptorViolation("acceptor " + q + ": a write of " + length + " words at word " + offset +
                    " changed record slot " + slot % layout.recordsPerLane() + " of lane " + slot / layout.recordsPerLane() +
                    ", link " + k + " of the chain its head " + Long.toHexString(r.lastHead()) + " names");
                return;
            }
        }
    }

    /** Region q was formatted again, empty: its head is the initial state, with no chain. */
    void formatted(final int q)
    {
        if (last[q] != null)
        {
            last[q].formatted();
        }
    }

    private static String where(final int q, final int executor, final long head)
    {
        return "acceptor " + q + " (executor " + executor + ", head seq " + RegionLayout.headSeq(head) + ")";
    }
}
