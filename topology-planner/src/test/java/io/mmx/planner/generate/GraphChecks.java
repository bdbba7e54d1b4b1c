package io.mmx.planner.generate;

import io.mmx.planner.graph.Graph;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Assertions shared by the generator and change tests. {@link Graph} itself guarantees
 * simplicity (its builder rejects loops and repeats), so these check regularity,
 * connectivity and expansion.
 */
public final class GraphChecks
{
    private GraphChecks()
    {
    }

    /** Asserts {@code graph} has {@code n} vertices, is {@code degree}-regular and connected. */
    public static void assertConnectedRegular(final Graph graph, final int n, final int degree, final String context)
    {
        assertEquals(n, graph.n(), () -> "vertex count, " + context);
        assertEquals(degree, graph.regularDegree(), () -> "regular degree, " + context);
        assertTrue(graph.isConnected(), () -> "connected, " + context);
    }

    /**
     * An estimate of max(|λ2|, |λn|) of a regular graph's adjacency matrix: power iteration
     * orthogonal to the all-ones eigenvector. It approaches the value from below, so a test
     * asserting it is small checks the graph is at least not obviously a poor expander.
     */
    public static double secondEigenvalueEstimate(final Graph graph, final int iterations, final long seed)
    {
        final int n = graph.n();
        final int[] offsets = graph.offsets();
        final int[] targets = graph.targets();
        final SplittableRandom random = new SplittableRandom(seed);
        double[] x = new double[n];
        for (int v = 0; v < n; v++)
        {
            x[v] = random.nextDouble() - 0.5;
        }
        double[] y = new double[n];
        double estimate = 0;
        for (int it = 0; it < iterations; it++)
        {
            double mean = 0;
            for (final double value : x)
            {
                mean += value;
            }
            mean /= n;
            double norm = 0;
            for (int v = 0; v < n; v++)
            {
                x[v] -= mean;
                norm += x[v] * x[v];
            }
            norm = Math.sqrt(norm);
            for (int v = 0; v < n; v++)
            {
                x[v] /= norm;
            }
            double next = 0;
            for (int v = 0; v < n; v++)
            {
                double sum = 0;
                for (int i = offsets[v]; i < offsets[v + 1]; i++)
                {
                    sum += x[targets[i]];
                }
                y[v] = sum;
                next += sum * sum;
            }
            estimate = Math.sqrt(next);
            final double[] t = x;
            x = y;
            y = t;
        }
        return estimate;
    }
}
