package io.mmx.runtime.sim;

import io.mmx.planner.generate.RandomRegularGenerator;
import io.mmx.planner.graph.Graph;

/** Test graphs: the planner's own random regular graphs (what plans use), and a few fixed families. */
public final class TestGraphs
{
    private TestGraphs()
    {
    }

    public static Graph randomRegular(final int n, final int degree, final long seed)
    {
        return new RandomRegularGenerator().generate(n, degree, seed);
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
