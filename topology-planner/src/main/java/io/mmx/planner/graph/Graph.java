package io.mmx.planner.graph;

import java.util.Arrays;

/**
 * An immutable simple undirected graph on vertices {@code 0..n-1} in compressed sparse row
 * form: the neighbours of {@code v} are {@code targets[offsets[v] .. offsets[v+1])}, sorted
 * ascending. Every edge appears in both endpoints' rows. No self-loops, no repeated edges.
 *
 * <p>The arrays are shared, not copied, by {@link #offsets()} and {@link #targets()} so that
 * analysis at n = 1,000,000 stays cheap; callers must not modify them.
 */
public final class Graph
{
    private final int n;
    private final int[] offsets;
    private final int[] targets;

    private Graph(final int n, final int[] offsets, final int[] targets)
    {
        this.n = n;
        this.offsets = offsets;
        this.targets = targets;
    }

    /** The graph on {@code n} vertices with no edges. */
    public static Graph empty(final int n)
    {
        return new Builder(n).build();
    }

    /** A builder for a graph on {@code n} vertices. */
    public static Builder builder(final int n)
    {
        return new Builder(n);
    }

    /** Builds a graph from parallel endpoint arrays; validates as {@link Builder#build()} does. */
    public static Graph fromEdges(final int n, final int[] us, final int[] vs)
    {
        if (us.length != vs.length)
        {
            throw new IllegalArgumentException("endpoint arrays differ in length: " + us.length + " vs " + vs.length);
        }
        final Builder builder = new Builder(n, us.length);
        for (int i = 0; i < us.length; i++)
        {
            builder.addEdge(us[i], vs[i]);
        }
        return builder.build();
    }

    /** Vertices (processes). */
    public int n()
    {
        return n;
    }

    /** The degree of vertex {@code v}. */
    public int degree(final int v)
    {
        return offsets[v + 1] - offsets[v];
    }

    /** The {@code i}-th smallest neighbour of {@code v}. */
    public int neighbour(final int v, final int i)
    {
        return targets[offsets[v] + i];
    }

    /** A copy of the sorted neighbour list of {@code v}. */
    public int[] neighbours(final int v)
    {
        return Arrays.copyOfRange(targets, offsets[v], offsets[v + 1]);
    }

    /** Row starts, length n + 1. Shared: do not modify. */
    public int[] offsets()
    {
        return offsets;
    }

    /** Concatenated sorted neighbour rows, length 2m. Shared: do not modify. */
    public int[] targets()
    {
        return targets;
    }

    /** Edges, each counted once. */
    public long edgeCount()
    {
        return targets.length / 2;
    }

    /** True if {@code u} and {@code v} are neighbours. */
    public boolean hasEdge(final int u, final int v)
    {
        if (u < 0 || u >= n || v < 0 || v >= n)
        {
            return false;
        }
        return Arrays.binarySearch(targets, offsets[u], offsets[u + 1], v) >= 0;
    }

    /** The smallest degree. */
    public int minDegree()
    {
        int min = n == 0 ? 0 : Integer.MAX_VALUE;
        for (int v = 0; v < n; v++)
        {
            min = Math.min(min, degree(v));
        }
        return min;
    }

    /** The largest degree. */
    public int maxDegree()
    {
        int max = 0;
        for (int v = 0; v < n; v++)
        {
            max = Math.max(max, degree(v));
        }
        return max;
    }

    /** The common degree if every vertex has it, otherwise -1. */
    public int regularDegree()
    {
        final int min = minDegree();
        return min == maxDegree() ? min : -1;
    }

    /** Calls {@code consumer} once per edge with {@code u < v}, in (u, v) lexicographic order. */
    public void forEachEdge(final EdgeConsumer consumer)
    {
        for (int u = 0; u < n; u++)
        {
            for (int i = offsets[u]; i < offsets[u + 1]; i++)
            {
                final int v = targets[i];
                if (u < v)
                {
                    consumer.accept(u, v);
                }
            }
        }
    }

    /** Size of the closed neighbourhood N[S] of the set given by {@code inSet} (length n). */
    public int closedNeighbourhoodSize(final boolean[] inSet)
    {
        final boolean[] covered = new boolean[n];
        int count = 0;
        for (int v = 0; v < n; v++)
        {
            if (!inSet[v])
            {
                continue;
            }
            if (!covered[v])
            {
                covered[v] = true;
                count++;
            }
            for (int i = offsets[v]; i < offsets[v + 1]; i++)
            {
                final int w = targets[i];
                if (!covered[w])
                {
                    covered[w] = true;
                    count++;
                }
            }
        }
        return count;
    }

    /** True if every vertex reaches every other (the empty graph on 0 or 1 vertex counts). */
    public boolean isConnected()
    {
        return n <= 1 || componentCount() == 1;
    }

