package io.mmx.planner.tolerance;

import io.mmx.planner.graph.Graph;

/** Plain 2^n enumeration of s* for n <= 26, split into two halves of precomputed cover masks. */
final class BruteForce
{
    private BruteForce()
    {
    }

    /** max |S| over all S with |N[S]| <= threshold. */
    static int maxBlockedSetSize(final Graph graph, final int threshold)
    {
        final int n = graph.n();
        if (n > 26)
        {
            throw new IllegalArgumentException("brute force is for n <= 26, got " + n);
        }
        final int[] closed = new int[n];
        for (int v = 0; v < n; v++)
        {
            closed[v] = 1 << v;
            for (final int w : graph.neighbours(v))
            {
                closed[v] |= 1 << w;
            }
        }
        final int low = n / 2;
        final int high = n - low;
        final int[] lowCover = covers(closed, 0, low);
        final int[] highCover = covers(closed, low, high);
        int best = 0;
        for (int hi = 0; hi < highCover.length; hi++)
        {
            final int hc = highCover[hi];
            if (Integer.bitCount(hc) > threshold)
            {
                continue;
            }
            final int hiSize = Integer.bitCount(hi);
            for (int lo = 0; lo < lowCover.length; lo++)
            {
                if (Integer.bitCount(hc | lowCover[lo]) <= threshold)
                {
                    best = Math.max(best, hiSize + Integer.bitCount(lo));
                }
            }
        }
        return best;
    }

    /** cover[mask] = union of closed[first + i] over bits i of mask, built from the lowest bit up. */
    private static int[] covers(final int[] closed, final int first, final int count)
    {
        final int[] cover = new int[1 << count];
        for (int mask = 1; mask < cover.length; mask++)
        {
            final int bit = Integer.numberOfTrailingZeros(mask);
            cover[mask] = cover[mask & (mask - 1)] | closed[first + bit];
        }
        return cover;
    }
}
