package io.mmx.runtime.node.wire;

import io.mmx.runtime.core.CoreConfig;
import io.mmx.runtime.core.Message;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * Binary form of the protocol core's {@link Message}s inside a transport frame's payload
 * (little-endian; the frame around it carries type, source, destination and the SipHash tag).
 *
 * <pre>
 * every message   from i32
 * PREPARE         ballot i64, knownThrough i64
 * PROMISE         acceptor i32, ballot i64, floor i64, omittedThrough i64, entries i32, then per entry: slot i64, ballot i64, value
 * NACK            acceptor i32, ballot i64, promised i64
 * ACCEPT          ballot i64, firstSlot i64, durableThrough i64, decidedThrough i64,
 *                 acceptors i32 (-1 = all), acceptor ids i32..., slots i32, then one value per slot
 * ACCEPTED        ballot i64, firstSlot i64, durableThrough i64, acceptors i32, acceptor ids i32...
 * FLOORED         acceptor i32, ballot i64, firstSlot i64, floor i64
 * COMMIT          firstSlot i64, slots i32, then one value per slot
 * CATCHUP_REQUEST fromSlot i64, count i32
 * GONE            fromSlot i64, heldFrom i64
 * value           words i32, then words x i64 (a multiple of proposalWords, at most valueWords)
 * </pre>
 *
 * Decoding checks every length against the bytes present and the cluster's limits, and every
 * process id against n, and returns null for anything malformed: a hostile or corrupt frame is
 * dropped and counted by the caller, never thrown into the agent.
 */
public final class CoreMessageCodec
{
    /** First frame type of core messages; type = BASE + {@link Message.Type#ordinal()}. */
    public static final int TYPE_BASE = 0x20;
    private static final Message.Type[] TYPES = Message.Type.values();
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    /** Upper bound on entries or slots in one message, far above any legal configuration. */
    private static final int MAX_COUNT = 1 << 16;

    private final int n;
    private final int valueWords;
    private final int proposalWords;

    /**
     * @param config the concluded core configuration shared by the cluster.
     */
    public CoreMessageCodec(final CoreConfig config)
    {
        config.conclude();
        this.n = config.n();
        this.valueWords = config.valueWords();
        this.proposalWords = config.proposalWords();
    }

    /** @return true if {@code frameType} carries a core message. */
    public static boolean isCoreType(final int frameType)
    {
        return frameType >= TYPE_BASE && frameType < TYPE_BASE + TYPES.length;
    }

    /** @return the frame type of {@code message}. */
    public static int frameType(final Message message)
    {
        return TYPE_BASE + message.type().ordinal();
    }

    /**
     * The largest encoding any legal message of this configuration can have: the transport's
     * frame limit must be at least this (plus the frame overhead).
     */
    public static int maxEncodedLength(final CoreConfig config)
    {
        final int value = 4 + 8 * config.valueWords();
        final int promise = 4 + 4 + 8 + 8 + 4 + config.recordMaxEntries() * (16 + value);
        final int accept = 4 + 32 + 4 + 4 * config.n() + 4 + config.maxSlotsPerAccept() * value;
        final int commit = 4 + 8 + 4 + Math.max(config.maxSlotsPerAccept(), config.catchupBatch()) * value;
        final int accepted = 4 + 24 + 4 + 4 * config.n();
        return Math.max(Math.max(promise, accept), Math.max(commit, accepted));
    }

