package io.mmx.planner.analysis;

import io.mmx.planner.graph.Graph;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Graph diameter: exact by breadth-first search from every vertex, 64 sources at a time as bits
 * of a long (one pass over the edges per level serves 64 searches), or a lower bound by repeated
 * double sweeps when n is too large for that.
 */
public final class Diameter
{
    private static final int SWEEPS = 4;

    private Diameter()
    {
    }

    /**
     * Exact diameter of a connected graph, -1 if disconnected, 0 for n ≤ 1.
     */
    public static int exact(final Graph graph)
    {
        final int n = graph.n();
        if (n <= 1)
        {
            return 0;
        }
        if (!graph.isConnected())
        {
            return -1;
        }
        final int[] offsets = graph.offsets();
        final int[] targets = graph.targets();
        final long[] visited = new long[n];
        long[] frontier = new long[n];
        long[] next = new long[n];
        int diameter = 0;
        for (int base = 0; base < n; base += 64)
        {
            Arrays.fill(visited, 0L);
            Arrays.fill(frontier, 0L);
            final int count = Math.min(64, n - base);
            for (int i = 0; i < count; i++)
            {
                visited[base + i] |= 1L << i;
                frontier[base + i] |= 1L << i;
            }
            int level = 0;
            boolean active = true;
            while (active)
            {
                active = false;
                for (int v = 0; v < n; v++)
                {
                    long reach = 0L;
                    for (int i = offsets[v]; i < offsets[v + 1]; i++)
                    {
                        reach |= frontier[targets[i]];
                    }
                    reach &= ~visited[v];
                    next[v] = reach;
                    if (reach != 0L)
                    {
                        visited[v] |= reach;
                        active = true;
                    }
                }
                if (active)
                {
                    level++;
                }
                final long[] swap = frontier;
                frontier = next;
                next = swap;
            }
            diameter = Math.max(diameter, level);
        }
        return diameter;
    }

    /**
     * A lower bound by double sweeps: breadth-first search from a random vertex, then from the
     * farthest vertex found, {@value #SWEEPS} times. -1 if disconnected.
     */
    public static int lowerBound(final Graph graph, final long seed)
    {
        final int n = graph.n();
        if (n <= 1)
        {
            return 0;
        }
        final int[] dist = new int[n];
        final int[] queue = new int[n];
        int source = new SplittableRandom(seed).nextInt(n);
        int best = 0;
        for (int sweep = 0; sweep < 2 * SWEEPS; sweep++)
        {
            Arrays.fill(dist, -1);
            int head = 0;
            int tail = 0;
            queue[tail++] = source;
            dist[source] = 0;
            int farthest = source;
            while (head < tail)
            {
                final int u = queue[head++];
                if (dist[u] > dist[farthest])
                {
                    farthest = u;
                }
                for (int i = 0; i < graph.degree(u); i++)
                {
                    final int w = graph.neighbour(u, i);
                    if (dist[w] < 0)
                    {
                        dist[w] = dist[u] + 1;
                        queue[tail++] = w;
                    }
                }
            }
            if (tail < n)
            {
                return -1;
            }
            best = Math.max(best, dist[farthest]);
            source = farthest;
        }
        return best;
    }
}
