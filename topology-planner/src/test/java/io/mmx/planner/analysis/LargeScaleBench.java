package io.mmx.planner.analysis;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.spectral.SpectrumEstimate;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

/**
 * Manual benchmark at n = 10^6 (not run by surefire: the name does not end in Test). Run with
 * {@code -Dn=1000000}; it prints the analysis, its stage timings and the heap growth. The graph is a union of d/2 random Hamiltonian cycles, resampled until simple.
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
        final Runtime rt = Runtime.getRuntime();
        System.gc();
        final long before = rt.totalMemory() - rt.freeMemory();
        final GraphAnalysis a = GraphAnalyzer.analyze(g, AnalysisOptions.defaults().withSeed(seed)
            .withAttackBudgetMillis(Long.getLong("attackMillis", 5_000L)));
        final long after = rt.totalMemory() - rt.freeMemory();
        final SpectrumEstimate s = a.spectrum();
        System.out.printf("lambda2=%.6f (<= %.6f) lambdaMin=%.6f (>= %.6f) residuals %.2e %.2e, %d steps, %s%n",
            s.lambda2(), s.lambda2Upper(), s.lambdaMin(), s.lambdaMinLower(), s.lambda2Residual(), s.lambdaMinResidual(),
            s.iterations(), s.reorthogonalisation());
        System.out.printf("certifiedF=%d (%.4f n, %s) attack |S|=%d (%.4f n) diameter>=%d heap delta ~%d MiB, %s%n",
            a.certifiedF(), a.certifiedF() / (double)n, a.certificate().method(), a.attack().witness().length,
            a.attack().witness().length / (double)n, a.diameter(), (after - before) >> 20, a.timings());
    }

    static Graph unionOfCycles(final int n, final int d, final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final int[] adjacency = new int[n * d];
        final int[] degree = new int[n];
        final int[] us = new int[n * d / 2];
        final int[] vs = new int[n * d / 2];
        int m = 0;
        for (int c = 0; c < d / 2; c++)
        {
            int[] perm;
            do
            {
                perm = new int[n];
                for (int i = 0; i < n; i++)
                {
                    final int j = random.nextInt(i + 1);
                    perm[i] = perm[j];
                    perm[j] = i;
                }
            }
            while (!simpleWith(perm, adjacency, degree, d));
            for (int i = 0; i < n; i++)
            {
                final int a = perm[i];
                final int b = perm[(i + 1) % n];
                adjacency[a * d + degree[a]++] = b;
                adjacency[b * d + degree[b]++] = a;
                us[m] = a;
                vs[m++] = b;
            }
        }
        return Graph.fromEdges(n, us, vs);
    }

    /** True if the cycle perm repeats no existing edge and no edge of its own (n > 2). */
    private static boolean simpleWith(final int[] perm, final int[] adjacency, final int[] degree, final int d)
    {
        final int n = perm.length;
        for (int i = 0; i < n; i++)
        {
            final int a = perm[i];
            final int b = perm[(i + 1) % n];
            for (int k = 0; k < degree[a]; k++)
            {
                if (adjacency[a * d + k] == b)
                {
                    return false;
                }
            }
        }
        return true;
    }
}
