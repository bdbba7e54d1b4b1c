package io.mmx.planner.tolerance;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.spectral.SpectrumEstimate;

import java.util.Locale;
import java.util.OptionalInt;

/**
 * Proven lower bounds on f_max = n - 1 - s*, where s* is the largest set S of live processes
 * with |N[S]| ≤ threshold (floor(n/2) for the plan itself). Each argument below yields a size
 * s above which no blocked set can exist; the smallest such size wins.
 *
 * <ul>
 * <li><b>trivial</b>: S is inside N[S], so s* ≤ threshold.</li>
 * <li><b>min-degree</b>: a non-empty S has |N[S]| ≥ minDegree + 1; above the threshold s* = 0.</li>
 * <li><b>tanner</b> (d-regular, lambda &lt; d): |N(S)| ≥ d^2 s / (lambda^2 + (d^2 - lambda^2) s / n)
 *     (Tanner 1984) and N(S) is inside N[S].</li>
 * <li><b>haemers</b> (d-regular, connected): S and T = V \ N[S] have no edges between them, so
 *     s t / ((n - s)(n - t)) ≤ ((theta_n - theta_2) / (theta_n + theta_2))^2 (Haemers 1995, Laplacian
 *     interlacing) with theta = d - lambda; |T| ≥ n - threshold and the left side grows in s and t.</li>
 * <li><b>quotient-interlacing</b> (d-regular, connected): the same pair S, T with |T| = n - threshold
 *     exactly and W the rest; the eigenvalues of the 3 x 3 quotient matrix of (S, W, T) interlace the
 *     graph's, and an exactly checked subdivision of the unknown edge densities shows they cannot
 *     ({@link QuotientInterlacing}). Sharper than haemers, whose closed form loosens the same argument.</li>
 * <li><b>exact</b>: when an exhaustive search result is supplied it is used as is.</li>
 * <li><b>harper</b>: for a verified hypercube, the exact value by Harper's theorem ({@link #exact}).</li>
 * </ul>
 *
 * <p>Spectral arguments use {@link SpectrumEstimate#lambda2Upper()}, {@link SpectrumEstimate#lambdaMinLower()}
 * and {@link SpectrumEstimate#lambdaBound()}, never raw Ritz values, so they hold exactly when those
 * bounds hold (see the estimate's justification). Comparisons are made with a relative slack of
 * 1e-9 in the conservative direction so that rounding can only weaken the certificate.
 */
public final class CertifiedBound
{
    /** Method name of the three-part quotient interlacing proof ({@link QuotientInterlacing}). */
    public static final String QUOTIENT_INTERLACING = "quotient-interlacing";
    private static final double SLACK = 1e-9;

    private CertifiedBound()
    {
    }

    /** The certificate without an exact value. */
    public static Certificate certify(final Graph graph, final SpectrumEstimate spectrum)
    {
        return certify(graph, spectrum, OptionalInt.empty());
    }

    /**
     * @param graph    the plan graph.
     * @param spectrum spectral estimate of the same graph, or null for combinatorial bounds only.
     * @param exactF   the exact f_max if an exhaustive search found it.
     */
    public static Certificate certify(final Graph graph, final SpectrumEstimate spectrum, final OptionalInt exactF)
    {
        final int n = graph.n();
        final int threshold = n / 2;
        final int degreeLimitF = n - ceilDiv(threshold + 1, graph.maxDegree() + 1);
        if (exactF.isPresent())
        {
            final int s = n - 1 - exactF.getAsInt();
            return new Certificate(exactF.getAsInt(), "exact",
                "Proof: exhaustive branch and bound over all vertex sets (no numerics).", s, degreeLimitF);
        }
        final SizeBound bound = liveSetUpperBound(graph, spectrum, threshold);
        return new Certificate(n - 1 - bound.size(), bound.method(), bound.justification(), bound.size(), degreeLimitF);
    }

    /** The certificate of a graph whose exact f_max a theorem gives ({@code method} names it). */
    public static Certificate exact(final Graph graph, final int exactF, final String method, final String justification)
    {
        final int n = graph.n();
        final int degreeLimitF = n - ceilDiv(n / 2 + 1, graph.maxDegree() + 1);
        return new Certificate(exactF, method, justification, n - 1 - exactF, degreeLimitF);
    }

