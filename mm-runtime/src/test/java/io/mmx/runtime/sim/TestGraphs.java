package io.mmx.runtime.sim;

import io.mmx.planner.graph.Graph;
import org.jgrapht.generate.RandomRegularGraphGenerator;
import org.jgrapht.graph.DefaultEdge;
import org.jgrapht.graph.SimpleGraph;
import org.jgrapht.util.SupplierUtil;

/**
 * Test graphs. Random d-regular graphs come from JGraphT until the planner's generator lands;
 * this is the one place that converts them to {@link Graph}.
 */
public final class TestGraphs
{
    private TestGraphs()
    {
    }

    public static Graph randomRegular(final int n, final int degree, final long seed)
    {
        final SimpleGraph<Integer, DefaultEdge> g =
            new SimpleGraph<>(SupplierUtil.createIntegerSupplier(), SupplierUtil.DEFAULT_EDGE_SUPPLIER, false);
        new RandomRegularGraphGenerator<Integer, DefaultEdge>(n, degree, seed).generateGraph(g);
        final Graph.Builder b = Graph.builder(n);
        for (final DefaultEdge e : g.edgeSet())
        {
            b.addEdge(g.getEdgeSource(e), g.getEdgeTarget(e));
        }
        final Graph graph = b.build();
        if (graph.regularDegree() != degree)
        {
            throw new IllegalStateException("generator returned a non-" + degree + "-regular graph on " + n);
        }
        return graph;
    }

    public static Graph complete(final int n)
    {
        final Graph.Builder b = Graph.builder(n);
        for (int u = 0; u < n; u++)
        {
            for (int v = u + 1; v < n; v++)
            {
                b.addEdge(u, v);
            }
        }
        return b.build();
    }

    public static Graph cycle(final int n)
    {
        final Graph.Builder b = Graph.builder(n);
        for (int u = 0; u < n; u++)
        {
            b.addEdge(u, (u + 1) % n);
        }
        return b.build();
    }
}
