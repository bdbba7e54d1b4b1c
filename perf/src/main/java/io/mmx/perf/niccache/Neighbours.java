package io.mmx.perf.niccache;

import io.mmx.planner.graph.Graph;

/**
 * The shared-memory graph as the access pattern needs it: who each process is connected to.
 * A plan's {@link Graph}, or the full mesh, which at n = 4096 is never materialised (it would
 * hold 8.4 million edges only to be enumerated once).
 */
public interface Neighbours
{
    /** Number of processes. */
    int n();

    /** Number of neighbours of {@code p}. */
    int degree(int p);

    /** The {@code i}-th neighbour of {@code p}, {@code 0 <= i < degree(p)}. */
    int neighbour(int p, int i);

    /** The neighbours of a plan graph. */
    static Neighbours of(final Graph graph)
    {
        return new Neighbours()
        {
            @Override
            public int n()
            {
                return graph.n();
            }

            @Override
            public int degree(final int p)
            {
                return graph.degree(p);
            }

            @Override
            public int neighbour(final int p, final int i)
            {
                return graph.neighbour(p, i);
            }
        };
    }

    /** Every process connected to every other: what a plan replaces. */
    static Neighbours fullMesh(final int n)
    {
        if (n < 2)
        {
            throw new IllegalArgumentException("a full mesh needs at least 2 processes, got " + n);
        }
        return new Neighbours()
        {
            @Override
            public int n()
            {
                return n;
            }

            @Override
            public int degree(final int p)
            {
                return n - 1;
            }

            @Override
            public int neighbour(final int p, final int i)
            {
                return i < p ? i : i + 1;
            }
        };
    }
}
