package io.mmx.planner.report;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.spectral.LanczosResult;
import io.mmx.planner.tolerance.AttackResult;
import io.mmx.planner.tolerance.AttackSearch;
import io.mmx.planner.tolerance.CertifiedBound;

import java.util.Arrays;

/**
 * For live-set sizes k, the proven minimum of |N[S]| over sets of size k and the smallest
 * |N[S]| that attacks found: the curve whose crossing with n/2 is the crash tolerance.
 *
 * <p>The proven curve inverts {@link CertifiedBound#liveSetUpperBound}: the smallest threshold T
 * whose proven live-set bound admits a set of size k is a lower bound on |N[S]| for every S of
 * size k. The attack points run {@link AttackSearch} at a ladder of thresholds T and plot the
 * size it reached against the |N[S]| of its witness.
 */
final class ExpansionProfile
{
    /**
     * Points of the proven curve. Each takes a dozen certificate evaluations, and the quotient
     * interlacing proof costs milliseconds each (about 4 ms at n = 4096, d = 8), so 64 points keep
     * the curve to a few seconds; it is smooth, and the chart draws lines between points.
     */
    private static final int PROVEN_POINTS = 64;

    final double[] provenSizes;
    final double[] provenMin;
    final double[] attackSizes;
    final double[] attackClosed;

    private ExpansionProfile(final double[] provenSizes, final double[] provenMin, final double[] attackSizes,
        final double[] attackClosed)
    {
        this.provenSizes = provenSizes;
        this.provenMin = provenMin;
        this.attackSizes = attackSizes;
        this.attackClosed = attackClosed;
    }

    static ExpansionProfile compute(final Graph graph, final LanczosResult lanczos, final long seed,
        final long budgetMillis, final int points)
    {
        final int n = graph.n();
        final double[] thresholds = new double[points];
        final double[] sizes = new double[points];
        final double[] closed = new double[points];
        int found = 0;
        for (int i = 1; i <= points; i++)
        {
            final int threshold = (int)Math.min(n - 1L, Math.max(graph.minDegree() + 1L, (long)n * i / points));
            final AttackResult attack = new AttackSearch(seed + i, budgetMillis / points)
                .search(graph, threshold, lanczos.lambda2Vector());
            if (attack.witness().length > 0)
            {
                sizes[found] = attack.witness().length;
                closed[found] = attack.closedNeighbourhoodSize();
                thresholds[found] = threshold;
                found++;
            }
        }
        final int maxK = found == 0 ? Math.max(1, n / 2) : (int)Math.max(1, Arrays.stream(sizes, 0, found).max().orElse(1));
        final int steps = Math.min(maxK, PROVEN_POINTS);
        final double[] ks = new double[steps];
        final double[] proven = new double[steps];
        for (int i = 0; i < steps; i++)
        {
            final int k = Math.max(1, (int)((long)maxK * (i + 1) / steps));
            ks[i] = k;
            proven[i] = provenMinimum(graph, lanczos, k);
        }
        return new ExpansionProfile(ks, proven, Arrays.copyOf(sizes, found), Arrays.copyOf(closed, found));
    }

    /** The smallest T such that the proven bound allows a set of size k with |N[S]| <= T. */
    private static int provenMinimum(final Graph graph, final LanczosResult lanczos, final int k)
    {
        int lo = k;
        int hi = graph.n();
        while (lo < hi)
        {
            final int mid = (lo + hi) >>> 1;
            if (CertifiedBound.liveSetUpperBound(graph, lanczos.estimate(), mid).size() >= k)
            {
                hi = mid;
            }
            else
            {
                lo = mid + 1;
            }
        }
        return lo;
    }
}
