package io.mmx.planner.tolerance;

/**
 * Natural logarithms of factorials, binomials and pairing counts for arguments up to 2^31,
 * accurate to a few units in the last place: a table of summed logarithms below
 * {@value #TABLE_SIZE}, the Stirling series with four correction terms above it (its truncation
 * error there is below 1e-25).
 */
final class LogFactorial
{
    private static final int TABLE_SIZE = 256;
    private static final double HALF_LOG_TWO_PI = 0.5 * Math.log(2 * Math.PI);
    private static final double LOG_TWO = Math.log(2);
    private static final double[] TABLE = new double[TABLE_SIZE];

    static
    {
        double sum = 0;
        for (int m = 1; m < TABLE_SIZE; m++)
        {
            sum += Math.log(m);
            TABLE[m] = sum;
        }
    }

    private LogFactorial()
    {
    }

    /** ln(m!). */
    static double of(final long m)
    {
        if (m < 0)
        {
            throw new IllegalArgumentException("factorial of a negative number: " + m);
        }
        if (m < TABLE_SIZE)
        {
            return TABLE[(int)m];
        }
        final double x = m + 1.0;
        final double inv = 1.0 / x;
        final double inv2 = inv * inv;
        final double series = inv * (1.0 / 12 - inv2 * (1.0 / 360 - inv2 * (1.0 / 1260 - inv2 / 1680)));
        return (x - 0.5) * Math.log(x) - x + HALF_LOG_TWO_PI + series;
    }

    /** ln C(m, j). */
    static double binomial(final long m, final long j)
    {
        return of(m) - of(j) - of(m - j);
    }

    /** ln of the number of perfect matchings of {@code m} points, (m − 1)!! = m! / (2^(m/2) (m/2)!); m even. */
    static double pairings(final long m)
    {
        if ((m & 1) != 0)
        {
            throw new IllegalArgumentException("an odd number of points has no perfect matching: " + m);
        }
        return of(m) - (m / 2) * LOG_TWO - of(m / 2);
    }
}
