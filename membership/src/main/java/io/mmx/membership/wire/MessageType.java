package io.mmx.membership.wire;

/**
 * Frame types of membership messages (0x10..0x1F is reserved for membership).
 */
public final class MessageType
{
    /** SWIM probe. */
    public static final int PING = 0x10;
    /** Answer to a probe, direct or relayed. */
    public static final int ACK = 0x11;
    /** Request to probe a member on the sender's behalf. */
    public static final int PING_REQ = 0x12;
    /** Plan activation: "I run this plan". */
    public static final int PLAN_HELLO = 0x13;
    /** Plan activation: "so do I". */
    public static final int PLAN_ACK = 0x14;
    /** Plan activation: "I run another plan", with the refuser's full hash. */
    public static final int PLAN_REFUSED = 0x15;
    /** "The leader named as subject stopped": a neighbour saw its memory heartbeat stand still; sent to every member. */
    public static final int LEADER_DOWN = 0x16;
    /** A new leader's claim, sent to every member once after a LEADER_DOWN (or to refute one). */
    public static final int LEADER_CLAIM = 0x17;

    private MessageType()
    {
    }

    /**
     * @param type frame type.
     * @return true if it is a membership type.
     */
    public static boolean isMembership(final int type)
    {
        return type >= PING && type <= LEADER_CLAIM;
    }
}
