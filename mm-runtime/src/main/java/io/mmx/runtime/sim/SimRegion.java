package io.mmx.runtime.sim;

/**
 * One simulated memory region: words in lazily allocated pages, so that n = 4096 regions cost
 * only what is written. Survives its owner's crash; {@link #lose()} models losing the host.
 */
final class SimRegion
{
    private static final int PAGE_SHIFT = 8;
    private static final int PAGE_WORDS = 1 << PAGE_SHIFT;

    private final long[][] pages;
    private final int words;
    private boolean lost;

    SimRegion(final int words)
    {
        this.words = words;
        this.pages = new long[(words + PAGE_WORDS - 1) >>> PAGE_SHIFT][];
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
        java.util.Arrays.fill(pages, null);
    }

    long get(final int offset)
    {
        final long[] page = pages[offset >>> PAGE_SHIFT];
        return page == null ? 0L : page[offset & (PAGE_WORDS - 1)];
    }

    void set(final int offset, final long value)
    {
        final int p = offset >>> PAGE_SHIFT;
        long[] page = pages[p];
        if (page == null)
        {
            if (value == 0)
            {
                return;
            }
            page = new long[PAGE_WORDS];
            pages[p] = page;
        }
        page[offset & (PAGE_WORDS - 1)] = value;
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
            final long[] page = pages[at >>> PAGE_SHIFT];
            if (page == null)
            {
                java.util.Arrays.fill(dst, dstPos + done, dstPos + done + chunk, 0L);
            }
            else
            {
                System.arraycopy(page, inPage, dst, dstPos + done, chunk);
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
            long[] page = pages[at >>> PAGE_SHIFT];
            if (page == null)
            {
                if (allZero(src, srcPos + done, chunk))
                {
                    done += chunk;
                    continue;
                }
                page = new long[PAGE_WORDS];
                pages[at >>> PAGE_SHIFT] = page;
            }
            System.arraycopy(src, srcPos + done, page, inPage, chunk);
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
        for (final long[] page : pages)
        {
            n += page == null ? 0 : 1;
        }
        return n;
    }

    static int pageWords()
    {
        return PAGE_WORDS;
    }
}
