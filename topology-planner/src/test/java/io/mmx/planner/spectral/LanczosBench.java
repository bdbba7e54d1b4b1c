package io.mmx.planner.spectral;

import io.mmx.planner.analysis.TestGraphs;
import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

class LanczosBench
{
    @Test
    void bench()
    {
        final Graph g = TestGraphs.randomRegular(4096, 8, 42);
        final double[] x = new double[4096];
        final double[] y = new double[4096];
        java.util.Arrays.fill(x, 1.0);
        for (int rep = 0; rep < 6; rep++)
        {
            final long t0 = System.nanoTime();
            final SpectrumEstimate e = new Lanczos(7).estimate(g);
            final long t1 = System.nanoTime();
            for (int i = 0; i < 300; i++)
            {
                Lanczos.multiply(g, x, y);
                x[i] = y[i] * 0.125;
            }
            final long t2 = System.nanoTime();
            final double[] a = new double[300];
            final double[] b = new double[300];
            for (int i = 0; i < 300; i++) { a[i] = Math.sin(i); b[i] = 1 + Math.cos(i); }
            final TridiagonalEigen te = new TridiagonalEigen(a, b, 300);
            te.vector(te.argMax());
            final long t3 = System.nanoTime();
            System.out.println((t1 - t0) / 1e6 + " ms total, matvec " + (t2 - t1) / 1e6 + " tri " + (t3 - t2) / 1e6);
        }
    }
}
