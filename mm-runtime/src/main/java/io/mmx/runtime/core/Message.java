package io.mmx.runtime.core;

/**
 * Protocol messages. Immutable; one broadcast object is shared by all receivers. Value arrays are
 * batches of proposal ids and are never modified after construction.
 */
public abstract class Message
{
    /** Message kinds, for dispatch and counting. */
    public enum Type
    {
        PREPARE, PROMISE, NACK, ACCEPT, ACCEPTED, FLOORED, COMMIT, CATCHUP_REQUEST, GONE
    }

    private final Type type;
    private final int from;

    Message(final Type type, final int from)
    {
        this.type = type;
        this.from = from;
    }

    public Type type()
    {
        return type;
    }

    /** The sending process. */
    public int from()
    {
        return from;
    }

    /** Phase 1a: promise {@code ballot}; report accepted entries at or above your floor. */
    public static final class Prepare extends Message
    {
        public final long ballot;

        public Prepare(final int from, final long ballot)
        {
            super(Type.PREPARE, from);
            this.ballot = ballot;
        }
    }

    /** Phase 1b: acceptor {@code acceptor}, executed by {@code executor}, promised {@code ballot}. */
    public static final class Promise extends Message
    {
        public final int acceptor;
        public final long ballot;
        public final long floor;
        public final long[] slots;
        public final long[] ballots;
        public final long[][] values;

        public Promise(
            final int executor, final int acceptor, final long ballot, final long floor,
            final long[] slots, final long[] ballots, final long[][] values)
        {
            super(Type.PROMISE, executor);
            this.acceptor = acceptor;
            this.ballot = ballot;
            this.floor = floor;
            this.slots = slots;
            this.ballots = ballots;
            this.values = values;
        }

        public int executor()
        {
            return from();
        }
    }

    /** Refusal: acceptor {@code acceptor} has promised {@code promised}, above {@code ballot}. */
    public static final class Nack extends Message
    {
        public final int acceptor;
        public final long ballot;
        public final long promised;

        public Nack(final int executor, final int acceptor, final long ballot, final long promised)
        {
            super(Type.NACK, executor);
            this.acceptor = acceptor;
            this.ballot = ballot;
            this.promised = promised;
        }
    }

    /** Phase 2a: accept {@code values} for slots {@code firstSlot..} at {@code ballot}. */
    public static final class Accept extends Message
    {
        public final long ballot;
        public final long firstSlot;
        public final long[][] values;
        /**
         * The leader's durable decided prefix (in its region's decided log): executors may raise
         * acceptor floors to it, and learners that missed commits know to catch up.
         */
        public final long durableThrough;

        /**
         * The acceptors this receiver should run the Accept for (thrifty phase 2), or null for
         * every acceptor it executes for (broadcasts and retransmissions).
         */
        public final int[] acceptors;

        /** Every slot up to here is decided as far as the leader knows: learners behind it catch up. */
        public final long decidedThrough;

        public Accept(final int leader, final long ballot, final long firstSlot, final long[][] values,
            final long durableThrough, final long decidedThrough)
        {
            this(leader, ballot, firstSlot, values, durableThrough, decidedThrough, null);
        }

        public Accept(final int leader, final long ballot, final long firstSlot, final long[][] values,
            final long durableThrough, final long decidedThrough, final int[] acceptors)
        {
            super(Type.ACCEPT, leader);
            this.ballot = ballot;
            this.firstSlot = firstSlot;
            this.values = values;
            this.durableThrough = durableThrough;
            this.decidedThrough = decidedThrough;
            this.acceptors = acceptors;
        }

        public int count()
        {
            return values.length;
        }
    }

    /**
     * Phase 2b, bundled: executor {@code from} ran the Accept of group {@code firstSlot} at
     * {@code ballot} for each acceptor in {@code acceptors} (the "list of messages" of m&amp;m):
     * each of them accepted every slot of the group at {@code ballot}.
     */
    public static final class Accepted extends Message
    {
        public final long ballot;
        public final long firstSlot;
        public final int[] acceptors;
        /** The executor's durable decided prefix: the leader passes the highest on to all executors. */
        public final long durableThrough;

        public Accepted(final int executor, final long ballot, final long firstSlot, final int[] acceptors,
            final long durableThrough)
        {
            super(Type.ACCEPTED, executor);
            this.ballot = ballot;
            this.firstSlot = firstSlot;
            this.acceptors = acceptors;
            this.durableThrough = durableThrough;
        }
    }

    /**
     * Acceptor {@code acceptor} refused group {@code firstSlot} at {@code ballot}: it reclaimed
     * slots below {@code floor}, which are decided.
     */
    public static final class Floored extends Message
    {
        public final int acceptor;
        public final long ballot;
        public final long firstSlot;
        public final long floor;

        public Floored(final int executor, final int acceptor, final long ballot, final long firstSlot,
            final long floor)
        {
            super(Type.FLOORED, executor);
            this.acceptor = acceptor;
            this.ballot = ballot;
            this.firstSlot = firstSlot;
            this.floor = floor;
        }
    }

    /** Decisions: slots {@code firstSlot..} are decided with {@code values}. Also the catch-up reply. */
    public static final class Commit extends Message
    {
        public final long firstSlot;
        public final long[][] values;

        public Commit(final int from, final long firstSlot, final long[][] values)
        {
            super(Type.COMMIT, from);
            this.firstSlot = firstSlot;
            this.values = values;
        }
    }

    /** A learner asks for decided slots {@code fromSlot..fromSlot+count-1}. */
    public static final class CatchupRequest extends Message
    {
        public final long fromSlot;
        public final int count;

        public CatchupRequest(final int from, final long fromSlot, final int count)
        {
            super(Type.CATCHUP_REQUEST, from);
            this.fromSlot = fromSlot;
            this.count = count;
        }
    }

    /**
     * Answer to a CatchupRequest from a process that applied {@code fromSlot} but no longer holds
     * it: slots {@code fromSlot..heldFrom-1} are decided, and it holds decided values again from
     * {@code heldFrom} on. A learner that nobody can serve skips on it (state transfer).
     */
    public static final class Gone extends Message
    {
        public final long fromSlot;
        public final long heldFrom;

        public Gone(final int from, final long fromSlot, final long heldFrom)
        {
            super(Type.GONE, from);
            this.fromSlot = fromSlot;
            this.heldFrom = heldFrom;
        }
    }

    @Override
    public String toString()
    {
        return type + "(from=" + from + ")";
    }
}
