package io.mmx.runtime.sim;

import io.mmx.runtime.core.CoreConfig;
import io.mmx.runtime.core.Message;
import io.mmx.runtime.core.RegionLayout;

import org.agrona.collections.LongHashSet;

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
    private final PublishedState[] last;
    /** Per acceptor: fingerprints of every state it published (what a Promise may report). */
    private final LongHashSet[] states;
    /** Per acceptor: its last published states, whose tails a Promise may report. */
    private final RecentStates[] recent;
    /** Reading space for the next published record; it becomes {@code last[q]} when it passes. */
    private PublishedState spare;
    /** Per-slot counts of one quorum check. */
    private int[] counts = new int[64];
    /**
     * Which acceptors ever accepted (slot, ballot), by slot, one chain link per ballot: at a quorum
     * the value is chosen, noticed or not. Indexed by slot, so a publish allocates nothing to ask.
     */
    private Acceptors[] acceptedBy = new Acceptors[1024];

    AcceptorAudit(final CoreConfig config, final SafetyChecker checker)
    {
        this.config = config;
        this.layout = config.layout();
        this.checker = checker;
        this.last = new PublishedState[config.graph().n()];
        this.states = new LongHashSet[config.graph().n()];
        this.recent = new RecentStates[config.graph().n()];
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
            final boolean held = states[p.acceptor] != null && aboveOmitted && (states[p.acceptor].contains(h) ||
                p.omittedThrough >= 0 && recent[p.acceptor].holdsTail(p.ballot, p.floor, p.omittedThrough,
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
                final PublishedState r = last[q];
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
            who = new Acceptors(ballot, acceptedBy[(int)slot]);
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
        final java.util.BitSet bits = new java.util.BitSet();
        int count;

        Acceptors(final long ballot, final Acceptors next)
        {
            this.ballot = ballot;
            this.next = next;
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
    private long[] entryHashBallot = filled(new long[1024]);
    private long[] entryHash = new long[1024];

    private static long[] filled(final long[] a)
    {
        Arrays.fill(a, Long.MIN_VALUE);
        return a;
    }

    private static long fingerprint(final long promised, final long floor, final int count, final long entrySum)
    {
        return mix(mix(mix(SEED, promised), floor), count) + entrySum;
    }

    /**
     * An acceptor's last published states, by entry: a Promise that left out the entries through some
     * slot reports the rest of one of them. Tails of every state ever published would be as many keys
     * as entries (the n = 4096 simulation ran out of its heap with them); a Promise reports the state
     * its own transition just published, and more than a few publishes of one acceptor between that
     * transition's CAS and its completion would need more executors than an acceptor has.
     */
    private static final class RecentStates
    {
        private static final long[] NO_WORDS = new long[0];
        private final long[] promised;
        private final long[] floor;
        private final int[] count;
        // Each state's entries, grown to the entries it held: rows of the window's capacity for
        // every acceptor were the largest part of an n = 4096 run's memory.
        private final long[][] slots;
        private final long[][] hashes;
        private final int maxEntries;
        private int next;
        private int size;

        RecentStates(final int states, final int maxEntries)
        {
            promised = new long[states];
            floor = new long[states];
            count = new int[states];
            slots = new long[states][];
            hashes = new long[states][];
            java.util.Arrays.fill(slots, NO_WORDS);
            java.util.Arrays.fill(hashes, NO_WORDS);
            this.maxEntries = maxEntries;
        }

        void add(final PublishedState state)
        {
            final int i = next;
            promised[i] = state.promised();
            floor[i] = state.floor();
            count[i] = state.count();
            if (slots[i].length < state.count())
            {
                final int grown = Math.min(maxEntries, Math.max(state.count(), 2 * slots[i].length));
                slots[i] = new long[grown];
                hashes[i] = new long[grown];
            }
            for (int e = 0; e < state.count(); e++)
            {
                slots[i][e] = state.slot(e);
            }
            System.arraycopy(state.hashes, 0, hashes[i], 0, state.count());
            next = (next + 1) % promised.length;
            size = Math.min(size + 1, promised.length);
        }

        /** True if one of the states, its entries through {@code omitted} left out, is the Promise's. */
        boolean holdsTail(final long ballot, final long floorOf, final long omitted, final int entries, final long entrySum)
        {
            for (int j = 0; j < size; j++)
            {
                if (promised[j] != ballot || floor[j] != floorOf)
                {
                    continue;
                }
                int k = 0;
                while (k < count[j] && slots[j][k] <= omitted)
                {
                    k++;
                }
                if (count[j] - k != entries)
                {
                    continue;
                }
                long sum = 0;
                for (int e = k; e < count[j]; e++)
                {
                    sum += hashes[j][e];
                }
                if (sum == entrySum)
                {
                    return true;
                }
            }
            return false;
        }
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
        final int k = Math.max(1, slots);
        if (counts.length < k)
        {
            counts = new int[k];
        }
        Arrays.fill(counts, 0, k, 0);
        for (final PublishedState r : last)
        {
            if (r == null)
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
     * Acceptor q's head changed: check the record it points to against the last one published.
     * Entries that did not change were checked when they were published (the promise only rises
     * and a (slot, ballot)'s proposal never changes), so only new and changed ones are checked
     * and hashed again: a publish costs a copy of the record's words and one walk, comparing
     * words, not a check of the whole window.
     */
    void published(final int q, final SimRegion region, final int executor)
    {
        if (checker.violation() != null)
        {
            return;
        }
        final long head = region.get(RegionLayout.HEAD_WORD);
        final PublishedState before = last[q];
        final PublishedState now = spare != null ? spare : new PublishedState(config.recordMaxEntries(), config.valueWords());
        spare = null;
        if (!now.read(region, layout.recordOffsetWords(RegionLayout.headLane(head), RegionLayout.headIndex(head)),
            layout.recordCapacityWords(), RegionLayout.headSeq(head)))
        {
            spare = now;
            checker.acceptorViolation(where(q, executor, head) + ": the head was published pointing to a record that is not whole");
            return;
        }
        if (before != null && (now.promised() < before.promised() || now.floor() < before.floor()))
        {
            checker.acceptorViolation(where(q, executor, head) + ": promise or floor went down: " + before + " -> " + now);
            return;
        }
        final long sum = entriesChecked(q, executor, head, before, now);
        if (checker.violation() != null)
        {
            return;
        }
        last[q] = now;
        spare = before;
        if (states[q] == null)
        {
            states[q] = new LongHashSet(64); // about as many states as one acceptor publishes in a run
        }
        states[q].add(fingerprint(now.promised(), now.floor(), now.count(), sum));
        if (recent[q] == null)
        {
            recent[q] = new RecentStates(recentStates(config.graph().n(), config.recordMaxEntries()),
                config.recordMaxEntries());
        }
        recent[q].add(now); // its tails, which a Promise reports when the Prepare named applied slots
    }

    /**
     * The walk of {@link #published} over the new state's entries beside the last state's: the
     * state's entry-hash sum, or 0 after reporting a violation. Its own method, so that the
     * compiler's work on this loop is not redone each time it recompiles the rest of a publish.
     */
    private long entriesChecked(final int q, final int executor, final long head, final PublishedState before,
        final PublishedState now)
    {
        long sum = 0;
        final int beforeCount = before == null ? 0 : before.count();
        int j = 0;
        for (int i = 0; i <= now.count(); i++)
        {
            final long slot = i < now.count() ? now.slot(i) : Long.MAX_VALUE;
            // Entries of the last state below this slot are gone from the new one: reclaimed, or lost.
            for (; j < beforeCount && before.slot(j) < slot; j++)
            {
                if (before.slot(j) >= now.floor())
                {
                    checker.acceptorViolation(where(q, executor, head) + ": slot " + before.slot(j) + " accepted at " +
                        before.ballot(j) + " was lost or went back: " + before + " -> " + now);
                    return 0;
                }
            }
            if (i == now.count())
            {
                break;
            }
            final boolean held = j < beforeCount && before.slot(j) == slot;
            if (held)
            {
                // Entries unchanged since the last state: the same words; checked when they were published.
                final int run = now.sameRun(i, before, j);
                if (run > 0)
                {
                    System.arraycopy(before.hashes, j, now.hashes, i, run);
                    for (int k = i; k < i + run; k++)
                    {
                        sum += now.hashes[k];
                    }
                    i += run - 1;
                    j += run;
                    continue;
                }
            }
            if (held && now.ballot(i) < before.ballot(j))
            {
                checker.acceptorViolation(where(q, executor, head) + ": slot " + slot + " accepted at " +
                    before.ballot(j) + " was lost or went back: " + before + " -> " + now);
                return 0;
            }
            if (held && now.ballot(i) == before.ballot(j) && now.sameValue(i, before, j))
            {
                now.hashes[i] = before.hashes[j];
                sum += now.hashes[i];
                j++;
                continue; // unchanged: checked when it was published
            }
            if (now.ballot(i) > now.promised())
            {
                checker.acceptorViolation(where(q, executor, head) + ": slot " + slot + " accepted at " + now.ballot(i) +
                    " above the promise " + now.promised());
                return 0;
            }
            final long[] proposed = checker.proposalAt(slot, now.ballot(i));
            if (proposed == null || !now.holds(i, proposed))
            {
                checker.acceptorViolation(where(q, executor, head) + ": slot " + slot + " at ballot " + now.ballot(i) +
                    " holds " + Arrays.toString(now.value(i)) + ", but the proposal was " +
                    (proposed == null ? "never made" : Arrays.toString(proposed)));
                return 0;
            }
            if (!held || before.ballot(j) != now.ballot(i))
            {
                chosenIfQuorum(q, slot, now.ballot(i));
            }
            if (held)
            {
                j++;
            }
            now.hashes[i] = proposalEntry(slot, now.ballot(i), proposed);
            sum += now.hashes[i];
        }
        return sum;
    }

    private static String where(final int q, final int executor, final long head)
    {
        return "acceptor " + q + " (executor " + executor + ", head seq " + RegionLayout.headSeq(head) + ")";
    }
}
