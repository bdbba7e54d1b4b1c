package io.mmx.planner.analysis;

import io.mmx.planner.graph.Graph;
import org.jgrapht.generate.RandomRegularGraphGenerator;
import org.jgrapht.graph.DefaultEdge;
import org.jgrapht.graph.SimpleGraph;
import org.jgrapht.util.SupplierUtil;

import java.util.SplittableRandom;

/** Graphs for the analysis tests; random ones come from JGraphT so no planner generator is needed. */
public final class TestGraphs
{
    private TestGraphs()
    {
    }

    /** A random simple d-regular graph on n vertices from JGraphT with an explicit seed. */
    public static Graph randomRegular(final int n, final int d, final long seed)
    {
        final SimpleGraph<Integer, DefaultEdge> jg = new SimpleGraph<>(
            SupplierUtil.createIntegerSupplier(), SupplierUtil.DEFAULT_EDGE_SUPPLIER, false);
        new RandomRegularGraphGenerator<Integer, DefaultEdge>(n, d, seed).generateGraph(jg);
        final Graph.Builder builder = Graph.builder(n);
        for (final DefaultEdge e : jg.edgeSet())
        {
            builder.addEdge(jg.getEdgeSource(e), jg.getEdgeTarget(e));
        }
        return builder.build();
    }

    /** An Erdos-Renyi graph G(n, p) with an explicit seed (not regular in general). */
    public static Graph randomGnp(final int n, final double p, final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final Graph.Builder builder = Graph.builder(n);
        for (int u = 0; u < n; u++)
        {
            for (int v = u + 1; v < n; v++)
            {
                if (random.nextDouble() < p)
                {
                    builder.addEdge(u, v);
                }
            }
        }
        return builder.build();
    }

    public static Graph cycle(final int n)
    {
        final Graph.Builder builder = Graph.builder(n);
        for (int i = 0; i < n; i++)
        {
            builder.addEdge(i, (i + 1) % n);
        }
        return builder.build();
    }

    public static Graph complete(final int n)
    {
        final Graph.Builder builder = Graph.builder(n);
        for (int u = 0; u < n; u++)
        {
            for (int v = u + 1; v < n; v++)
            {
                builder.addEdge(u, v);
            }
        }
        return builder.build();
    }

    public static Graph petersen()
    {
        final Graph.Builder builder = Graph.builder(10);
        for (int i = 0; i < 5; i++)
        {
            builder.addEdge(i, (i + 1) % 5);
            builder.addEdge(i, i + 5);
            builder.addEdge(5 + i, 5 + (i + 2) % 5);
        }
        return builder.build();
    }

    /** A path on n vertices. */
    public static Graph path(final int n)
    {
        final Graph.Builder builder = Graph.builder(n);
        for (int i = 0; i + 1 < n; i++)
        {
            builder.addEdge(i, i + 1);
        }
        return builder.build();
    }
}
