package io.mmx.runtime.sim;

import io.mmx.planner.graph.Graph;

import java.util.SplittableRandom;

/**
 * Live sets for tolerance experiments: random ones, and ones grown from one region of the graph
 * (breadth-first, greedily preferring the frontier vertex that adds fewest new neighbours) so
 * that |N[S]| stays small. The planner's attack witness will replace {@link #grow} later.
 */
public final class LiveSets
{
    private LiveSets()
    {
    }

    /** {@code live} processes chosen uniformly at random. */
    public static boolean[] random(final int n, final int live, final long seed)
    {
        final SplittableRandom r = new SplittableRandom(seed);
        final int[] perm = new int[n];
        for (int i = 0; i < n; i++)
        {
            perm[i] = i;
        }
        for (int i = n - 1; i > 0; i--)
        {
            final int j = r.nextInt(i + 1);
            final int t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        final boolean[] s = new boolean[n];
        for (int i = 0; i < live; i++)
        {
            s[perm[i]] = true;
        }
        return s;
    }

    /** Members of {@code set}. */
    public static int size(final boolean[] set)
    {
        int c = 0;
        for (final boolean b : set)
        {
            c += b ? 1 : 0;
        }
        return c;
    }

    /**
     * Grows S from {@code start}: repeatedly adds the vertex of N[S] \ S (or, if none, any vertex)
     * with the fewest neighbours outside N[S], while {@code |N[S]| <= limit} would still hold after
     * the addition. Returns S, the largest set grown this way with {@code |N[S]| <= limit}.
     */
    public static boolean[] grow(final Graph g, final int start, final int limit)
    {
        final int n = g.n();
        final boolean[] inS = new boolean[n];
        final boolean[] covered = new boolean[n];
        final int[] gain = new int[n];
        int coveredCount = 0;
        for (int v = 0; v < n; v++)
        {
            gain[v] = 1 + g.degree(v);
        }
        int next = start;
        while (next >= 0)
        {
            final int add = next;
            if (coveredCount + gain[add] > limit)
            {
                break;
            }
            inS[add] = true;
            coveredCount += cover(g, add, covered, gain);
            for (int i = 0; i < g.degree(add); i++)
            {
                coveredCount += cover(g, g.neighbour(add, i), covered, gain);
            }
            next = bestCandidate(g, inS, covered, gain);
        }
        return inS;
    }

    private static int cover(final Graph g, final int v, final boolean[] covered, final int[] gain)
    {
        if (covered[v])
        {
            return 0;
        }
        covered[v] = true;
        gain[v]--;
        for (int i = 0; i < g.degree(v); i++)
        {
            gain[g.neighbour(v, i)]--;
        }
        return 1;
    }

    private static int bestCandidate(final Graph g, final boolean[] inS, final boolean[] covered, final int[] gain)
    {
        int best = -1;
        for (int v = 0; v < g.n(); v++)
        {
            if (!inS[v] && covered[v] && (best < 0 || gain[v] < gain[best]))
            {
                best = v;
            }
        }
        if (best < 0)
        {
            for (int v = 0; v < g.n(); v++)
            {
                if (!inS[v] && (best < 0 || gain[v] < gain[best]))
                {
                    best = v;
                }
            }
        }
        return best;
    }
}
