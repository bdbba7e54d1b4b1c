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
    private final AcceptorRecord[] last;
    /** Per acceptor: fingerprints of every state it published (what a Promise may report). */
    private final java.util.HashSet<Long>[] states;
    private long[] words;
    /** Which acceptors ever accepted (slot, ballot): at a quorum the value is chosen, noticed or not. */
    private final java.util.HashMap<SlotBallot, java.util.BitSet> acceptedBy = new java.util.HashMap<>();

    AcceptorAudit(final CoreConfig config, final SafetyChecker checker)
    {
        this.config = config;
        this.layout = config.layout();
        this.checker = checker;
        this.last = new AcceptorRecord[config.graph().n()];
        @SuppressWarnings("unchecked")
        final java.util.HashSet<Long>[] sets = new java.util.HashSet[config.graph().n()];
        this.states = sets;
    }

    /** Slots of each group proposed, by (first slot, ballot): an Accepted answers for all of them. */
    private final java.util.HashMap<SlotBallot, Integer> groupSlots = new java.util.HashMap<>();

    /** A leader sent an Accept for {@code slots} slots from {@code firstSlot} at {@code ballot}. */
    void proposedGroup(final long ballot, final long firstSlot, final int slots)
    {
        groupSlots.merge(new SlotBallot(firstSlot, ballot), slots, Math::max);
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
            long h = mix(mix(SEED, p.ballot), p.floor);
            h = mix(h, p.slots.length);
            for (int i = 0; i < p.slots.length; i++)
            {
                h = entry(h, p.slots[i], p.ballots[i], p.values[i]);
            }
            if (states[p.acceptor] == null || !states[p.acceptor].contains(h))
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
            final int slots = groupSlots.getOrDefault(new SlotBallot(a.firstSlot, a.ballot), 1);
            for (final int q : a.acceptors)
            {
                final AcceptorRecord r = last[q];
                for (long s = a.firstSlot; s < a.firstSlot + slots; s++)
                {
                    final int i = r == null ? -1 : r.find(s);
                    if (r == null || r.floor() <= s && (i < 0 || r.ballot(i) < a.ballot))
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
        final java.util.BitSet who = acceptedBy.computeIfAbsent(new SlotBallot(slot, ballot), k -> new java.util.BitSet());
        if (!who.get(q))
        {
            who.set(q);
            if (who.cardinality() == config.graph().n() / 2 + 1)
            {
                checker.decidedAt(slot, ballot);
            }
        }
    }

    private static final long SEED = 0x6D6D785F61756474L;

    private static long mix(final long h, final long x)
    {
        long z = (h ^ x) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        return z ^ (z >>> 31);
    }

    private static long entry(final long h, final long slot, final long ballot, final long[] value)
    {
        long e = mix(mix(mix(h, slot), ballot), value.length);
        for (final long v : value)
        {
            e = mix(e, v);
        }
        return e;
    }

    private static long fingerprint(final AcceptorRecord r)
    {
        long h = mix(mix(SEED, r.promised()), r.floor());
        h = mix(h, r.count());
        for (int i = 0; i < r.count(); i++)
        {
            h = entry(h, r.slot(i), r.ballot(i), r.value(i));
        }
        return h;
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
        for (int k = 0; k < Math.max(1, slots); k++)
        {
            int count = 0;
            for (final AcceptorRecord r : last)
            {
                if (r == null)
                {
                    continue;
                }
                if (slots == 0)
                {
                    count += r.promised() >= ballot ? 1 : 0;
                }
                else
                {
                    final long s = firstSlot + k;
                    final int i = r.find(s);
                    count += r.floor() > s || i >= 0 && r.ballot(i) >= ballot ? 1 : 0;
                }
            }
            if (slots > 0)
            {
                checker.decidedAt(firstSlot + k, ballot);
            }
            if (count < quorum)
            {
                checker.acceptorViolation("quorum: process " + proposer + " counted a quorum of " +
                    (slots == 0 ? "promises" : "acceptances of slot " + (firstSlot + k)) + " for ballot " + ballot +
                    ", but only " + count + " acceptors' published states show it (a quorum is " + quorum + ")");
                return;
            }
        }
    }

    void published(final int q, final SimRegion region, final int executor)
    {
        if (checker.violation() != null)
        {
            return;
        }
        final long head = region.get(RegionLayout.HEAD_WORD);
        if (words == null)
        {
            words = new long[layout.recordCapacityWords()];
        }
        region.read(layout.recordOffsetWords(RegionLayout.headLane(head), RegionLayout.headIndex(head)), words,
            words.length);
        final AcceptorRecord now = new AcceptorRecord(config.recordMaxEntries(), config.valueWords());
        final String where = "acceptor " + q + " (executor " + executor + ", head seq " + RegionLayout.headSeq(head) + ")";
        if (!now.decode(words, 0, words.length, RegionLayout.headSeq(head)))
        {
            checker.acceptorViolation(where + ": the head was published pointing to a record that is not whole");
            return;
        }
        final AcceptorRecord before = last[q];
        if (before != null)
        {
            if (now.promised() < before.promised() || now.floor() < before.floor())
            {
                checker.acceptorViolation(where + ": promise or floor went down: " + before + " -> " + now);
                return;
            }
            for (int i = 0; i < before.count(); i++)
            {
                final long slot = before.slot(i);
                final int j = now.find(slot);
                if (slot >= now.floor() && (j < 0 || now.ballot(j) < before.ballot(i)))
                {
                    checker.acceptorViolation(where + ": slot " + slot + " accepted at " + before.ballot(i) +
                        " was lost or went back: " + before + " -> " + now);
                    return;
                }
            }
        }
        for (int i = 0; i < now.count(); i++)
        {
            if (now.ballot(i) > now.promised())
            {
                checker.acceptorViolation(where + ": slot " + now.slot(i) + " accepted at " + now.ballot(i) +
                    " above the promise " + now.promised());
                return;
            }
            final long[] proposed = checker.proposalAt(now.slot(i), now.ballot(i));
            if (proposed == null || !Arrays.equals(proposed, now.value(i)))
            {
                checker.acceptorViolation(where + ": slot " + now.slot(i) + " at ballot " + now.ballot(i) + " holds " +
                    Arrays.toString(now.value(i)) + ", but the proposal was " +
                    (proposed == null ? "never made" : Arrays.toString(proposed)));
                return;
            }
        }
        for (int i = 0; i < now.count(); i++)
        {
            final int j = before == null ? -1 : before.find(now.slot(i));
            if (j < 0 || before.ballot(j) != now.ballot(i))
            {
                chosenIfQuorum(q, now.slot(i), now.ballot(i));
            }
        }
        last[q] = now;
        if (states[q] == null)
        {
            states[q] = new java.util.HashSet<>();
        }
        states[q].add(fingerprint(now));
    }
}
