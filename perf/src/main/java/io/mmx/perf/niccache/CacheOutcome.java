package io.mmx.perf.niccache;

/**
 * References and misses, per op type, of one reference stream through one cache (warm-up
 * excluded).
 */
public final class CacheOutcome
{
    private final long[] references = new long[OpType.values().length];
    private final long[] misses = new long[OpType.values().length];

    void record(final OpType op, final boolean hit)
    {
        references[op.ordinal()]++;
        if (!hit)
        {
            misses[op.ordinal()]++;
        }
    }

    /** Measured references. */
    public long references()
    {
        long total = 0;
        for (final long r : references)
        {
            total += r;
        }
        return total;
    }

    /** Measured misses. */
    public long misses()
    {
        long total = 0;
        for (final long m : misses)
        {
            total += m;
        }
        return total;
    }

    /** Misses over references; 0 for an empty stream. */
    public double missRate()
    {
        final long total = references();
        return total == 0 ? 0 : (double)misses() / total;
    }

    /** Misses of {@code op} over references of {@code op}; 0 if none. */
    public double missRate(final OpType op)
    {
        final long r = references[op.ordinal()];
        return r == 0 ? 0 : (double)misses[op.ordinal()] / r;
    }

    /** Misses of {@code op} over all references: its share of the mean penalty. */
    public double missFraction(final OpType op)
    {
        final long total = references();
        return total == 0 ? 0 : (double)misses[op.ordinal()] / total;
    }

    /** References of {@code op} over all references. */
    public double share(final OpType op)
    {
        final long total = references();
        return total == 0 ? 0 : (double)references[op.ordinal()] / total;
    }
}
