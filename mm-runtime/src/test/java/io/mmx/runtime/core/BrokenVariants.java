package io.mmx.runtime.core;

/**
 * Test-only access to the deliberately broken protocol variants of {@link CoreConfig}. The flags
 * are package-private and this class exists only in test sources, so production configuration
 * cannot reach them.
 */
public final class BrokenVariants
{
    private BrokenVariants()
    {
    }

    /** Quorum of n/2 instead of more than n/2: two disjoint quorums exist. */
    public static CoreConfig halfQuorum(final CoreConfig config)
    {
        config.brokenHalfQuorum = true;
        return config;
    }

    /** Acceptor transition as two writes (record, then head) instead of one CAS: lost updates. */
    public static CoreConfig twoWriteTransition(final CoreConfig config)
    {
        config.brokenTwoWriteTransition = true;
        return config;
    }
}
