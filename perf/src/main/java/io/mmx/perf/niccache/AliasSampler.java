package io.mmx.perf.niccache;

import java.util.SplittableRandom;

/**
 * Draws index i with probability weight[i] / sum in constant time (Walker's alias method), so
 * sampling from a quarter of a million QP streams costs the same as from ten.
 */
final class AliasSampler
{
    private final double[] probability;
    private final int[] alias;

    AliasSampler(final double[] weights)
    {
        final int k = weights.length;
        if (k == 0)
        {
            throw new IllegalArgumentException("an alias sampler needs at least one weight");
        }
        double sum = 0;
        for (final double w : weights)
        {
            if (!(w >= 0) || Double.isInfinite(w))
            {
                throw new IllegalArgumentException("weights must be finite and non-negative, got " + w);
            }
            sum += w;
        }
        if (sum <= 0)
        {
            throw new IllegalArgumentException("at least one weight must be positive");
        }
        probability = new double[k];
        alias = new int[k];
        final double[] scaled = new double[k];
        final int[] small = new int[k];
        final int[] large = new int[k];
        int smallCount = 0;
        int largeCount = 0;
        for (int i = 0; i < k; i++)
        {
            scaled[i] = weights[i] * k / sum;
            if (scaled[i] < 1.0)
            {
                small[smallCount++] = i;
            }
            else
            {
                large[largeCount++] = i;
            }
        }
        while (smallCount > 0 && largeCount > 0)
        {
            final int s = small[--smallCount];
            final int l = large[--largeCount];
            probability[s] = scaled[s];
            alias[s] = l;
            scaled[l] = scaled[l] + scaled[s] - 1.0;
            if (scaled[l] < 1.0)
            {
                small[smallCount++] = l;
            }
            else
            {
                large[largeCount++] = l;
            }
        }
        // Whatever is left is 1 up to rounding.
        while (largeCount > 0)
        {
            probability[large[--largeCount]] = 1.0;
        }
        while (smallCount > 0)
        {
            probability[small[--smallCount]] = 1.0;
        }
    }

    int sample(final SplittableRandom random)
    {
        final int i = random.nextInt(probability.length);
        return random.nextDouble() < probability[i] ? i : alias[i];
    }
}
