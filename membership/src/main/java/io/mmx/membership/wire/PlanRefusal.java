package io.mmx.membership.wire;

import io.mmx.planner.plan.PlanDigest;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * PLAN_REFUSED: the refuser's full plan hash and the fingerprint it was sent.
 * <pre>
 *   0 byte[32] refuserPlanHash
 *  32 i64      receivedFingerprint
 * </pre>
 */
public final class PlanRefusal
{
    /** Message length. */
    public static final int LENGTH = 40;
    /** Plan hash length (SHA-256). */
    public static final int HASH_LENGTH = PlanDigest.LENGTH;

    private PlanRefusal()
    {
    }

    /**
     * @param buffer              to write into.
     * @param offset              of the message.
     * @param refuserPlanHash     32 bytes.
     * @param receivedFingerprint fingerprint of the refused sender.
     * @return the length.
     */
    public static int encode(
        final MutableDirectBuffer buffer,
        final int offset,
        final byte[] refuserPlanHash,
        final long receivedFingerprint)
    {
        buffer.putBytes(offset, refuserPlanHash, 0, HASH_LENGTH);
        buffer.putLong(offset + HASH_LENGTH, receivedFingerprint, ByteOrder.LITTLE_ENDIAN);
        return LENGTH;
    }

    /**
     * @param buffer holding the message.
     * @param offset of the message.
     * @param dst    32 bytes receiving the refuser's hash.
     * @return the fingerprint the refuser received.
     */
    public static long decode(final DirectBuffer buffer, final int offset, final byte[] dst)
    {
        buffer.getBytes(offset, dst, 0, HASH_LENGTH);
        return buffer.getLong(offset + HASH_LENGTH, ByteOrder.LITTLE_ENDIAN);
    }
}
