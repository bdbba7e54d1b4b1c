package io.mmx.planner.spectral;

import io.mmx.planner.analysis.TestGraphs;
import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.*;

class LanczosTest
{
    private static final double TOLERANCE = 1e-8;

    @Test
    void matchesDenseJacobiOnRegularGraphs()
    {
        for (long seed = 1; seed <= 12; seed++)
        {
            final int n = 20 + (int)(seed * 7);
            final int d = 3 + (int)(seed % 4);
            final Graph g = TestGraphs.randomRegular(n, d, seed);
            System.out.println("LanczosTest regular n=" + n + " d=" + d + " graphSeed=" + seed);
            assertAgreesWithDense(g, seed);
        }
        assertAgreesWithDense(TestGraphs.petersen(), 3);
        assertAgreesWithDense(TestGraphs.cycle(12), 4);
        assertAgreesWithDense(TestGraphs.complete(9), 5);
    }

    @Test
    void matchesDenseJacobiOnNonRegularGraphs()
    {
        for (long seed = 1; seed <= 6; seed++)
        {
            final Graph g = TestGraphs.randomGnp(40 + (int)seed * 5, 0.15, seed);
            System.out.println("LanczosTest gnp n=" + g.n() + " graphSeed=" + seed);
            assertAgreesWithDense(g, seed);
        }
        assertAgreesWithDense(TestGraphs.path(17), 9);
    }

    @Test
    void twoPassFormAgreesWithStoredBasis()
    {
        final Graph g = TestGraphs.randomRegular(2000, 6, 11);
        final SpectrumEstimate stored = new Lanczos(5, 200, 1e-6, Long.MAX_VALUE).estimate(g);
        final SpectrumEstimate twoPass = new Lanczos(5, 200, 1e-6, 0).estimate(g);
        System.out.println("LanczosTest stored " + stored.reorthogonalisation() + " / " + twoPass.reorthogonalisation());
        assertTrue(stored.reorthogonalisation().startsWith("partial"));
        assertTrue(twoPass.reorthogonalisation().startsWith("local"));
        assertEquals(stored.lambda2(), twoPass.lambda2(), 1e-6);
        assertEquals(stored.lambdaMin(), twoPass.lambdaMin(), 1e-6);
        assertTrue(twoPass.lambda2Residual() < 1e-3, "two-pass Ritz vector residual " + twoPass.lambda2Residual());
    }

    @Test
    void rejectsBadParameters()
    {
        assertThrows(IllegalArgumentException.class, () -> new Lanczos(1, 1, 1e-6, 0));
        assertThrows(IllegalArgumentException.class, () -> new Lanczos(1, 10, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new Lanczos(1, 10, 1e-6, -1));
    }

    @Test
    void handlesTinyGraphs()
    {
        final SpectrumEstimate one = new Lanczos(1).estimate(Graph.empty(1));
        assertEquals(0.0, one.lambdaBound());
        final SpectrumEstimate two = new Lanczos(1).estimate(Graph.builder(2).addEdge(0, 1).build());
        assertEquals(-1.0, two.lambdaMin(), TOLERANCE);
        assertEquals(-1.0, two.lambda2(), TOLERANCE);
    }

    private static void assertAgreesWithDense(final Graph g, final long seed)
    {
        final double[] eigen = Jacobi.eigenvalues(adjacency(g));
        Arrays.sort(eigen);
        final int n = g.n();
        final SpectrumEstimate estimate = new Lanczos(seed).estimate(g);
        final String context = g + " seed=" + seed + " dense=" + Arrays.toString(eigen) + " estimate=" + estimate;
        assertEquals(eigen[n - 1], estimate.lambda1(), TOLERANCE, context);
        assertEquals(eigen[n - 2], estimate.lambda2(), TOLERANCE, context);
        assertEquals(eigen[0], estimate.lambdaMin(), TOLERANCE, context);
        assertTrue(estimate.lambda2Upper() >= eigen[n - 2] - 1e-12, context);
        assertTrue(estimate.lambdaMinLower() <= eigen[0] + 1e-12, context);
        assertTrue(estimate.lambdaBound() >= Math.max(Math.abs(eigen[n - 2]), Math.abs(eigen[0])) - 1e-12, context);
        assertTrue(estimate.lambda2Residual() < 1e-6, context);
        assertTrue(estimate.lambdaMinResidual() < 1e-6, context);
    }

    private static double[][] adjacency(final Graph g)
    {
        final double[][] a = new double[g.n()][g.n()];
        g.forEachEdge((u, v) ->
        {
            a[u][v] = 1;
            a[v][u] = 1;
        });
        return a;
    }

    /** Cyclic Jacobi rotations for dense symmetric matrices; test reference only. */
    static final class Jacobi
    {
        static double[] eigenvalues(final double[][] input)
        {
            final int n = input.length;
            final double[][] a = new double[n][];
            for (int i = 0; i < n; i++)
            {
                a[i] = input[i].clone();
            }
            for (int sweep = 0; sweep < 100; sweep++)
            {
                double off = 0;
                for (int p = 0; p < n; p++)
                {
                    for (int q = p + 1; q < n; q++)
                    {
                        off += a[p][q] * a[p][q];
                    }
                }
                if (off < 1e-22)
                {
                    break;
                }
                for (int p = 0; p < n; p++)
                {
                    for (int q = p + 1; q < n; q++)
                    {
                        if (Math.abs(a[p][q]) < 1e-300)
                        {
                            continue;
                        }
                        final double theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
                        final double t = Math.signum(theta == 0 ? 1 : theta) /
                            (Math.abs(theta) + Math.sqrt(theta * theta + 1));
                        final double c = 1 / Math.sqrt(t * t + 1);
                        final double s = t * c;
                        for (int k = 0; k < n; k++)
                        {
                            final double akp = a[k][p];
                            final double akq = a[k][q];
                            a[k][p] = c * akp - s * akq;
                            a[k][q] = s * akp + c * akq;
                        }
                        for (int k = 0; k < n; k++)
                        {
                            final double apk = a[p][k];
                            final double aqk = a[q][k];
                            a[p][k] = c * apk - s * aqk;
                            a[q][k] = s * apk + c * aqk;
                        }
                    }
                }
            }
            final double[] values = new double[n];
            for (int i = 0; i < n; i++)
            {
                values[i] = a[i][i];
            }
            return values;
        }
    }
}
