package io.mmx.membership.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * Flyweight of every membership message except PLAN_REFUSED; all fields little-endian.
 * <pre>
 *   0 i64 planFingerprint     first 8 bytes of the sender's plan hash
 *   8 i32 senderIncarnation
 *  12 i32 probeSeq
 *  16 i32 subject             PING: -1; ACK: the member that answered; PING_REQ: the member to probe
 *  20 i32 subjectIncarnation
 *  24 i32 origin              requester of an indirect probe, or -1
 *  28 i32 leaderId            the sender's freshest leader claim, or -1
 *  32 i64 leaderEpoch
 *  40 i32 leaderAgeTicks      age of that claim when sent
 *  44 i32 leaderIncarnation   the leader's incarnation when it made the claim
 *  48 u16 updateCount
 *  50 u16 reserved            0
 *  52 updateCount × { i32 member, i32 incarnation, i32 status }
 * </pre>
 */
public final class SwimMessage
{
    /** Bytes before the updates. */
    public static final int HEADER_LENGTH = 52;
    /** Bytes per update. */
    public static final int UPDATE_LENGTH = 12;
    /** Hard cap on updates per message, whatever the configuration. */
    public static final int MAX_UPDATES = 64;

    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private DirectBuffer buffer;
    private MutableDirectBuffer mutableBuffer;
    private int offset;

    /**
     * @param maxUpdates updates per message.
     * @return the largest message length.
     */
    public static int maxLength(final int maxUpdates)
    {
        return HEADER_LENGTH + maxUpdates * UPDATE_LENGTH;
    }

    /**
     * Wrap for decoding.
     *
     * @param buffer holding the message.
     * @param offset of the message.
     * @return this.
     */
    public SwimMessage wrap(final DirectBuffer buffer, final int offset)
    {
        this.buffer = buffer;
        this.mutableBuffer = null;
        this.offset = offset;
        return this;
    }

    /**
     * Wrap for encoding.
     *
     * @param buffer to write into.
     * @param offset of the message.
     * @return this.
     */
    public SwimMessage wrapForEncode(final MutableDirectBuffer buffer, final int offset)
    {
        this.buffer = buffer;
        this.mutableBuffer = buffer;
        this.offset = offset;
        return this;
    }

    /**
     * @param length received length.
     * @return true if the layout is consistent: header present, update count within cap and matching.
     */
    public boolean isWellFormed(final int length)
    {
        if (length < HEADER_LENGTH)
        {
            return false;
        }
        final int count = updateCount();
        return count <= MAX_UPDATES && length == HEADER_LENGTH + count * UPDATE_LENGTH &&
            buffer.getShort(offset + 50, LE) == 0;
    }

    /**
     * Write the header fields.
     *
     * @param planFingerprint    of the sender's plan.
     * @param senderIncarnation  of the sender.
     * @param probeSeq           probe sequence.
     * @param subject            see the layout.
     * @param subjectIncarnation see the layout.
     * @param origin             see the layout.
     * @param leaderId           see the layout.
     * @param leaderEpoch        see the layout.
     * @param leaderAgeTicks     see the layout.
     * @param leaderIncarnation  see the layout.
     * @return this.
     */
    public SwimMessage header(
        final long planFingerprint,
        final int senderIncarnation,
        final int probeSeq,
        final int subject,
        final int subjectIncarnation,
        final int origin,
        final int leaderId,
        final long leaderEpoch,
        final int leaderAgeTicks,
        final int leaderIncarnation)
    {
        mutableBuffer.putLong(offset, planFingerprint, LE);
        mutableBuffer.putInt(offset + 8, senderIncarnation, LE);
        mutableBuffer.putInt(offset + 12, probeSeq, LE);
        mutableBuffer.putInt(offset + 16, subject, LE);
        mutableBuffer.putInt(offset + 20, subjectIncarnation, LE);
        mutableBuffer.putInt(offset + 24, origin, LE);
        mutableBuffer.putInt(offset + 28, leaderId, LE);
        mutableBuffer.putLong(offset + 32, leaderEpoch, LE);
        mutableBuffer.putInt(offset + 40, leaderAgeTicks, LE);
        mutableBuffer.putInt(offset + 44, leaderIncarnation, LE);
        mutableBuffer.putShort(offset + 48, (short)0, LE);
        mutableBuffer.putShort(offset + 50, (short)0, LE);
        return this;
    }

    /**
     * Write update {@code index}; call with index = 0, 1, ... then {@link #updateCount(int)}.
     *
     * @param index       of the update.
     * @param member      id.
     * @param incarnation of the member.
     * @param status      code.
     */
    public void putUpdate(final int index, final int member, final int incarnation, final int status)
    {
        final int at = offset + HEADER_LENGTH + index * UPDATE_LENGTH;
        mutableBuffer.putInt(at, member, LE);
        mutableBuffer.putInt(at + 4, incarnation, LE);
        mutableBuffer.putInt(at + 8, status, LE);
    }

    /**
     * @param count updates written.
     * @return the message length.
     */
    public int updateCount(final int count)
    {
        mutableBuffer.putShort(offset + 48, (short)count, LE);
        return HEADER_LENGTH + count * UPDATE_LENGTH;
    }

    /** @return plan fingerprint. */
    public long planFingerprint()
    {
        return buffer.getLong(offset, LE);
    }

    /** @return sender incarnation. */
    public int senderIncarnation()
    {
        return buffer.getInt(offset + 8, LE);
    }

    /** @return probe sequence. */
    public int probeSeq()
    {
        return buffer.getInt(offset + 12, LE);
    }

    /** @return subject. */
    public int subject()
    {
        return buffer.getInt(offset + 16, LE);
    }

    /** @return subject incarnation. */
    public int subjectIncarnation()
    {
        return buffer.getInt(offset + 20, LE);
    }

    /** @return origin. */
    public int origin()
    {
        return buffer.getInt(offset + 24, LE);
    }

    /** @return leader id or -1. */
    public int leaderId()
    {
        return buffer.getInt(offset + 28, LE);
    }

    /** @return leader epoch. */
    public long leaderEpoch()
    {
        return buffer.getLong(offset + 32, LE);
    }

    /** @return leader claim age. */
    public int leaderAgeTicks()
    {
        return buffer.getInt(offset + 40, LE);
    }

    /** @return the leader's incarnation. */
    public int leaderIncarnation()
    {
        return buffer.getInt(offset + 44, LE);
    }

    /** @return number of updates. */
    public int updateCount()
    {
        return buffer.getShort(offset + 48, LE) & 0xFFFF;
    }

    /**
     * @param index of the update.
     * @return its member id.
     */
    public int updateMember(final int index)
    {
        return buffer.getInt(offset + HEADER_LENGTH + index * UPDATE_LENGTH, LE);
    }

    /**
     * @param index of the update.
     * @return its incarnation.
     */
    public int updateIncarnation(final int index)
    {
        return buffer.getInt(offset + HEADER_LENGTH + index * UPDATE_LENGTH + 4, LE);
    }

    /**
     * @param index of the update.
     * @return its status code.
     */
    public int updateStatus(final int index)
    {
        return buffer.getInt(offset + HEADER_LENGTH + index * UPDATE_LENGTH + 8, LE);
    }
}
