package io.mmx.runtime.core;

/**
 * A set of distinct acceptors, as a bitset over ids {@code 0..n-1}: what a quorum counts (I6),
 * however many executors ran each acceptor and however often a reply came.
 */
final class AcceptorSet
{
    private final long[] bits;

    AcceptorSet(final int n)
    {
        this.bits = new long[(n + 63) >>> 6];
    }

    /** Adds {@code acceptor}; returns true if it was not in the set yet. */
    boolean add(final int acceptor)
    {
        final long mask = 1L << (acceptor & 63);
        final int w = acceptor >>> 6;
        if ((bits[w] & mask) != 0)
        {
            return false;
        }
        bits[w] |= mask;
        return true;
    }

    void clear()
    {
        java.util.Arrays.fill(bits, 0L);
    }
}
