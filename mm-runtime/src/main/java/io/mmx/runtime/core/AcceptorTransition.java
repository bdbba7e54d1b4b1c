package io.mmx.runtime.core;

/**
 * The acceptor's transition function, pure: applied by whichever executor runs the transition to
 * a private copy of the current record, which is then published by one CAS of the head word.
 */
public final class AcceptorTransition
{
    /** What an Accept did to the record. */
    public enum AcceptOutcome
    {
        /** Every slot of the group is accepted at the ballot (possibly already was). */
        ACCEPTED,
        /** A higher ballot was promised: the acceptor refuses. */
        REFUSED_BALLOT,
        /**
         * The group reaches below the floor: those slots are decided and their entries reclaimed.
         * Nothing changes; the acceptor never claims to have accepted a reclaimed slot.
         */
        BELOW_FLOOR,
        /** The acceptor window has no room until the floor rises: the leader retries later. */
        WINDOW_FULL;

        /** Every outcome by ordinal. */
        static final AcceptOutcome[] ALL = values();
    }

    private AcceptorTransition()
    {
    }

    /** Phase 1: promise {@code ballot} if it is at least the promised one. Returns true if promised. */
    public static boolean prepare(final AcceptorRecord record, final long ballot)
    {
        if (ballot < record.promised())
        {
            return false;
        }
        record.promised(ballot);
        return true;
    }

    /** Phase 2: accept {@code values} for slots {@code firstSlot..} at {@code ballot}, all or nothing. */
    public static AcceptOutcome accept(
        final AcceptorRecord record, final long ballot, final long firstSlot, final long[][] values)
    {
        return accept(record, ballot, firstSlot, values, false);
    }

    /** {@code ignorePromise}: the {@link Flaw#ACCEPT_IGNORES_PROMISE} flaw (slots held at higher ballots stay). */
    static AcceptOutcome accept(final AcceptorRecord record, final long ballot, final long firstSlot,
        final long[][] values, final boolean ignorePromise)
    {
        if (ignorePromise)
        {
            if (firstSlot < record.floor())
            {
                return AcceptOutcome.BELOW_FLOOR;
            }
            if (!fits(record, firstSlot, values.length))
            {
                return AcceptOutcome.WINDOW_FULL;
            }
            for (int i = 0; i < values.length; i++)
            {
                final int at = record.find(firstSlot + i);
                if (at < 0 || record.ballot(at) <= ballot)
                {
                    record.put(firstSlot + i, ballot, values[i]);
                }
            }
            return AcceptOutcome.ACCEPTED;
        }
        if (ballot < record.promised())
        {
            return AcceptOutcome.REFUSED_BALLOT;
        }
        if (firstSlot < record.floor())
        {
            return AcceptOutcome.BELOW_FLOOR;
        }
        if (!fits(record, firstSlot, values.length))
        {
            return AcceptOutcome.WINDOW_FULL;
        }
        record.promised(ballot);
        record.putGroup(firstSlot, ballot, values);
        return AcceptOutcome.ACCEPTED;
    }

    /**
     * The acceptor window is a range of slots, {@code [floor, floor + maxEntries)}, not a count of
     * entries: every slot in it always fits, whichever of them the acceptor accepted before. With a
     * count, a record full of later slots refused an earlier one until the floor rose, and the floor
     * could not rise before that slot was decided (seed 107206: a leader decided slots with one
     * acceptor, then its host was lost; the survivor's record held the later slots only).
     */
    private static boolean fits(final AcceptorRecord record, final long firstSlot, final int count)
    {
        return firstSlot + count <= record.floor() + record.maxEntries();
    }

    /** True if the record shows every slot of the group accepted at exactly {@code ballot}. */
    public static boolean alreadyAccepted(
        final AcceptorRecord record, final long ballot, final long firstSlot, final int count)
    {
        if (firstSlot < record.floor())
        {
            return false;
        }
        for (int i = 0; i < count; i++)
        {
            final int e = record.find(firstSlot + i);
            if (e < 0 || record.ballot(e) != ballot)
            {
                return false;
            }
        }
        return true;
    }
}
