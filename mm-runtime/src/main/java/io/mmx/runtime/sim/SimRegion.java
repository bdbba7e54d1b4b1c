package io.mmx.runtime.sim;

/**
 * One simulated memory region: words in lazily allocated pages, so that n = 4096 regions cost
 * only what is written. Survives its owner's crash; {@link #lose()} models losing the host.
 *
 * <p>Pages are carved from a simulation's shared {@link Slabs}, not allocated one by one: a run
 * at n = 4096 writes some 200,000 pages, all of them live to its end, and as separate arrays the
 * young collector copied each of them at least once.
 */
final class SimRegion
{
    private static final int PAGE_SHIFT = 8;
    private static final int PAGE_WORDS = 1 << PAGE_SHIFT;

    /** The slab page p lies in, or null while p was never written. */
    private final long[][] pageSlab;
    /** Where page p starts in its slab. */
    private final int[] pageBase;
    private final Slabs slabs;
    private final int words;
    private boolean lost;

    SimRegion(final int words, final Slabs slabs)
    {
        this.words = words;
        this.slabs = slabs;
        final int pages = (words + PAGE_WORDS - 1) >>> PAGE_SHIFT;
        this.pageSlab = new long[pages][];
        this.pageBase = new int[pages];
    }

    int words()
    {
        return words;
    }

    boolean lost()
    {
        return lost;
    }

    void lose()
    {
        lost = true;
        java.util.Arrays.fill(pageSlab, null); // their words stay in the slab, unreachable: a lost host's memory
    }

    long get(final int offset)
    {
        final int p = offset >>> PAGE_SHIFT;
        final long[] slab = pageSlab[p];
        return slab == null ? 0L : slab[pageBase[p] + (offset & (PAGE_WORDS - 1))];
    }

    /** Gives page p its words, zeros, from the slabs. */
    private long[] allocate(final int p)
    {
        pageBase[p] = slabs.take(PAGE_WORDS);
        pageSlab[p] = slabs.current();
        return pageSlab[p];
    }

    void set(final int offset, final long value)
    {
        final int p = offset >>> PAGE_SHIFT;
        long[] slab = pageSlab[p];
        if (slab == null)
        {
            if (value == 0)
            {
                return;
            }
            slab = allocate(p);
        }
        slab[pageBase[p] + (offset & (PAGE_WORDS - 1))] = value;
    }

    /**
     * The slab holding words [offset, offset + length) in one piece, or null when they span pages
     * that are not consecutive in one slab (or never written): a reader can then use the words
     * where they lie ({@link #slabIndex}) instead of copying them.
     */
    long[] slabHolding(final int offset, final int length)
    {
        final int first = offset >>> PAGE_SHIFT;
        final int last = (offset + length - 1) >>> PAGE_SHIFT;
        final long[] slab = pageSlab[first];
        for (int p = first + 1; p <= last && slab != null; p++)
        {
            if (pageSlab[p] != slab || pageBase[p] != pageBase[first] + ((p - first) << PAGE_SHIFT))
            {
                return null;
            }
        }
        return slab;
    }

    /** Where word {@code offset} lies in its slab (its page was written). */
    int slabIndex(final int offset)
    {
        return pageBase[offset >>> PAGE_SHIFT] + (offset & (PAGE_WORDS - 1));
    }

    void read(final int offset, final long[] dst, final int length)
    {
        read(offset, dst, 0, length);
    }

    /** Copies {@code length} words from {@code offset} into {@code dst[dstPos..]}. */
    void read(final int offset, final long[] dst, final int dstPos, final int length)
    {
        int done = 0;
        while (done < length)
        {
            final int at = offset + done;
            final int inPage = at & (PAGE_WORDS - 1);
            final int chunk = Math.min(length - done, PAGE_WORDS - inPage);
            final int p = at >>> PAGE_SHIFT;
            final long[] slab = pageSlab[p];
            if (slab == null)
            {
                java.util.Arrays.fill(dst, dstPos + done, dstPos + done + chunk, 0L);
            }
            else
            {
                System.arraycopy(slab, pageBase[p] + inPage, dst, dstPos + done, chunk);
            }
            done += chunk;
        }
    }

    /**
     * Copies {@code src[srcPos..srcPos+length)} to {@code offset..}, page by page. Like
     * {@link #set}, a page that was never written stays unallocated while only zeros go to it.
     */
    void write(final int offset, final long[] src, final int srcPos, final int length)
    {
        int done = 0;
        while (done < length)
        {
            final int at = offset + done;
            final int inPage = at & (PAGE_WORDS - 1);
            final int chunk = Math.min(length - done, PAGE_WORDS - inPage);
            final int p = at >>> PAGE_SHIFT;
            long[] slab = pageSlab[p];
            if (slab == null)
            {
                if (allZero(src, srcPos + done, chunk))
                {
                    done += chunk;
                    continue;
                }
                slab = allocate(p);
            }
            System.arraycopy(src, srcPos + done, slab, pageBase[p] + inPage, chunk);
            done += chunk;
        }
    }

    private static boolean allZero(final long[] words, final int from, final int length)
    {
        for (int i = from; i < from + length; i++)
        {
            if (words[i] != 0)
            {
                return false;
            }
        }
        return true;
    }

    void write(final int offset, final long[] src, final int length)
    {
        write(offset, src, 0, length);
    }

    /** Pages allocated: memory this region really uses. */
    int pagesAllocated()
    {
        int n = 0;
        for (final long[] slab : pageSlab)
        {
            n += slab == null ? 0 : 1;
        }
        return n;
    }

    static int pageWords()
    {
        return PAGE_WORDS;
    }
}
