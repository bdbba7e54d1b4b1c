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
        return SeedSweep.complete(n);
    }

    public static Graph cycle(final int n)
    {
        return SeedSweep.cycle(n);
    }
}
