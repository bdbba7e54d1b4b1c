package io.mmx.planner.spectral;

import io.mmx.planner.graph.Graph;

import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * Matrix-free Lanczos estimation of the second largest (lambda2) and smallest (lambdaMin)
 * adjacency eigenvalues of a graph, straight over its CSR arrays.
 *
 * <p><b>Method.</b> For a d-regular graph the all-ones vector is an exact eigenvector (eigenvalue d),
 * so the start vector and every new Lanczos vector are projected onto its complement and the
 * extreme Ritz values are lambda2 and lambdaMin. For a non-regular graph a first pass on the whole
 * space gives lambda1, lambdaMin and a Ritz vector u for lambda1; a second pass on the compression
 * P A P to the complement of u gives lambda2. Courant-Fischer makes that honest whatever u is:
 * lambda2(A) = min over unit u of max over x orthogonal to u of x'Ax, so the largest eigenvalue
 * of P A P bounds lambda2(A) from above even if u is a poor Perron vector.
 *
 * <p><b>Orthogonality.</b> When the basis fits {@code basisBudgetBytes} it is stored and kept
 * semi-orthogonal by partial reorthogonalisation (Simon's omega recurrence estimates the loss of
 * orthogonality each step; when it exceeds sqrt(eps) the new vector, and the next, are
 * reorthogonalised against the whole basis), so no ghost eigenvalues appear and T is the
 * projection of A on an orthonormal basis up to roundoff. Beyond the budget (n = 10^6) only three
 * vectors are kept, with local reorthogonalisation, and Ritz vectors are rebuilt by a second
 * identical pass; ghosts may then duplicate converged interior values, but extreme Ritz values
 * are unaffected (Paige; Druskin and Knizhnerman), and the justification says so.
 *
 * <p><b>Margin.</b> Ritz values approach the extreme eigenvalues from inside, so a certificate
 * cannot use them as they are. A residual bound only says that <i>some</i> eigenvalue is near a
 * Ritz value, never that none lies beyond, so the margin is the probabilistic bound of Kuczynski
 * and Wozniakowski (SIAM J. Matrix Anal. Appl. 13(4), 1992, Thm 4.2): for a positive
 * semi-definite B of order N and a start vector uniform on the unit sphere, k Lanczos steps give a
 * largest Ritz value theta with P(theta &lt; (1 - eps) lambdaMax(B)) ≤ 1.648 sqrt(N) exp(-sqrt(eps)(2k - 1)).
 * It is applied to B = A + Delta I and B = Delta I - A (Delta = max degree, so both are PSD by
 * Gershgorin) restricted to the deflated space; a Gaussian start projected on that space is
 * uniform on its sphere. Each bound gets half the failure probability. A breakdown (invariant
 * Krylov space) gives the extremes exactly with probability 1. A relative roundoff margin of
 * 1e-10 Delta is added on top. The probability is over the seed, so it means something only if
 * the graph was not chosen after the seed.
 */
public final class Lanczos
{
    /** Krylov dimension per pass; 300 steps put the probabilistic margin near 0.01 at n = 4096. */
    public static final int DEFAULT_ITERATIONS = 300;
    /** Total probability that a reported bound fails. */
    public static final double DEFAULT_FAILURE_PROBABILITY = 1e-6;
    /**
     * Krylov dimension cap of the two-pass form (basis over budget): each step costs two
     * matrix-vector products there, and 160 steps keep n = 10^6, d = 8 near 320 products while the
     * probabilistic margin stays near 0.07.
     */
    public static final int TWO_PASS_ITERATION_CAP = 160;
    /** Memory allowed for a stored basis; larger problems use the three-vector two-pass form. */
    public static final long DEFAULT_BASIS_BUDGET_BYTES = 128L << 20;

    private static final double KW_CONSTANT = 1.648;
    private static final double EPS = Math.ulp(1.0);
    private static final double SQRT_EPS = Math.sqrt(EPS);
    private static final double BREAKDOWN_RELATIVE = 1e-10;
    private static final double ROUNDOFF_RELATIVE = 1e-10;
    private static final double CANCELLATION_GUARD = 1e-3;

    private final long seed;
    private final int iterations;
    private final double failureProbability;
    private final long basisBudgetBytes;

    /** Defaults for everything but the seed. */
    public Lanczos(final long seed)
    {
        this(seed, DEFAULT_ITERATIONS, DEFAULT_FAILURE_PROBABILITY, DEFAULT_BASIS_BUDGET_BYTES);
    }