    /** Number of connected components. */
    public int componentCount()
    {
        final int[] component = new int[n];
        Arrays.fill(component, -1);
        final int[] queue = new int[n];
        int components = 0;
        for (int s = 0; s < n; s++)
        {
            if (component[s] >= 0)
            {
                continue;
            }
            int head = 0;
            int tail = 0;
            queue[tail++] = s;
            component[s] = components;
            while (head < tail)
            {
                final int u = queue[head++];
                for (int i = offsets[u]; i < offsets[u + 1]; i++)
                {
                    final int w = targets[i];
                    if (component[w] < 0)
                    {
                        component[w] = components;
                        queue[tail++] = w;
                    }
                }
            }
            components++;
        }
        return components;
    }

    /** Eccentricity of {@code source} by breadth-first search; -1 if some vertex is unreachable. */
    public int eccentricity(final int source)
    {
        final int[] dist = new int[n];
        Arrays.fill(dist, -1);
        final int[] queue = new int[n];
        int head = 0;
        int tail = 0;
        queue[tail++] = source;
        dist[source] = 0;
        int max = 0;
        while (head < tail)
        {
            final int u = queue[head++];
            for (int i = offsets[u]; i < offsets[u + 1]; i++)
            {
                final int w = targets[i];
                if (dist[w] < 0)
                {
                    dist[w] = dist[u] + 1;
                    max = Math.max(max, dist[w]);
                    queue[tail++] = w;
                }
            }
        }
        return tail == n ? max : -1;
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof Graph && ((Graph)o).n == n &&
            Arrays.equals(((Graph)o).offsets, offsets) && Arrays.equals(((Graph)o).targets, targets);
    }

    @Override
    public int hashCode()
    {
        return 31 * n + Arrays.hashCode(targets);
    }

    @Override
    public String toString()
    {
        return "Graph(n=" + n + ", m=" + edgeCount() + ")";
    }

    /** Receives one edge. */
    @FunctionalInterface
    public interface EdgeConsumer
    {
        /** One edge between {@code u} and {@code v}. */
        void accept(int u, int v);
    }

    /**
     * Collects undirected edges and builds a validated {@link Graph}. Each edge is added once,
     * as {@code (u, v)} in either order.
     */
    public static final class Builder
    {
        private final int n;
        private int[] us;
        private int[] vs;
        private int size;

        Builder(final int n)
        {
            this(n, 16);
        }

        Builder(final int n, final int expectedEdges)
        {
            if (n < 0)
            {
                throw new InvalidGraphException("vertex count must be >= 0, got " + n);
            }
            this.n = n;
            this.us = new int[Math.max(1, expectedEdges)];
            this.vs = new int[Math.max(1, expectedEdges)];
        }

        /** Adds the edge between {@code u} and {@code v}; returns this builder. */
        public Builder addEdge(final int u, final int v)
        {
            if (u < 0 || u >= n || v < 0 || v >= n)
            {
                throw new InvalidGraphException("edge (" + u + ", " + v + ") names a vertex outside 0.." + (n - 1) +
                    ": ids are 0-based and must be below n = " + n);
            }
            if (u == v)
            {
                throw new InvalidGraphException("self-loop at vertex " + u + ": a process is always in its own " +
                    "neighbourhood, remove the edge (" + u + ", " + u + ")");
            }
            if (size == us.length)
            {
                final int capacity = (int)Math.min(Integer.MAX_VALUE - 8, 2L * us.length);
                us = Arrays.copyOf(us, capacity);
                vs = Arrays.copyOf(vs, capacity);
            }
            us[size] = u;
            vs[size] = v;
            size++;
            return this;
        }

        /** Edges added so far. */
        public int edgeCount()
        {
            return size;
        }

        /** Builds the graph; rejects a repeated edge with the pair that repeats. */
        public Graph build()
        {
            final int[] offsets = new int[n + 1];
            for (int i = 0; i < size; i++)
            {
                offsets[us[i] + 1]++;
                offsets[vs[i] + 1]++;
            }
            for (int v = 0; v < n; v++)
            {
                offsets[v + 1] += offsets[v];
            }
            final int[] targets = new int[2 * size];
            final int[] fill = Arrays.copyOf(offsets, n);
            for (int i = 0; i < size; i++)
            {
                targets[fill[us[i]]++] = vs[i];
                targets[fill[vs[i]]++] = us[i];
            }
            for (int v = 0; v < n; v++)
            {
                Arrays.sort(targets, offsets[v], offsets[v + 1]);
                for (int i = offsets[v] + 1; i < offsets[v + 1]; i++)
                {
                    if (targets[i] == targets[i - 1])
                    {
                        throw new InvalidGraphException("edge (" + Math.min(v, targets[i]) + ", " +
                            Math.max(v, targets[i]) + ") appears more than once: list each edge once");
                    }
                }
            }
            return new Graph(n, offsets, targets);
        }
    }
}
