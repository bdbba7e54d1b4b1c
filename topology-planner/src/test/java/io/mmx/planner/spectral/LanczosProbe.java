package io.mmx.planner.spectral;

import io.mmx.planner.graph.Graph;

/** Exposes Lanczos kernels to benchmarks in other test packages. */
public final class LanczosProbe
{
    private LanczosProbe()
    {
    }

    public static void multiply(final Graph g, final double[] x, final double[] y)
    {
        Lanczos.multiply(g, x, y);
    }

    public static double dot(final double[] x, final double[] y)
    {
        return Lanczos.dot(x, y);
    }
}
