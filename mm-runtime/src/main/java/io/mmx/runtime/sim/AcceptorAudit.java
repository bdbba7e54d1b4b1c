package io.mmx.runtime.sim;

import io.mmx.runtime.core.AcceptorRecord;
import io.mmx.runtime.core.CoreConfig;
import io.mmx.runtime.core.RegionLayout;

import java.util.Arrays;

/**
 * Checks every published acceptor transition, at the moment its head word changes: the record is
 * whole; the promise and the floor never decrease; no accepted ballot exceeds the promise; no
 * entry at or above the floor is lost or goes back to a lower ballot; and a value accepted at
 * ballot b for slot s is the one proposed for (s, b).
 */
final class AcceptorAudit
{
    private final CoreConfig config;
    private final RegionLayout layout;
    private final SafetyChecker checker;
    private final AcceptorRecord[] last;
    private long[] words;

    AcceptorAudit(final CoreConfig config, final SafetyChecker checker)
    {
        this.config = config;
        this.layout = config.layout();
        this.checker = checker;
        this.last = new AcceptorRecord[config.graph().n()];
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
        last[q] = now;
    }
}
