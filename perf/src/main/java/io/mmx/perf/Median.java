package io.mmx.perf;

import java.util.Arrays;

/** The median of a benchmark's repeated rounds, the figure every suite that repeats reports. */
public final class Median
{
    private Median()
    {
    }

    /** The median of the values that are numbers (NaN ones are left out), or NaN if none is. */
    public static double of(final double[] values)
    {
        final double[] v = Arrays.stream(values).filter(x -> !Double.isNaN(x)).sorted().toArray();
        if (v.length == 0)
        {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
