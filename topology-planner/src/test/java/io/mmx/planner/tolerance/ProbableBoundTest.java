package io.mmx.planner.tolerance;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProbableBoundTest
{
    /** Shapes small enough to enumerate every pairing of their n·d slots. */
    private static final int[][] TINY = {{3, 2}, {4, 2}, {4, 3}, {5, 2}, {6, 2}, {4, 4}, {7, 2}};

    @Test
    void expectationMatchesEnumerationOfEveryPairing()
    {
        for (final int[] shape : TINY)
        {
            final int n = shape[0];
            final int d = shape[1];
            final double[] exact = enumerateExpectations(n, d);
            for (int k = 0; k <= n / 2; k++)
            {
                final double formula = Math.exp(ProbableBound.logExpectedBlockingPairs(n, d, k));
                assertEquals(exact[k], formula, 1e-9 * Math.max(1, exact[k]), "n=" + n + " d=" + d + " k=" + k);
                // The margin only ever rounds up.
                assertTrue(formula >= exact[k] * (1 - 1e-12), "n=" + n + " d=" + d + " k=" + k);
            }
        }
    }

    @Test
    void emptyLiveSetCountsEveryHalf()
    {
        // With S empty every T of size ceil(n/2) qualifies, whatever the pairing.
        final double logChoose = LogFactorial.binomial(1000, 500);
        assertEquals(logChoose, ProbableBound.logExpectedBlockingPairs(1000, 6, 0), 1e-6);
    }

    @Test
    void windowedSumAgreesWithTheFullSum()
    {
        final int[][] shapes = {{200, 4, 30}, {1000, 8, 180}, {4096, 8, 760}, {4096, 3, 400}, {999, 6, 120}};
        for (final int[] shape : shapes)
        {
            final int n = shape[0];
            final int d = shape[1];
            final int k = shape[2];
            final long a = (long)k * d;
            final long b = (long)(n - n / 2) * d;
            final long c = (long)(n - k - (n - n / 2)) * d;
            double max = Double.NEGATIVE_INFINITY;
            for (long i = a & 1; i <= Math.min(a, c); i += 2)
            {
                max = Math.max(max, ProbableBound.logSummand(a, b, c, i));
            }
            double sum = 0;
            for (long i = a & 1; i <= Math.min(a, c); i += 2)
            {
                sum += Math.exp(ProbableBound.logSummand(a, b, c, i) - max);
            }
            final double full = max + Math.log(sum);
            final double windowed = ProbableBound.logSum(a, b, c);
            assertTrue(windowed >= full - 1e-9 && windowed <= full + 1e-9, "n=" + n + " d=" + d + " k=" + k +
                ": windowed " + windowed + " full " + full);
        }
    }

    @Test
    void boundIsMonotoneInTheTargetAndMeetsIt()
    {
        int previous = Integer.MAX_VALUE;
        for (final double target : new double[] {1e-3, 1e-6, 1e-9, 1e-12, 1e-30})
        {
            final ProbableTolerance p = ProbableBound.of(4096, 8, 32, target);
            assertTrue(p.applicable());
            assertTrue(p.failureProbability() <= target, p.toString());
            assertTrue(p.probableF() <= previous, "a stricter target cannot raise probable_f: " + p);
            assertEquals(4096 - p.liveSetLimit(), p.probableF());
            // One more crash tolerated would need a live set one smaller to be ruled out, which the target refuses.
            assertTrue(32 * Math.exp(ProbableBound.logExpectedBlockingPairs(4096, 8, p.liveSetLimit() - 1)) > target);
            previous = p.probableF();
        }
    }

    @Test
    void valuesAtPlanSizes()
    {
        final ProbableTolerance p = ProbableBound.of(4096, 8, 32, 1e-9);
        System.out.println("n=4096 d=8: " + p);
        // The degree limit caps every 8-regular graph; the first moment sits near 0.815 n.
        assertTrue(p.probableF() > 0.80 * 4096 && p.probableF() < 0.83 * 4096, p.toString());
        final ProbableTolerance million = ProbableBound.of(1_000_000, 8, 32, 1e-9);
        System.out.println("n=10^6 d=8: " + million);
        assertTrue(million.probableF() > 0.80 * 1_000_000 && million.probableF() < 0.84 * 1_000_000, million.toString());
        // More neighbours, more tolerance.
        assertTrue(ProbableBound.of(4096, 16, 32, 1e-9).probableF() > p.probableF());
        assertTrue(ProbableBound.of(4096, 4, 32, 1e-9).probableF() < p.probableF());
    }

    @Test
    void tinyGraphsStopAtImpossibleSets()
    {
        // On 6 vertices of degree 3 a blocked S of size 3 would need its 9 slots paired among themselves.
        final ProbableTolerance p = ProbableBound.of(6, 3, 32, 1e-9);
        assertEquals(3, p.liveSetLimit());
        assertEquals(0.0, p.failureProbability());
        assertTrue(32 * Math.exp(ProbableBound.logExpectedBlockingPairs(6, 3, 2)) > 1e-9);
    }

    @Test
    void badArgumentsAreRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> ProbableBound.of(100, 4, 32, 0));
        assertThrows(IllegalArgumentException.class, () -> ProbableBound.of(100, 4, 32, 1));
        assertThrows(IllegalArgumentException.class, () -> ProbableBound.of(5, 3, 32, 1e-9));
        assertFalse(ProbableTolerance.notApplicable("x").applicable());
    }

    /** E[X_k] for every k by averaging over all (nd - 1)!! pairings. */
    private static double[] enumerateExpectations(final int n, final int d)
    {
        final int points = n * d;
        final int[] partner = new int[points];
        java.util.Arrays.fill(partner, -1);
        final double[] totals = new double[n / 2 + 1];
        final long[] pairings = {0};
        enumerate(partner, 0, n, d, totals, pairings);
        for (int k = 0; k < totals.length; k++)
        {
            totals[k] /= pairings[0];
        }
        return totals;
    }

    private static void enumerate(final int[] partner, final int from, final int n, final int d, final double[] totals,
        final long[] pairings)
    {
        int first = from;
        while (first < partner.length && partner[first] >= 0)
        {
            first++;
        }
        if (first == partner.length)
        {
            pairings[0]++;
            count(partner, n, d, totals);
            return;
        }
        for (int other = first + 1; other < partner.length; other++)
        {
            if (partner[other] < 0)
            {
                partner[first] = other;
                partner[other] = first;
                enumerate(partner, first + 1, n, d, totals, pairings);
                partner[first] = -1;
                partner[other] = -1;
            }
        }
    }

    /** Adds, for each k, the number of (S, T) with |S| = k, |T| = ceil(n/2), disjoint, no edge between. */
    private static void count(final int[] partner, final int n, final int d, final double[] totals)
    {
        final int[] closed = new int[n];
        for (int v = 0; v < n; v++)
        {
            closed[v] |= 1 << v;
        }
        for (int p = 0; p < partner.length; p++)
        {
            closed[p / d] |= 1 << (partner[p] / d);
        }
        final int t = n - n / 2;
        for (int s = 0; s < 1 << n; s++)
        {
            final int k = Integer.bitCount(s);
            if (k > n / 2)
            {
                continue;
            }
            int cover = 0;
            for (int v = 0; v < n; v++)
            {
                if ((s >> v & 1) != 0)
                {
                    cover |= closed[v];
                }
            }
            totals[k] += choose(n - Integer.bitCount(cover), t);
        }
    }

    private static double choose(final int m, final int j)
    {
        if (j < 0 || j > m)
        {
            return 0;
        }
        double result = 1;
        for (int i = 0; i < j; i++)
        {
            result = result * (m - i) / (i + 1);
        }
        return Math.round(result);
    }
}
