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
        /** {@link Prepare}. */
        PREPARE,
        /** {@link Promise}. */
        PROMISE,
        /** {@link Nack}. */
        NACK,
        /** {@link Accept}. */
        ACCEPT,
        /** {@link Accepted}. */
        ACCEPTED,
        /** {@link Floored}. */
        FLOORED,
        /** {@link Commit}. */
        COMMIT,
        /** {@link CatchupRequest}. */
        CATCHUP_REQUEST,
        /** {@link Gone}. */
        GONE
    }

    private final Type type;
    private final int from;

    Message(final Type type, final int from)
    {
        this.type = type;
        this.from = from;
    }

    /** The message kind. */
    public Type type()
    {
        return type;
    }

    /** The sending process. */
    public int from()
    {
        return from;
    }

    /**
     * Phase 1a: promise {@code ballot}; report accepted entries at or above your floor and above
     * {@code knownThrough}.
     */
    public static final class Prepare extends Message
    {
        /** The ballot to promise. */
        public final long ballot;
        /**
         * The proposer has applied every slot through this one (-1: none): it never proposes there
         * again, so a Promise leaves those entries out.
         */
        public final long knownThrough;

        /** A prepare of {@code ballot} from leader {@code from}, which has applied slots through {@code knownThrough}. */
        public Prepare(final int from, final long ballot, final long knownThrough)
        {
            super(Type.PREPARE, from);
            this.ballot = ballot;
            this.knownThrough = knownThrough;
        }
    }

    /** Phase 1b: acceptor {@code acceptor}, executed by {@code executor}, promised {@code ballot}. */
    public static final class Promise extends Message
    {
        /** The acceptor that promised. */
        public final int acceptor;
        /** The ballot it promised. */
        public final long ballot;
        /** The acceptor's floor: slots below it are decided and reclaimed. */
        public final long floor;
        /** Entries of slots through this one were left out (the Prepare's knownThrough; -1: none). */
        public final long omittedThrough;
        /** Slots of the entries it accepted at or above its floor and above {@link #omittedThrough}. */
        public final long[] slots;
        /** The ballot each of those entries was accepted at. */
        public final long[] ballots;
        /** The value each of those entries holds. */
        public final long[][] values;

        /** A promise of {@code acceptor}, executed by {@code executor}, with its accepted entries. */
        public Promise(
            final int executor, final int acceptor, final long ballot, final long floor, final long omittedThrough,
            final long[] slots, final long[] ballots, final long[][] values)
        {
            super(Type.PROMISE, executor);
            this.acceptor = acceptor;
            this.ballot = ballot;
            this.floor = floor;
            this.omittedThrough = omittedThrough;
            this.slots = slots;
            this.ballots = ballots;
            this.values = values;
        }

        /** The process that executed the acceptor's transition (the sender). */
        public int executor()
        {
            return from();
        }
    }

    /** Refusal: acceptor {@code acceptor} has promised {@code promised}, above {@code ballot}. */
    public static final class Nack extends Message
    {
        /** The acceptor that refused. */
        public final int acceptor;
        /** The ballot it refused. */
        public final long ballot;
        /** The higher ballot it had promised. */
        public final long promised;

        /** A refusal of {@code ballot} by {@code acceptor}, executed by {@code executor}. */
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
        /** The leader's ballot. */
        public final long ballot;
        /** The first slot of the group. */
        public final long firstSlot;
        /** One value per slot from {@code firstSlot}. */
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

        /** An accept for every acceptor the receiver executes for. */
        public Accept(final int leader, final long ballot, final long firstSlot, final long[][] values,
            final long durableThrough, final long decidedThrough)
        {
            this(leader, ballot, firstSlot, values, durableThrough, decidedThrough, null);
        }

        /** An accept for the listed {@code acceptors} only (thrifty), or for all when null. */
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

        /** The number of slots in the group. */
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
        /** The ballot accepted. */
        public final long ballot;
        /** The first slot of the group accepted. */
        public final long firstSlot;
        /** The acceptors that accepted it. */
        public final int[] acceptors;
        /** The executor's durable decided prefix: the leader passes the highest on to all executors. */
        public final long durableThrough;

        /** The acceptances executor {@code executor} ran for {@code acceptors}. */
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
        /** The acceptor that refused. */
        public final int acceptor;
        /** The ballot of the refused group. */
        public final long ballot;
        /** The first slot of the refused group. */
        public final long firstSlot;
        /** The acceptor's floor: every slot below it is decided. */
        public final long floor;

        /** A refusal of group {@code firstSlot} by {@code acceptor}, below its floor. */
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
        /** The first decided slot. */
        public final long firstSlot;
        /** One decided value per slot from {@code firstSlot}. */
        public final long[][] values;

        /** Decisions of slots from {@code firstSlot}. */
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
        /** The first slot asked for. */
        public final long fromSlot;
        /** How many slots are asked for. */
        public final int count;

        /** A request for {@code count} decided slots from {@code fromSlot}. */
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
        /** The first slot asked for. */
        public final long fromSlot;
        /** The first slot the sender holds a decided value of again. */
        public final long heldFrom;

        /** The answer that slots {@code fromSlot..heldFrom-1} are decided but no longer held. */
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
