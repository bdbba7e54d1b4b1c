package io.mmx.membership.swim;

/**
 * Status of a member in one process's view, as in SWIM.
 */
public enum MemberStatus
{
    /** Believed alive. */
    ALIVE,
    /** Failed a probe; declared dead unless it refutes within the suspicion timeout. */
    SUSPECT,
    /** Confirmed failed; only the member itself can revive itself with a higher incarnation. */
    DEAD;

    private static final MemberStatus[] VALUES = values();

    /**
     * @param code wire code, the ordinal.
     * @return the status, or null for an unknown code.
     */
    public static MemberStatus fromCode(final int code)
    {
        return code >= 0 && code < VALUES.length ? VALUES[code] : null;
    }
}
