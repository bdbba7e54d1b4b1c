package io.mmx.planner.analysis;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.spectral.Lanczos;
import io.mmx.planner.spectral.SpectrumEstimate;
import io.mmx.planner.tolerance.CertifiedBound;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Manual benchmark at n = 10^6 (not run by surefire: the name does not end in Test). Run with
 * {@code -Dn=1000000}. The graph is a union of d/2 random Hamiltonian cycles, resampled until simple.
 */
class LargeScaleBench
{
    @Test
    void millionVertexSpectrum()
    {
        final int n = Integer.getInteger("n", 1_000_000);
        final long seed = Long.getLong("seed", 1L);
        final Graph g = unionOfCycles(n, 8, seed);
        System.out.println("LargeScaleBench n=" + n + " d=8 graphSeed=" + seed + " built");
        final double[] x = new double[n];
        final double[] y = new double[n];
        java.util.Arrays.fill(x, 1.0);
        for (int rep = 0; rep < 3; rep++)
        {
            final long t0 = System.nanoTime();
            for (int i = 0; i < 20; i++)
            {
                io.mmx.planner.spectral.LanczosProbe.multiply(g, x, y);
            }
            final long t1 = System.nanoTime();
            for (int i = 0; i < 20; i++)
            {
                x[i] += io.mmx.planner.spectral.LanczosProbe.dot(x, y);
            }
            System.out.println("matvec " + (t1 - t0) / 20e6 + " ms, dot " + (System.nanoTime() - t1) / 20e6 + " ms");
        }
        final Runtime rt = Runtime.getRuntime();
        System.gc();
        final long before = rt.totalMemory() - rt.freeMemory();
        final long start = System.nanoTime();
        final SpectrumEstimate s = new Lanczos(seed, Integer.getInteger("iterations", 200), 1e-6,
            Lanczos.DEFAULT_BASIS_BUDGET_BYTES).estimate(g);
        final long millis = (System.nanoTime() - start) / 1_000_000;
        final long after = rt.totalMemory() - rt.freeMemory();
        System.out.println("lanczos " + millis + " ms, heap delta ~" + (after - before) / (1 << 20) + " MiB: " + s);
        System.out.println(CertifiedBound.certify(g, s));
    }

    static Graph unionOfCycles(final int n, final int d, final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final Set<Long> edges = new HashSet<>();
        final int[] us = new int[n * d / 2];
        final int[] vs = new int[n * d / 2];
        int m = 0;
        for (int c = 0; c < d / 2; c++)
        {
            while (true)
            {
                final int[] perm = new int[n];
                for (int i = 0; i < n; i++)
                {
                    final int j = random.nextInt(i + 1);
                    perm[i] = perm[j];
                    perm[j] = i;
                }
                final Set<Long> added = new HashSet<>();
                boolean ok = true;
                for (int i = 0; i < n && ok; i++)
                {
                    final int a = perm[i];
                    final int b = perm[(i + 1) % n];
                    final long key = (long)Math.min(a, b) * n + Math.max(a, b);
                    ok = !edges.contains(key) && added.add(key);
                }
                if (ok)
                {
                    edges.addAll(added);
                    for (int i = 0; i < n; i++)
                    {
                        us[m] = perm[i];
                        vs[m++] = perm[(i + 1) % n];
                    }
                    break;
                }
            }
        }
        return Graph.fromEdges(n, us, vs);
    }
}
