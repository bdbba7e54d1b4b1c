package io.mmx.planner.generate;

import io.mmx.planner.graph.Graph;

/**
 * The circulant graph {@value #NAME}: process {@code i} is joined to {@code i ± 1 .. i ± d/2}
 * (mod n) and, for odd d (n is then even), to the opposite process {@code i + n/2}.
 *
 * <p>Deterministic, always connected and easy to reason about, but a poor expander: its
 * second eigenvalue tends to d as n grows, so its certified crash tolerance falls towards
 * message passing's. Use it as a baseline or for small clusters, not for large plans. The
 * seed is ignored.
 */
public final class CirculantGenerator implements GraphGenerator
{
    /** Registry name. */
    public static final String NAME = "circulant";

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public Graph generate(final int n, final int degree, final long seed)
    {
        GenerationRequest.validate(n, degree);
        // degree < n keeps the offsets 1..degree/2 below n/2, so no offset repeats another.
        final int half = degree / 2;
        final int m = (int)((long)n * degree / 2);
        final int[] us = new int[m];
        final int[] vs = new int[m];
        int k = 0;
        for (int i = 0; i < n; i++)
        {
            for (int offset = 1; offset <= half; offset++)
            {
                us[k] = i;
                vs[k] = (i + offset) % n;
                k++;
            }
            if ((degree & 1) != 0 && i < n / 2)
            {
                us[k] = i;
                vs[k] = i + n / 2;
                k++;
            }
        }
        return Graph.fromEdges(n, us, vs);
    }
}