    /**
     * @param seed               seed of the random start vector.
     * @param iterations         maximum Krylov dimension per pass (≥ 2).
     * @param failureProbability total probability allowed for the bounds to fail, in (0, 1).
     * @param basisBudgetBytes   memory for a stored basis; beyond it the two-pass form is used.
     */
    public Lanczos(final long seed, final int iterations, final double failureProbability, final long basisBudgetBytes)
    {
        if (iterations < 2)
        {
            throw new IllegalArgumentException("Lanczos iterations must be >= 2, got " + iterations);
        }
        if (!(failureProbability > 0 && failureProbability < 1))
        {
            throw new IllegalArgumentException("failure probability must be in (0, 1), got " + failureProbability);
        }
        if (basisBudgetBytes < 0)
        {
            throw new IllegalArgumentException("basis budget must be >= 0 bytes, got " + basisBudgetBytes);
        }
        this.seed = seed;
        this.iterations = iterations;
        this.failureProbability = failureProbability;
        this.basisBudgetBytes = basisBudgetBytes;
    }

    /** The estimate alone. */
    public SpectrumEstimate estimate(final Graph graph)
    {
        return run(graph).estimate();
    }

    /** The estimate and its Ritz vectors. */
    public LanczosResult run(final Graph graph)
    {
        final int n = graph.n();
        final int maxDegree = graph.maxDegree();
        final int regular = graph.regularDegree();
        if (n <= 1)
        {
            final SpectrumEstimate trivial = new SpectrumEstimate(n, regular, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                "none", "n <= 1: there are no non-trivial eigenvalues; all values are exact (0).");
            return new LanczosResult(trivial, new double[n], new double[n]);
        }
        final double delta = Math.max(1, maxDegree);
        final double roundoff = ROUNDOFF_RELATIVE * delta;
        final double perBound = failureProbability / 2;

        final double lambda1;
        final Pass second;
        final double lambdaMin;
        final double lambdaMinResidual;
        final double[] minVector;
        final double lambdaMinLower;
        final String lambda1Note;
        if (regular >= 0)
        {
            final double[] ones = new double[n];
            Arrays.fill(ones, 1.0 / Math.sqrt(n));
            second = pass(graph, ones, n - 1);
            lambda1 = regular;
            lambdaMin = second.bottom;
            lambdaMinResidual = second.bottomResidual;
            minVector = second.bottomVector;
            lambdaMinLower = Math.max(-delta, delta - (delta - lambdaMin) / (1 - kwEpsilon(second, n - 1, perBound))
                - roundoff);
            lambda1Note = "lambda1 = d exactly (regular; the all-ones vector is deflated exactly)";
        }
        else
        {
            final Pass first = pass(graph, null, n);
            lambda1 = first.top;
            lambdaMin = first.bottom;
            lambdaMinResidual = first.bottomResidual;
            minVector = first.bottomVector;
            lambdaMinLower = Math.max(-delta, delta - (delta - lambdaMin) / (1 - kwEpsilon(first, n, perBound))
                - roundoff);
            second = pass(graph, first.topVector, n - 1);
            lambda1Note = "lambda1 is a Ritz value (not regular); lambda2 comes from the compression to the " +
                "complement of its Ritz vector, an upper bound on lambda2 by Courant-Fischer whatever that vector is";
        }
        final double lambda2 = second.top;
        final double lambda2Upper = Math.min(delta,
            (lambda2 + delta) / (1 - kwEpsilon(second, n - 1, perBound)) - delta + roundoff);
        final double lambdaBound = Math.min(delta, Math.max(lambda2Upper, -lambdaMinLower));
        final double epsilon = kwEpsilon(second, n - 1, perBound);
        final String mode = second.stored ?
            "partial (Simon omega recurrence, stored basis, " + second.fullReorthogonalisations + " full reorthogonalisations)" :
            "local only (basis over budget; two passes, Ritz vectors rebuilt by the second)";
        final String justification = String.format(Locale.ROOT,
            "Proof: |lambda| <= Delta = %d (Gershgorin); bounds below apply Kuczynski-Wozniakowski 1992 Thm 4.2 " +
            "to A + Delta I and Delta I - A on the deflated space, so each fails with probability at most %.1e " +
            "over the seeded Gaussian start (total %.1e)%s. Numerical: %s; relative eps = %.3e after %d steps; " +
            "roundoff margin %.1e added; %s. %s.",
            maxDegree, perBound, failureProbability,
            second.breakdown ? "; the Krylov space became invariant, so the extremes are exact with probability 1" : "",
            second.stored ? "the theorem is for exact arithmetic; the basis was kept semi-orthogonal so T is the " +
                "projection of A on an orthonormal basis up to roundoff" :
                "the theorem is for exact arithmetic; without global reorthogonalisation the extreme Ritz values " +
                "follow exact-arithmetic convergence up to roundoff (Druskin-Knizhnerman) but this is not a proof",
            epsilon, second.steps, roundoff,
            "residuals ||Ax - theta x|| only show that an eigenvalue lies within the residual of each Ritz value",
            lambda1Note);
        final SpectrumEstimate estimate = new SpectrumEstimate(n, regular, lambda1, lambda2, lambdaMin,
            second.topResidual, lambdaMinResidual, second.steps, lambda2Upper, lambdaMinLower, lambdaBound,
            failureProbability, mode, justification);
        return new LanczosResult(estimate, second.topVector, minVector);
    }

