package io.mmx.runtime.sim;

import java.util.Arrays;

/**
 * Always-on safety checks over every decision of every process:
 * agreement (one value per slot, whether a proposer counted a quorum, a learner applied it, or
 * anyone learned it from a Commit or a decided-log read), validity (only proposed ids, or the
 * empty no-op), integrity (no proposal id in two slots; each process applies slots
 * consecutively; after a restart a process applies at each slot what the cluster decided
 * there, so never other than what it applied before its crash), one value per (slot, ballot)
 * proposed, and the acceptor invariants of {@link AcceptorAudit}.
 * The first violation is kept with a description; the simulation stops on it.
 */
public final class SafetyChecker
{
    private static final long UNKNOWN = Long.MIN_VALUE;

    // Slot-indexed arrays start small and double: their growth is then taken while the JIT still
    // profiles, not first at slot 1024 of a large run, in compiled code, where the untaken branch
    // is a trap that deoptimises every method it was inlined into (C2 then compiled the audit's
    // walks five times per n = 4096 run).
    private long[][] chosen = new long[16][];
    private long chosenCount;
    private long chosenThrough = -1;
    private long[] proposedBits = new long[16];
    private long[] idSlot = new long[16];
    private final long[] lastApplied;
    private String violation;
    private final SlotBallotIndex<long[]> proposals = new SlotBallotIndex<>();

    SafetyChecker(final int n)
    {
        lastApplied = new long[n];
        Arrays.fill(lastApplied, UNKNOWN);
    }

    /** The first safety violation seen, or null. */
    public String violation()
    {
        return violation;
    }

    /** Slots decided by anyone. */
    public long chosenCount()
    {
        return chosenCount;
    }

    /** Highest slot such that every slot up to it is decided by someone. */
    public long chosenThrough()
    {
        return chosenThrough;
    }

    void proposed(final long id)
    {
        final int w = (int)(id >>> 6);
        if (w >= proposedBits.length)
        {
            proposedBits = Arrays.copyOf(proposedBits, Math.max(w + 1, proposedBits.length * 2));
        }
        proposedBits[w] |= 1L << (id & 63);
    }

    private boolean wasProposed(final long id)
    {
        final long w = id >>> 6;
        return id >= 0 && w < proposedBits.length && (proposedBits[(int)w] & (1L << (id & 63))) != 0;
    }

    /** A process restarted: its next decision may start anywhere at or after its recovered prefix. */
    void restarted(final int p)
    {
        lastApplied[p] = UNKNOWN;
    }

    /** Process {@code p} skipped decided slots it could no longer retrieve (state transfer). */
    void skipped(final int p, final long toSlot)
    {
        lastApplied[p] = toSlot;
    }

    /** Lowest ballot at which a proposer counted a quorum of acceptances, per slot. */
    private long[] decidedBallot = filled(new long[16], 0);

    private static long[] filled(final long[] a, final int from)
    {
        Arrays.fill(a, from, a.length, NOT_DECIDED);
        return a;
    }

    private static final long NOT_DECIDED = Long.MAX_VALUE;

    /** A proposer counted a quorum accepting {@code slot} at {@code ballot}. */
    void decidedAt(final long slot, final long ballot)
    {
        if (slot >= decidedBallot.length)
        {
            final int old = decidedBallot.length;
            decidedBallot = filled(Arrays.copyOf(decidedBallot, (int)Math.max(slot + 1, old * 2L)), old);
        }
        decidedBallot[(int)slot] = Math.min(decidedBallot[(int)slot], ballot);
    }

    /** A leader sent an Accept proposing {@code value} for {@code slot} at {@code ballot}. */
    void proposedAt(final int leader, final long slot, final long ballot, final long[] value)
    {
        // The claim agreement rests on: once (slot, b) is decided, every proposal at a ballot above
        // b carries the decided value (checked whether or not that proposal is ever decided).
        final long b = slot < decidedBallot.length ? decidedBallot[(int)slot] : NOT_DECIDED;
        if (b != NOT_DECIDED && ballot > b && violation == null)
        {
            final long[] chosenValue = proposals.get(slot, b);
            if (chosenValue != null && !Arrays.equals(chosenValue, value))
            {
                violation = "proposal: slot " + slot + " was decided at ballot " + b + " as " +
                    Arrays.toString(chosenValue) + ", yet process " + leader + " proposes " + Arrays.toString(value) +
                    " at ballot " + ballot;
                return;
            }
        }
        final long[] before = proposals.putIfAbsent(slot, ballot, value);
        if (before != null && before != value && !Arrays.equals(before, value) && violation == null)
        {
            violation = "one value per ballot: slot " + slot + " proposed at ballot " + ballot + " as " +
                Arrays.toString(before) + " and as " + Arrays.toString(value) + " (by process " + leader + ")";
        }
    }

