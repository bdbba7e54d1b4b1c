package io.mmx.runtime.sim;

import java.util.Arrays;

/**
 * Always-on safety checks over every decision of every process:
 * agreement (one value per slot), validity (only proposed ids, or the empty no-op),
 * integrity (no proposal id in two slots; each process applies slots consecutively).
 * The first violation is kept with a description; the simulation stops on it.
 */
public final class SafetyChecker
{
    private static final long UNKNOWN = Long.MIN_VALUE;

    private long[][] chosen = new long[1024][];
    private long chosenCount;
    private long chosenThrough = -1;
    private long[] proposedBits = new long[1024];
    private long[] idSlot = new long[1024];
    private final long[] lastApplied;
    private String violation;

    SafetyChecker(final int n)
    {
        lastApplied = new long[n];
        Arrays.fill(lastApplied, UNKNOWN);
    }

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
                    Arrays.toString(value) + " (by process " + p + ")";
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
