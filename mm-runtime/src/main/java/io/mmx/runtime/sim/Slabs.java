package io.mmx.runtime.sim;

/**
 * The words of a simulation's regions, handed out in pieces of large arrays. A slab starts small
 * (a sweep's simulation of five processes writes a few pages) and doubles up to about a megabyte,
 * where the collector allocates it outside the young generation and never copies it: the regions
 * of a large run live to its end, and copying them was most of its collection pauses.
 */
final class Slabs
{
    private static final int FIRST_WORDS = 1 << 11;
    /** Just under a megabyte with the array header: one collector region of 1 MB or more. */
    private static final int LARGEST_WORDS = (1 << 17) - 512;

    private long[] slab = new long[0];
    private int next;

    /** Takes {@code words} words, from a new slab if the current one has no room; where they start in {@link #current}. */
    int take(final int words)
    {
        if (slab.length - next < words)
        {
            slab = new long[Math.max(words, Math.min(LARGEST_WORDS, Math.max(FIRST_WORDS, 2 * slab.length)))];
            next = 0;
        }
        final int at = next;
        next += words;
        return at;
    }

    /** The slab the last {@link #take} took from. */
    long[] current()
    {
        return slab;
    }
}