    /** Relative error eps of the largest Ritz value that fails with probability ≤ delta; 1 means none. */
    private static double kwEpsilon(final Pass pass, final int dimension, final double delta)
    {
        if (pass.breakdown || pass.steps >= dimension)
        {
            return 0.0;
        }
        final double sqrtEps = Math.log(KW_CONSTANT * Math.sqrt(dimension) / delta) / (2.0 * pass.steps - 1);
        // Beyond eps = 1 the theorem says nothing; the caller's Gershgorin cap takes over.
        return Math.min(sqrtEps * sqrtEps, 1.0 - 1e-12);
    }

    /** The outcome of one Lanczos pass: extreme Ritz pairs with explicit residuals. */
    private static final class Pass
    {
        int steps;
        boolean breakdown;
        boolean stored;
        int fullReorthogonalisations;
        double top;
        double bottom;
        double[] topVector;
        double[] bottomVector;
        double topResidual;
        double bottomResidual;
    }

    private Pass pass(final Graph graph, final double[] deflation, final int dimension)
    {
        final int n = graph.n();
        final boolean store = (long)Math.min(iterations, dimension) * n * Double.BYTES <= basisBudgetBytes;
        final int maxSteps = Math.min(store ? iterations : Math.min(iterations, TWO_PASS_ITERATION_CAP), dimension);
        final double[] alpha = new double[maxSteps];
        final double[] beta = new double[maxSteps];
        final Pass pass = new Pass();
        pass.stored = store;
        final double[][] basis = store ? new double[maxSteps][] : null;
        iterate(graph, deflation, maxSteps, alpha, beta, basis, null, null, pass);

        final TridiagonalEigen eigen = new TridiagonalEigen(alpha, beta, pass.steps);
        final int topIndex = eigen.argMax();
        final int bottomIndex = eigen.argMin();
        pass.top = eigen.value(topIndex);
        pass.bottom = eigen.value(bottomIndex);
        final double[][] coefficients = {eigen.vector(topIndex), eigen.vector(bottomIndex)};
        final double[][] ritz = {new double[n], new double[n]};
        if (store)
        {
            for (int j = 0; j < pass.steps; j++)
            {
                axpy(coefficients[0][j], basis[j], ritz[0]);
                axpy(coefficients[1][j], basis[j], ritz[1]);
            }
        }
        else
        {
            // Same seed, same operations: the second pass regenerates the basis bit for bit.
            iterate(graph, deflation, pass.steps, new double[maxSteps], new double[maxSteps], null,
                coefficients, ritz, new Pass());
        }
        normalise(ritz[0]);
        normalise(ritz[1]);
        pass.topVector = ritz[0];
        pass.bottomVector = ritz[1];
        pass.topResidual = residual(graph, ritz[0], pass.top);
        pass.bottomResidual = residual(graph, ritz[1], pass.bottom);
        return pass;
    }