    long[] proposalAt(final long slot, final long ballot)
    {
        return proposals.get(slot, ballot);
    }

    void acceptorViolation(final String description)
    {
        if (violation == null)
        {
            violation = "acceptor: " + description;
        }
    }

    /** Process {@code p} learned a decision (quorum counted, Commit, decided-log read), applied or not. */
    void learned(final int p, final long slot, final long[] value)
    {
        if (violation == null)
        {
            register(p, slot, value, "learned");
        }
    }

    /**
     * {@link #learned} of a run of slots from {@code firstSlot}. A run checked already (the same
     * array at the same slots) is not checked again: {@link #register} of a slot already chosen
     * only compares, and it compared equal the first time. A Commit's run reaches every learner,
     * 4096 of them at n = 4096, as one array.
     */
    void learnedRun(final int p, final long firstSlot, final long[][] values)
    {
        if (checkedRun(values, firstSlot, 0, values.length))
        {
            return;
        }
        for (int k = 0; k < values.length && violation == null; k++)
        {
            register(p, firstSlot + k, values[k], "learned");
        }
        rememberRun(values, firstSlot, 0, values.length);
    }

    /** {@link #decided} of a run: slot {@code firstSlot + k} with {@code values[from + k]}; a run checked already is only ordered. */
    void decidedRun(final int p, final long firstSlot, final long[][] values, final int from, final int count)
    {
        if (count > 0 && violation == null && checkedRun(values, firstSlot, from, count))
        {
            if (lastApplied[p] != UNKNOWN && firstSlot != lastApplied[p] + 1)
            {
                violation = "integrity: process " + p + " applied slot " + firstSlot + " after slot " + lastApplied[p];
                return;
            }
            lastApplied[p] = firstSlot + count - 1;
            return;
        }
        for (int k = 0; k < count && violation == null; k++)
        {
            decided(p, firstSlot + k, values[from + k]);
        }
        rememberRun(values, firstSlot, from, count);
    }

    /** The array of the run checked last, the slot of its element 0, and the elements checked. */
    private long[][] checkedValues;
    private long checkedBase;
    private int checkedFrom;
    private int checkedTo;

    /** Whether {@code values[from, from + count)} at slots from {@code firstSlot} lie within the run checked last. */
    private boolean checkedRun(final long[][] values, final long firstSlot, final int from, final int count)
    {
        return values == checkedValues && firstSlot - from == checkedBase && from >= checkedFrom && from + count <= checkedTo;
    }

    private void rememberRun(final long[][] values, final long firstSlot, final int from, final int count)
    {
        if (violation == null)
        {
            checkedValues = values;
            checkedBase = firstSlot - from;
            checkedFrom = from;
            checkedTo = from + count;
        }
    }

    void decided(final int p, final long slot, final long[] value)
    {
        if (violation != null)
        {
            return;
        }
        if (lastApplied[p] != UNKNOWN && slot != lastApplied[p] + 1)
        {
            violation = "integrity: process " + p + " applied slot " + slot + " after slot " + lastApplied[p];
            return;
        }
        lastApplied[p] = slot;
        register(p, slot, value, "applied");
    }

    private void register(final int p, final long slot, final long[] value, final String how)
    {
        if (slot >= chosen.length)
        {
            chosen = Arrays.copyOf(chosen, (int)Math.max(slot + 1, chosen.length * 2L));
        }
        final long[] first = chosen[(int)slot];
        if (first != null)
        {
            if (!Arrays.equals(first, value))
            {
                violation = "agreement: slot " + slot + " decided as " + Arrays.toString(first) + " and as " +
                    Arrays.toString(value) + " (" + how + " by process " + p + ")";
                if (Boolean.getBoolean("mmx.sim.trace"))
                {
                    // Where the second decision came from, for whoever replays the seed with -Dmmx.sim.trace=true.
                    System.err.println("sim trace: " + violation + StackWalker.getInstance().walk(frames ->
                        frames.map(f -> "\n  at " + f).collect(java.util.stream.Collectors.joining())));
                }
            }
            return;
        }
        for (final long id : value)
        {
            if (!wasProposed(id))
            {
                violation = "validity: slot " + slot + " decided id " + id + " that no client proposed";
                return;
            }
            if (id >= idSlot.length)
            {
                idSlot = Arrays.copyOf(idSlot, (int)Math.max(id + 1, idSlot.length * 2L));
            }
            if (idSlot[(int)id] != 0)
            {
                violation = "integrity: proposal " + id + " decided in slot " + (idSlot[(int)id] - 1) + " and slot " + slot;
                return;
            }
            idSlot[(int)id] = slot + 1;
        }
        chosen[(int)slot] = value;
        chosenCount++;
        while (chosenThrough + 1 < chosen.length && chosen[(int)(chosenThrough + 1)] != null)
        {
            chosenThrough++;
        }
    }
}