    /**
     * A proven upper bound on the size of any vertex set S with |N[S]| ≤ threshold in
     * {@code graph}; used with a raised threshold when failure domains take regions away.
     */
    public static SizeBound liveSetUpperBound(final Graph graph, final SpectrumEstimate spectrum, final int threshold)
    {
        final int n = graph.n();
        SizeBound best = new SizeBound(Math.max(0, Math.min(n, threshold)), "trivial",
            "Proof: S is contained in N[S], so |S| <= " + threshold + ".");
        if (n > 0 && graph.minDegree() + 1 > threshold)
        {
            return new SizeBound(0, "min-degree", "Proof: every non-empty S has |N[S]| >= minDegree + 1 = " +
                (graph.minDegree() + 1) + " > " + threshold + ".");
        }
        final int d = graph.regularDegree();
        if (spectrum == null || d <= 0 || spectrum.regularDegree() != d || spectrum.n() != n)
        {
            return best;
        }
        final String spectralBasis = String.format(Locale.ROOT,
            " Uses lambda2 <= %.6f, lambdaMin >= %.6f, which fail with probability <= %.1e (see the spectrum " +
            "justification).", spectrum.lambda2Upper(), spectrum.lambdaMinLower(), spectrum.failureProbability());

        final double lambda = spectrum.lambdaBound();
        if (lambda < d)
        {
            final int s = largestFeasible(best.size(), size -> tannerLowerBound(n, d, lambda, size) <= threshold * (1 + SLACK));
            if (s < best.size())
            {
                best = new SizeBound(s, "tanner", String.format(Locale.ROOT,
                    "Proof given the spectral bound: Tanner |N(S)| >= d^2 s/(l^2 + (d^2 - l^2) s/n) with d = %d, " +
                    "l = %.6f exceeds %d for every s > %d.", d, lambda, threshold, s) + spectralBasis);
            }
        }
        final double theta2 = d - spectrum.lambda2Upper();
        final double thetaN = d - spectrum.lambdaMinLower();
        final int t = n - threshold;
        if (theta2 > 0 && t > 0)
        {
            final double rho = (thetaN - theta2) / (thetaN + theta2);
            final double rhoSquared = rho * rho;
            final int s = largestFeasible(best.size(),
                size -> (double)size * t / ((double)(n - size) * (n - t)) <= rhoSquared * (1 + SLACK));
            if (s < best.size())
            {
                best = new SizeBound(s, "haemers", String.format(Locale.ROOT,
                    "Proof given the spectral bound: S and T = V \\ N[S] have no edges between them and " +
                    "|T| >= %d, so Haemers' Laplacian interlacing s t/((n-s)(n-t)) <= ((theta_n - theta_2)/" +
                    "(theta_n + theta_2))^2 = %.6f with theta_2 >= %.6f, theta_n <= %.6f fails for every s > %d.",
                    t, rhoSquared, theta2, thetaN, s) + spectralBasis);
            }
        }
        if (theta2 > 0 && t > 0)
        {
            final int s = QuotientInterlacing.largestPossible(n, d, threshold, spectrum.lambda2Upper(),
                spectrum.lambdaMinLower(), best.size());
            if (s < best.size())
            {
                best = new SizeBound(s, QUOTIENT_INTERLACING, String.format(Locale.ROOT,
                    "Proof given the spectral bound: for a blocked S of %d vertices take T, %d vertices of V \\ N[S], " +
                    "and W the rest; the quotient matrix of (S, W, T) interlaces the adjacency spectrum, so its two " +
                    "non-trivial Laplacian eigenvalues lie in [d - lambda2, d - lambdaMin] = [%.6f, %.6f]; no average " +
                    "degrees e(S,W)/|S|, e(T,W)/|T| in [0, %d] allow that (a subdivision of that square, each box " +
                    "violating one polynomial condition at its corners, checked in exact decimal arithmetic), so " +
                    "every blocked set has at most %d vertices.", s + 1, t, theta2, thetaN, d, s) + spectralBasis);
            }
        }
        return best;
    }

    /** Tanner's lower bound on |N(S)| for |S| = s. */
    static double tannerLowerBound(final int n, final int d, final double lambda, final int s)
    {
        final double d2 = (double)d * d;
        final double l2 = lambda * lambda;
        return d2 * s / (l2 + (d2 - l2) * s / n);
    }

    /** Largest s in [0, upper] with {@code feasible(s)}, for a predicate that is true up to some point. */
    private static int largestFeasible(final int upper, final java.util.function.IntPredicate feasible)
    {
        int lo = 0;
        int hi = upper;
        while (lo < hi)
        {
            final int mid = (int)(((long)lo + hi + 1) / 2);
            if (feasible.test(mid))
            {
                lo = mid;
            }
            else
            {
                hi = mid - 1;
            }
        }
        return lo;
    }

    private static int ceilDiv(final int a, final int b)
    {
        return (a + b - 1) / b;
    }

    /**
     * An upper bound on the size of a blocked live set, with the argument that proves it.
     *
     * @param size          no set larger than this has |N[S]| ≤ threshold.
     * @param method        the argument's short name.
     * @param justification the argument in a sentence.
     */
    public record SizeBound(int size, String method, String justification)
    {
    }
}
