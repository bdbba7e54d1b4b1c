package io.mmx.runtime.sim;

/**
 * The words of a simulation's regions, handed out in pieces of large arrays. A slab starts small
 * (a sweep's simulation of five processes writes a few pages) and doubles up to one region of the
 * G1 collector, which allocates an array that large outside the young generation and never copies
 * it: the regions of a large run live to its end, and copying them was most of its collection
 * pauses. (Slabs of a fixed megabyte were copied like any array where the collector's regions are
 * 4 MB, as the default heap of a 24 GB machine has them.)
 */
final class Slabs
{
    private static final int FIRST_WORDS = 1 << 11;
    /** The largest slab: the words of one collector region less the array header (1 MB without G1's size). */
    private static final int LARGEST_WORDS = (int)(collectorRegionBytes() / Long.BYTES) - 4;

    private static long collectorRegionBytes()
    {
        try
        {
            final String size = java.lang.management.ManagementFactory
                .getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class).getVMOption("G1HeapRegionSize").getValue();
            final long bytes = Long.parseLong(size);
            return bytes >= 1 << 20 && bytes <= 1 << 26 ? bytes : 1 << 20;
        }
        catch (final RuntimeException | LinkageError e)
        {
            return 1 << 20; // not HotSpot, or no G1: a megabyte
        }
    }

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