    /**
     * Runs up to {@code maxSteps} Lanczos steps, filling alpha and beta (beta[j] couples v_j and
     * v_{j+1}). With {@code basis} it stores every vector and reorthogonalises partially; with
     * {@code coefficients} it accumulates {@code out[r] += coefficients[r][j] * v_j}.
     */
    private void iterate(
        final Graph graph,
        final double[] deflation,
        final int maxSteps,
        final double[] alpha,
        final double[] beta,
        final double[][] basis,
        final double[][] coefficients,
        final double[][] out,
        final Pass pass)
    {
        final int n = graph.n();
        final double scale = Math.max(1, graph.maxDegree());
        double[] v = startVector(n, deflation);
        double[] previous = new double[n];
        double[] w = new double[n];
        double[] omegaPrevious = basis != null ? new double[maxSteps + 1] : null;
        double[] omegaCurrent = basis != null ? new double[maxSteps + 1] : null;
        double[] omegaNext = basis != null ? new double[maxSteps + 1] : null;
        if (basis != null)
        {
            omegaCurrent[0] = 1.0;
        }
        boolean reorthogonaliseNext = false;
        boolean vDotApplied = false;
        final double omegaNoise = EPS * Math.sqrt(n) * scale;
        for (int j = 0; j < maxSteps; j++)
        {
            if (basis != null)
            {
                basis[j] = v;
            }
            // At n = 10^6 every pass over a vector costs milliseconds, so the step is three fused
            // passes: w = Av with v'w; the three-term update with the dot products the local
            // reorthogonalisation (against v and the deflation vector) needs; the new vector.
            final double alphaRaw = multiplyDot(graph, v, w);
            final double b = j > 0 ? beta[j - 1] : 0.0;
            double vDot = 0.0;
            double deflationDot = 0.0;
            double squares = 0.0;
            for (int i = 0; i < n; i++)
            {
                final double wi = w[i] - alphaRaw * v[i] - b * previous[i];
                w[i] = wi;
                vDot += wi * v[i];
                squares += wi * wi;
                if (deflation != null)
                {
                    deflationDot += wi * deflation[i];
                }
            }
            if (coefficients != null)
            {
                for (int r = 0; r < coefficients.length; r++)
                {
                    axpy(coefficients[r][j], v, out[r]);
                }
            }
            final double a = alphaRaw + vDot;
            alpha[j] = a;
            // v and the deflation vector are orthonormal, so removing both components leaves this.
            double norm = Math.sqrt(Math.max(0.0, squares - vDot * vDot - deflationDot * deflationDot));
            pass.steps = j + 1;

            if (basis != null)
            {
                axpy(-vDot, v, w);
                if (deflation != null)
                {
                    axpy(-deflationDot, deflation, w);
                }
                norm = Math.sqrt(dot(w, w));
                // Simon's recurrence for omega_{j+1,k} ~ v_{j+1}' v_k, k < j.
                double worst = 0.0;
                for (int k = 0; k < j; k++)
                {
                    double t = beta[k] * omegaCurrent[k + 1] + (alpha[k] - a) * omegaCurrent[k] -
                        b * omegaPrevious[k];
                    if (k > 0)
                    {
                        t += beta[k - 1] * omegaCurrent[k - 1];
                    }
                    t = (t + Math.copySign(omegaNoise, t)) / Math.max(norm, Double.MIN_NORMAL);
                    omegaNext[k] = t;
                    worst = Math.max(worst, Math.abs(t));
                }
                omegaNext[j] = omegaNoise / Math.max(norm, Double.MIN_NORMAL);
                omegaNext[j + 1] = 1.0;
                if (worst > SQRT_EPS || reorthogonaliseNext)
                {
                    for (int sweep = 0; sweep < 2; sweep++)
                    {
                        for (int k = 0; k <= j; k++)
                        {
                            axpy(-dot(w, basis[k]), basis[k], w);
                        }
                    }
                    if (deflation != null)
                    {
                        axpy(-dot(w, deflation), deflation, w);
                    }
                    norm = Math.sqrt(dot(w, w));
                    for (int k = 0; k <= j; k++)
                    {
                        omegaNext[k] = EPS;
                    }
                    pass.fullReorthogonalisations++;
                    // Simon: the vector after a reorthogonalised one must be reorthogonalised too.
                    reorthogonaliseNext = !reorthogonaliseNext;
                }
                final double[] recycled = omegaPrevious;
                omegaPrevious = omegaCurrent;
                omegaCurrent = omegaNext;
                omegaNext = recycled;
            }
            else if (norm < CANCELLATION_GUARD * Math.sqrt(squares))
            {
                // The subtraction above lost too many digits: apply the corrections and measure.
                axpy(-vDot, v, w);
                if (deflation != null)
                {
                    axpy(-deflationDot, deflation, w);
                }
                norm = Math.sqrt(dot(w, w));
                vDotApplied = true;
            }
            beta[j] = norm;
            if (norm <= BREAKDOWN_RELATIVE * scale)
            {
                pass.breakdown = true;
                return;
            }
            final double[] next = basis != null ? new double[n] : previous;
            final double inverse = 1.0 / norm;
            if (basis != null || vDotApplied)
            {
                for (int i = 0; i < n; i++)
                {
                    next[i] = w[i] * inverse;
                }
            }
            else if (deflation != null)
            {
                for (int i = 0; i < n; i++)
                {
                    next[i] = (w[i] - vDot * v[i] - deflationDot * deflation[i]) * inverse;
                }
            }
            else
            {
                for (int i = 0; i < n; i++)
                {
                    next[i] = (w[i] - vDot * v[i]) * inverse;
                }
            }
            vDotApplied = false;
            previous = v;
            v = next;
        }
    }

