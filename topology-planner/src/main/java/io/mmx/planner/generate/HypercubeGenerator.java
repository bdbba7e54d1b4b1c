package io.mmx.planner.generate;

import io.mmx.planner.graph.Graph;

/**
 * The {@value #NAME} Q_k: {@code n = 2^k} processes, each joined to the k processes whose id
 * differs in one bit, so {@code degree = k = log2 n}. Deterministic, with diameter k and
 * spectral gap 2 (λ2 = k − 2); its degree grows with n, unlike a random regular graph's. The
 * seed is ignored.
 */
public final class HypercubeGenerator implements GraphGenerator
{
    /** Registry name. */
    public static final String NAME = "hypercube";

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public Graph generate(final int n, final int degree, final long seed)
    {
        if (n < 2 || Integer.bitCount(n) != 1)
        {
            final int below = Integer.highestOneBit(Math.max(2, n));
            throw new IllegalArgumentException("the hypercube needs n to be a power of two, got n = " + n +
                "; use n = " + below + " or " + (2L * below) + " (with degree " + Integer.numberOfTrailingZeros(below) +
                " or " + (Integer.numberOfTrailingZeros(below) + 1) + ")");
        }
        final int k = Integer.numberOfTrailingZeros(n);
        if (degree != k)
        {
            throw new IllegalArgumentException("the hypercube on n = " + n + " = 2^" + k + " processes has degree " +
                k + ", not " + degree + "; use degree " + k + ", or n = 2^" + degree + " for degree " + degree);
        }
        GenerationRequest.validate(n, degree);
        final int m = n / 2 * k;
        final int[] us = new int[m];
        final int[] vs = new int[m];
        int e = 0;
        for (int v = 0; v < n; v++)
        {
            for (int bit = 0; bit < k; bit++)
            {
                final int w = v ^ (1 << bit);
                if (v < w)
                {
                    us[e] = v;
                    vs[e] = w;
                    e++;
                }
            }
        }
        return Graph.fromEdges(n, us, vs);
    }
}
