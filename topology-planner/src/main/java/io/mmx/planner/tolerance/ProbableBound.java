package io.mmx.planner.tolerance;

import java.util.Locale;

/**
 * The first-moment bound on the tolerance of a graph drawn from the configuration (pairing)
 * model: {@code n} vertices with {@code d} slots each, the {@code n·d} slots paired uniformly.
 *
 * <p>If a live set S of size k blocks (|N[S]| ≤ floor(n/2)), then T = V \ N[S] has at least
 * t = ceil(n/2) vertices and no edge joins S to T; blocked sets are closed under subsets, so
 * s* ≥ k implies such a pair with |S| = k and |T| = t exactly. Hence
 * P[s* ≥ k] ≤ E[X_k], X_k the number of disjoint pairs (S, T), |S| = k, |T| = t, with no slot
 * of S paired to a slot of T. Adding edges to the pairing's graph only grows every N[S], so the
 * bound also holds for the generator's repaired graph; each of its at most {@code attempts}
 * pairings is a fresh uniform one, which costs a factor {@code attempts}.
 *
 * <p>E[X_k] = C(n, k) C(n - k, t) / (N - 1)!! * sum_i C(a, i) c!/(c - i)! (a - i - 1)!! (b + c - i - 1)!!
 * with a = kd, b = td, c = (n - k - t)d, N = nd: i slots of S pair into the rest R, the others of
 * S among themselves, and the slots of T with what is left of R freely. Everything is summed in
 * log space. The summands are log-concave in i (their ratio from i to i + 2 decreases), so the
 * sum starts at the peak and stops once terms fall {@value #WINDOW_NATS} nats below it; the
 * skipped ones are bounded by that last term each and added back. A rounding margin of
 * 1e-12·N·ln N nats (far above the double-precision error of the log-factorials involved) is
 * added, so every reported probability is an upper bound.
 */
public final class ProbableBound
{
    /** Default largest failure probability accepted for probable_f. */
    public static final double DEFAULT_TARGET = 1e-9;
    /** Summands this many nats below the peak end the summation (the rest are bounded, not dropped). */
    static final double WINDOW_NATS = 60;

    private ProbableBound()
    {
    }

    /**
     * The probable tolerance of a graph the pairing path drew.
     *
     * @param n        vertices.
     * @param d        slots per vertex.
     * @param attempts the most fresh pairings the generator may have drawn.
     * @param target   the largest failure probability accepted, in (0, 1).
     */
    public static ProbableTolerance of(final int n, final int d, final int attempts, final double target)
    {
        if (!(target > 0 && target < 1))
        {
            throw new IllegalArgumentException("the probable bound's failure probability must be in (0, 1), got " +
                target);
        }
        if (n < 2 || d < 1 || ((long)n * d) % 2 != 0 || attempts < 1)
        {
            throw new IllegalArgumentException("no pairing model for n = " + n + ", d = " + d + ", attempts = " +
                attempts);
        }
        final double logTarget = Math.log(target);
        final double logAttempts = Math.log(attempts);
        // k = floor(n/2) + 1 never blocks (S is inside N[S]); search below it for the smallest k that passes.
        int lo = 1;
        int hi = n / 2 + 1;
        while (lo < hi)
        {
            final int mid = (lo + hi) >>> 1;
            if (logAttempts + logExpectedBlockingPairs(n, d, mid) <= logTarget)
            {
                hi = mid;
            }
            else
            {
                lo = mid + 1;
            }
        }
        final int k = hi;
        final double failure = k > n / 2 ? 0.0 : Math.min(1.0, Math.exp(logAttempts + logExpectedBlockingPairs(n, d, k)));
        final int probableF = n - k;
        final String justification = String.format(Locale.ROOT,
            "Probable, not a proof: the graph is the random generator's uniform pairing of %d·%d slots with " +
            "self-loops and repeated edges dropped and edges only added (at most %d fresh pairings). Over the " +
            "seed's randomness, P[some live set of %d processes blocks] <= %d·E[#(S, T): |S| = %d, |T| = %d, no " +
            "edge between] = %.3e, so f_max >= %d except with that probability; valid for a seed fixed before " +
            "the graph was seen.", n, d, attempts, k, attempts, k, n - n / 2, failure, probableF);
        return new ProbableTolerance(true, probableF, failure, k, justification);
    }

    /**
     * ln E[X_k] in the pairing model (see the class comment), plus the rounding margin; negative
     * infinity when no pair (S, T) fits.
     */
    public static double logExpectedBlockingPairs(final int n, final int d, final int k)
    {
        final long t = n - n / 2;
        final long r = (long)n - k - t;
        if (k < 0 || r < 0)
        {
            return Double.NEGATIVE_INFINITY;
        }
        final long a = (long)k * d;
        final long b = t * d;
        final long c = r * d;
        final long total = (long)n * d;
        final double base = LogFactorial.binomial(n, k) + LogFactorial.binomial(n - k, t) -
            LogFactorial.pairings(total);
        final double margin = 1e-12 * total * Math.log(total);
        return base + logSum(a, b, c) + margin;
    }

    /** ln of the sum over i (i ≡ a mod 2, 0 ≤ i ≤ min(a, c)) of the summands. */
    static double logSum(final long a, final long b, final long c)
    {
        final long first = a & 1;
        final long last = Math.min(a, c) - ((Math.min(a, c) - first) & 1);
        if (last < first)
        {
            return Double.NEGATIVE_INFINITY;
        }
        final long peak = peak(a, b, c, first, last);
        final double top = logSummand(a, b, c, peak);
        double sum = 1;
        long skipped = 0;
        double tailTerm = 0;
        for (int direction = -1; direction <= 1; direction += 2)
        {
            for (long i = peak + 2 * direction; i >= first && i <= last; i += 2 * direction)
            {
                final double relative = logSummand(a, b, c, i) - top;
                if (relative < -WINDOW_NATS)
                {
                    // Unimodal: every summand further out is below this one.
                    skipped += direction < 0 ? (i - first) / 2 + 1 : (last - i) / 2 + 1;
                    tailTerm = Math.max(tailTerm, Math.exp(relative));
                    break;
                }
                sum += Math.exp(relative);
            }
        }
        return top + Math.log(sum + skipped * tailTerm);
    }

    /** The summand at i with the largest value: the first i whose ratio to the next falls below 1. */
    static long peak(final long a, final long b, final long c, final long first, final long last)
    {
        long lo = first;
        long hi = last;
        while (lo < hi)
        {
            final long mid = lo + ((hi - lo) / 4) * 2;
            if (ratioToNext(a, b, c, mid) >= 1)
            {
                lo = mid + 2;
            }
            else
            {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * summand(i + 2) / summand(i) = (a - i)(c - i)(c - i - 1) / ((i + 1)(i + 2)(b + c - i - 1)); both
     * factors (a - i)/((i + 1)(i + 2)) and (c - i)(c - i - 1)/(b + c - i - 1) decrease in i.
     */
    static double ratioToNext(final long a, final long b, final long c, final long i)
    {
        return (double)(a - i) * (c - i) * (c - i - 1) / ((double)(i + 1) * (i + 2) * (b + c - i - 1));
    }

    /** ln[C(a, i) · c!/(c - i)! · (a - i - 1)!! · (b + c - i - 1)!!]. */
    static double logSummand(final long a, final long b, final long c, final long i)
    {
        return LogFactorial.binomial(a, i) + LogFactorial.of(c) - LogFactorial.of(c - i) +
            LogFactorial.pairings(a - i) + LogFactorial.pairings(b + c - i);
    }
}
