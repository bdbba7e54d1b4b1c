package io.mmx.runtime.core;

/**
 * Ballot numbers: {@code round * n + proposerId}. Distinct proposers never share a ballot, and a
 * proposer's ballots grow with its round. Round 0 is reserved so that {@link #NONE} (0) is below
 * every real ballot.
 */
public final class Ballot
{
    /** No ballot: below every ballot a proposer can make. */
    public static final long NONE = 0L;

    private Ballot()
    {
    }

    /** The largest round for which {@code round * n + (n - 1)} still fits in a signed long. */
    public static long maxRound(final int n)
    {
        return (Long.MAX_VALUE - n) / n;
    }

    /**
     * The ballot of {@code proposerId} in {@code round}.
     *
     * @throws ArithmeticException if the round would overflow the 63-bit ballot space.
     */
    public static long of(final long round, final int proposerId, final int n)
    {
        if (n <= 0 || proposerId < 0 || proposerId >= n)
        {
            throw new IllegalArgumentException("proposer id " + proposerId + " outside 0.." + (n - 1));
        }
        if (round < 1 || round > maxRound(n))
        {
            throw new ArithmeticException("ballot round " + round + " outside 1.." + maxRound(n) + " for n = " + n);
        }
        return round * n + proposerId;
    }

    /** The round of {@code ballot} in a cluster of {@code n} processes. */
    public static long round(final long ballot, final int n)
    {
        return ballot / n;
    }

    /** The process whose ballot {@code ballot} is. */
    public static int proposer(final long ballot, final int n)
    {
        return (int)(ballot % n);
    }
}