    /**
     * Encodes {@code m} at {@code offset}.
     *
     * @return the length written, or -1 if it does not fit in {@code capacity} bytes.
     */
    public int encode(final Message m, final MutableDirectBuffer buffer, final int offset, final int capacity)
    {
        final int length = encodedLength(m);
        if (length > capacity)
        {
            return -1;
        }
        int p = offset;
        buffer.putInt(p, m.from(), LE);
        p += 4;
        switch (m.type())
        {
            case PREPARE:
                buffer.putLong(p, ((Message.Prepare)m).ballot, LE);
                buffer.putLong(p + 8, ((Message.Prepare)m).knownThrough, LE);
                p += 16;
                break;
            case PROMISE:
            {
                final Message.Promise x = (Message.Promise)m;
                buffer.putInt(p, x.acceptor, LE);
                buffer.putLong(p + 4, x.ballot, LE);
                buffer.putLong(p + 12, x.floor, LE);
                buffer.putLong(p + 20, x.omittedThrough, LE);
                buffer.putInt(p + 28, x.slots.length, LE);
                p += 32;
                for (int i = 0; i < x.slots.length; i++)
                {
                    buffer.putLong(p, x.slots[i], LE);
                    buffer.putLong(p + 8, x.ballots[i], LE);
                    p = putValue(buffer, p + 16, x.values[i]);
                }
                break;
            }
            case NACK:
            {
                final Message.Nack x = (Message.Nack)m;
                buffer.putInt(p, x.acceptor, LE);
                buffer.putLong(p + 4, x.ballot, LE);
                buffer.putLong(p + 12, x.promised, LE);
                p += 20;
                break;
            }
            case ACCEPT:
            {
                final Message.Accept x = (Message.Accept)m;
                buffer.putLong(p, x.ballot, LE);
                buffer.putLong(p + 8, x.firstSlot, LE);
                buffer.putLong(p + 16, x.durableThrough, LE);
                buffer.putLong(p + 24, x.decidedThrough, LE);
                p = putIds(buffer, p + 32, x.acceptors);
                p = putValues(buffer, p, x.values);
                break;
            }
            case ACCEPTED:
            {
                final Message.Accepted x = (Message.Accepted)m;
                buffer.putLong(p, x.ballot, LE);
                buffer.putLong(p + 8, x.firstSlot, LE);
                buffer.putLong(p + 16, x.durableThrough, LE);
                p = putIds(buffer, p + 24, x.acceptors);
                break;
            }
            case FLOORED:
            {
                final Message.Floored x = (Message.Floored)m;
                buffer.putInt(p, x.acceptor, LE);
                buffer.putLong(p + 4, x.ballot, LE);
                buffer.putLong(p + 12, x.firstSlot, LE);
                buffer.putLong(p + 20, x.floor, LE);
                p += 28;
                break;
            }
            case COMMIT:
            {
                final Message.Commit x = (Message.Commit)m;
                buffer.putLong(p, x.firstSlot, LE);
                p = putValues(buffer, p + 8, x.values);
                break;
            }
            case CATCHUP_REQUEST:
            {
                final Message.CatchupRequest x = (Message.CatchupRequest)m;
                buffer.putLong(p, x.fromSlot, LE);
                buffer.putInt(p + 8, x.count, LE);
                p += 12;
                break;
            }
            case GONE:
            {
                final Message.Gone x = (Message.Gone)m;
                buffer.putLong(p, x.fromSlot, LE);
                buffer.putLong(p + 8, x.heldFrom, LE);
                p += 16;
                break;
            }
            default:
                throw new IllegalStateException("no encoding for " + m.type());
        }
        assert p - offset == length;
        return length;
    }

    /** The bytes {@link #encode} writes for {@code m}. */
    public static int encodedLength(final Message m)
    {
        switch (m.type())
        {
            case PREPARE:
                return 20;
            case PROMISE:
            {
                final Message.Promise x = (Message.Promise)m;
                int length = 36;
                for (final long[] v : x.values)
                {
                    length += 16 + 4 + 8 * v.length;
                }
                return length;
            }
            case NACK:
                return 24;
            case ACCEPT:
            {
                final Message.Accept x = (Message.Accept)m;
                return 36 + idsLength(x.acceptors) + valuesLength(x.values);
            }
            case ACCEPTED:
                return 28 + idsLength(((Message.Accepted)m).acceptors);
            case FLOORED:
                return 32;
            case COMMIT:
                return 12 + valuesLength(((Message.Commit)m).values);
            case CATCHUP_REQUEST:
                return 16;
            case GONE:
                return 20;
            default:
                throw new IllegalStateException("no encoding for " + m.type());
        }
    }

    /**
     * Decodes a message of frame type {@code frameType} sent by {@code srcProcessId}.
     *
     * @return the message, or null if the bytes are not a well-formed message of this cluster.
     */
    public Message decode(final int frameType, final int srcProcessId, final DirectBuffer buffer, final int offset,
        final int length)
    {
        if (!isCoreType(frameType) || length < 4)
        {
            return null;
        }
        final Reader r = new Reader(buffer, offset, length);
        final int from = r.i32();
        if (from != srcProcessId || !isProcess(from))
        {
            return null;
        }
        final Message m;
        switch (TYPES[frameType - TYPE_BASE])
        {
            case PREPARE:
            {
                final long ballot = r.i64();
                m = new Message.Prepare(from, ballot, r.i64());
            }
                break;
            case PROMISE:
            {
                final int acceptor = r.i32();
                final long ballot = r.i64();
                final long floor = r.i64();
                final long omittedThrough = r.i64();
                final int entries = r.count();
                if (!isProcess(acceptor) || entries < 0)
                {
                    return null;
                }
                final long[] slots = new long[entries];
                final long[] ballots = new long[entries];
                final long[][] values = new long[entries][];
                for (int i = 0; i < entries && r.ok; i++)
                {
                    slots[i] = r.i64();
                    ballots[i] = r.i64();
                    values[i] = readValue(r);
                }
                m = new Message.Promise(from, acceptor, ballot, floor, omittedThrough, slots, ballots, values);
                break;
            }
            case NACK:
            {
                final int acceptor = r.i32();
                m = isProcess(acceptor) ? new Message.Nack(from, acceptor, r.i64(), r.i64()) : null;
                break;
            }
            case ACCEPT:
            {
                final long ballot = r.i64();
                final long firstSlot = r.i64();
                final long durable = r.i64();
                final long decided = r.i64();
                final int[] acceptors = readIds(r, true);
                final long[][] values = readValues(r);
                m = values == null || values.length == 0 ? null :
                    new Message.Accept(from, ballot, firstSlot, values, durable, decided, acceptors);
                break;
            }
            case ACCEPTED:
            {
                final long ballot = r.i64();
                final long firstSlot = r.i64();
                final long durable = r.i64();
                final int[] acceptors = readIds(r, false);
                m = acceptors == null ? null : new Message.Accepted(from, ballot, firstSlot, acceptors, durable);
                break;
            }
            case FLOORED:
            {
                final int acceptor = r.i32();
                m = isProcess(acceptor) ? new Message.Floored(from, acceptor, r.i64(), r.i64(), r.i64()) : null;
                break;
            }
            case COMMIT:
            {
                final long firstSlot = r.i64();
                final long[][] values = readValues(r);
                m = values == null || values.length == 0 ? null : new Message.Commit(from, firstSlot, values);
                break;
            }
            case CATCHUP_REQUEST:
            {
                final long fromSlot = r.i64();
                final int count = r.count();
                m = count < 1 ? null : new Message.CatchupRequest(from, fromSlot, count);
                break;
            }
            case GONE:
            {
                final long fromSlot = r.i64();
                final long heldFrom = r.i64();
                m = fromSlot < 0 || heldFrom <= fromSlot ? null : new Message.Gone(from, fromSlot, heldFrom);
                break;
            }
            default:
                return null;
        }
        // Trailing bytes or a short read mean the sender and we disagree about the format.
        return m != null && r.ok && r.position == offset + length ? m : null;
    }