    private double[] startVector(final int n, final double[] deflation)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final double[] v = new double[n];
        for (int i = 0; i < n; i++)
        {
            v[i] = random.nextGaussian();
        }
        if (deflation != null)
        {
            axpy(-dot(v, deflation), deflation, v);
        }
        normalise(v);
        return v;
    }

    /** Below this many vertices a product is a few milliseconds: one thread, no task overhead. */
    static final int PARALLEL_MIN_VERTICES = 1 << 17;
    /**
     * Fixed number of row blocks for large graphs. Partial dot products are summed in block
     * order, so the result is bit-identical however many threads run the blocks; verify relies
     * on recomputing the same spectrum.
     */
    static final int BLOCKS = 64;

    /** y = A x over the CSR arrays; returns x'y. */
    static double multiplyDot(final Graph graph, final double[] x, final double[] y)
    {
        final int n = graph.n();
        if (n < PARALLEL_MIN_VERTICES)
        {
            return multiplyRows(graph, x, y, 0, n);
        }
        final double[] partial = new double[BLOCKS];
        IntStream.range(0, BLOCKS).parallel().forEach(b ->
            partial[b] = multiplyRows(graph, x, y, (int)((long)n * b / BLOCKS), (int)((long)n * (b + 1) / BLOCKS)));
        double product = 0.0;
        for (final double value : partial)
        {
            product += value;
        }
        return product;
    }

    /** y = A x over the CSR arrays. */
    static void multiply(final Graph graph, final double[] x, final double[] y)
    {
        multiplyDot(graph, x, y);
    }

    /** Rows [from, to) of y = A x; returns the partial x'y over those rows. */
    private static double multiplyRows(final Graph graph, final double[] x, final double[] y, final int from,
        final int to)
    {
        final int[] offsets = graph.offsets();
        final int[] targets = graph.targets();
        double product = 0.0;
        for (int v = from; v < to; v++)
        {
            double sum = 0.0;
            for (int i = offsets[v], end = offsets[v + 1]; i < end; i++)
            {
                sum += x[targets[i]];
            }
            y[v] = sum;
            product += sum * x[v];
        }
        return product;
    }

    private static double residual(final Graph graph, final double[] x, final double theta)
    {
        final double[] ax = new double[x.length];
        multiply(graph, x, ax);
        double sum = 0.0;
        for (int i = 0; i < x.length; i++)
        {
            final double r = ax[i] - theta * x[i];
            sum += r * r;
        }
        return Math.sqrt(sum);
    }

    /** Dot product with four accumulators so the JIT can overlap the additions. */
    static double dot(final double[] x, final double[] y)
    {
        final int n = x.length;
        double s0 = 0;
        double s1 = 0;
        double s2 = 0;
        double s3 = 0;
        int i = 0;
        for (; i + 3 < n; i += 4)
        {
            s0 += x[i] * y[i];
            s1 += x[i + 1] * y[i + 1];
            s2 += x[i + 2] * y[i + 2];
            s3 += x[i + 3] * y[i + 3];
        }
        for (; i < n; i++)
        {
            s0 += x[i] * y[i];
        }
        return (s0 + s1) + (s2 + s3);
    }

    private static void axpy(final double a, final double[] x, final double[] y)
    {
        if (a == 0.0)
        {
            return;
        }
        for (int i = 0; i < y.length; i++)
        {
            y[i] += a * x[i];
        }
    }

    private static void normalise(final double[] x)
    {
        final double norm = Math.sqrt(dot(x, x));
        if (norm > 0)
        {
            final double inverse = 1.0 / norm;
            for (int i = 0; i < x.length; i++)
            {
                x[i] *= inverse;
            }
        }
    }
}
