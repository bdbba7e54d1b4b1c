package io.mmx.runtime.core;

/**
 * Test-only shorthands for the deliberately broken protocol variants ({@link Flaw}).
 */
public final class BrokenVariants
{
    private BrokenVariants()
    {
    }

    /** Quorum of n/2 instead of more than n/2: two disjoint quorums exist. */
    public static CoreConfig halfQuorum(final CoreConfig config)
    {
        return config.flaw(Flaw.HALF_QUORUM);
    }

    /** Acceptor transition as two writes (record, then head) instead of one CAS: lost updates. */
    public static CoreConfig twoWriteTransition(final CoreConfig config)
    {
        return config.flaw(Flaw.TWO_WRITE_TRANSITION);
    }
}