    private boolean isProcess(final int id)
    {
        return id >= 0 && id < n;
    }

    private static int idsLength(final int[] ids)
    {
        return 4 + (ids == null ? 0 : 4 * ids.length);
    }

    private static int valuesLength(final long[][] values)
    {
        int length = 4;
        for (final long[] v : values)
        {
            length += 4 + 8 * v.length;
        }
        return length;
    }

    private static int putIds(final MutableDirectBuffer buffer, final int at, final int[] ids)
    {
        if (ids == null)
        {
            buffer.putInt(at, -1, LE);
            return at + 4;
        }
        buffer.putInt(at, ids.length, LE);
        int p = at + 4;
        for (final int id : ids)
        {
            buffer.putInt(p, id, LE);
            p += 4;
        }
        return p;
    }

    private static int putValues(final MutableDirectBuffer buffer, final int at, final long[][] values)
    {
        buffer.putInt(at, values.length, LE);
        int p = at + 4;
        for (final long[] v : values)
        {
            p = putValue(buffer, p, v);
        }
        return p;
    }

    private static int putValue(final MutableDirectBuffer buffer, final int at, final long[] value)
    {
        buffer.putInt(at, value.length, LE);
        int p = at + 4;
        for (final long w : value)
        {
            buffer.putLong(p, w, LE);
            p += 8;
        }
        return p;
    }

    private int[] readIds(final Reader r, final boolean nullable)
    {
        final int count = r.i32();
        if (count == -1 && nullable)
        {
            return null;
        }
        if (count < 0 || count > n || !r.has(4L * count))
        {
            r.ok = false;
            return new int[0];
        }
        final int[] ids = new int[count];
        for (int i = 0; i < count; i++)
        {
            ids[i] = r.i32();
            if (!isProcess(ids[i]))
            {
                r.ok = false;
            }
        }
        return ids;
    }

    private long[][] readValues(final Reader r)
    {
        final int count = r.count();
        if (count < 0)
        {
            return null;
        }
        final long[][] values = new long[count][];
        for (int i = 0; i < count && r.ok; i++)
        {
            values[i] = readValue(r);
        }
        return r.ok ? values : null;
    }

    private long[] readValue(final Reader r)
    {
        final int words = r.i32();
        if (words < 0 || words > valueWords || words % proposalWords != 0 || !r.has(8L * words))
        {
            r.ok = false;
            return new long[0];
        }
        final long[] v = new long[words];
        for (int i = 0; i < words; i++)
        {
            v[i] = r.i64();
        }
        return v;
    }

    /** A bounds-checked cursor: once a read would overrun, {@code ok} turns false and reads return 0. */
    private static final class Reader
    {
        private final DirectBuffer buffer;
        private final int end;
        int position;
        boolean ok = true;

        Reader(final DirectBuffer buffer, final int offset, final int length)
        {
            this.buffer = buffer;
            this.position = offset;
            this.end = offset + length;
        }

        boolean has(final long bytes)
        {
            return ok && position + bytes <= end;
        }

        int i32()
        {
            if (!has(4))
            {
                ok = false;
                return 0;
            }
            final int v = buffer.getInt(position, LE);
            position += 4;
            return v;
        }

        long i64()
        {
            if (!has(8))
            {
                ok = false;
                return 0;
            }
            final long v = buffer.getLong(position, LE);
            position += 8;
            return v;
        }

        int count()
        {
            final int c = i32();
            if (c < 0 || c > MAX_COUNT)
            {
                ok = false;
                return -1;
            }
            return c;
        }
    }
}
