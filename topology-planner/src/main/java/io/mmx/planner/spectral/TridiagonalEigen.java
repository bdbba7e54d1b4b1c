package io.mmx.planner.spectral;

import java.util.Arrays;

/**
 * Eigenvalues of a small symmetric tridiagonal matrix (the Lanczos matrix T) by the implicit QL
 * method with Wilkinson-type shifts, after the public-domain JAMA {@code tql2} (O(k^2) without
 * eigenvector accumulation), and the one or two eigenvectors Lanczos needs by inverse iteration.
 */
final class TridiagonalEigen
{
    private static final double EPS = Math.ulp(1.0);
    private static final int MAX_SWEEPS_PER_VALUE = 60;

    private final double[] diagonal;
    private final double[] offDiagonal;
    private final double[] values;

    /**
     * @param diagonal    T(i, i), length k (not modified).
     * @param offDiagonal T(i, i + 1) for i < k - 1 (length at least k - 1, not modified).
     * @param k           order of T.
     */
    TridiagonalEigen(final double[] diagonal, final double[] offDiagonal, final int k)
    {
        this.diagonal = Arrays.copyOf(diagonal, k);
        this.offDiagonal = new double[k];
        if (k > 1)
        {
            System.arraycopy(offDiagonal, 0, this.offDiagonal, 0, k - 1);
        }
        final double[] d = this.diagonal.clone();
        final double[] e = this.offDiagonal.clone();
        // Eigenvalues only (O(k^2)); the few eigenvectors needed come from inverse iteration.
        ql(d, e, null, k);
        values = d;
    }

    /** Eigenvalue {@code i} (unsorted). */
    double value(final int i)
    {
        return values[i];
    }

    /** Index of the largest eigenvalue. */
    int argMax()
    {
        int best = 0;
        for (int i = 1; i < values.length; i++)
        {
            if (values[i] > values[best])
            {
                best = i;
            }
        }
        return best;
    }

    /** Index of the smallest eigenvalue. */
    int argMin()
    {
        int best = 0;
        for (int i = 1; i < values.length; i++)
        {
            if (values[i] < values[best])
            {
                best = i;
            }
        }
        return best;
    }

    /**
     * Unit eigenvector of eigenvalue {@code i}, in the basis of T, by inverse iteration with a
     * shift perturbed off the eigenvalue so that the tridiagonal solve stays finite.
     */
    double[] vector(final int i)
    {
        final int k = values.length;
        final double[] y = new double[k];
        if (k == 1)
        {
            y[0] = 1.0;
            return y;
        }
        double scale = 0.0;
        for (int r = 0; r < k; r++)
        {
            scale = Math.max(scale, Math.abs(diagonal[r]) + Math.abs(offDiagonal[r]));
        }
        final double shift = values[i] + 1e-10 * Math.max(scale, 1.0);
        Arrays.fill(y, 1.0 / Math.sqrt(k));
        final double[] c = new double[k];
        final double[] rhs = new double[k];
        for (int sweep = 0; sweep < 3; sweep++)
        {
            // Thomas algorithm with partial pivoting avoided: the shift is never exactly an eigenvalue.
            System.arraycopy(y, 0, rhs, 0, k);
            double pivot = diagonal[0] - shift;
            c[0] = offDiagonal[0] / nonZero(pivot);
            rhs[0] = rhs[0] / nonZero(pivot);
            for (int r = 1; r < k; r++)
            {
                pivot = diagonal[r] - shift - offDiagonal[r - 1] * c[r - 1];
                c[r] = r < k - 1 ? offDiagonal[r] / nonZero(pivot) : 0.0;
                rhs[r] = (rhs[r] - offDiagonal[r - 1] * rhs[r - 1]) / nonZero(pivot);
            }
            for (int r = k - 2; r >= 0; r--)
            {
                rhs[r] -= c[r] * rhs[r + 1];
            }
            double norm = 0.0;
            for (int r = 0; r < k; r++)
            {
                norm += rhs[r] * rhs[r];
            }
            norm = Math.sqrt(norm);
            for (int r = 0; r < k; r++)
            {
                y[r] = rhs[r] / norm;
            }
        }
        return y;
    }

    private static double nonZero(final double pivot)
    {
        return pivot != 0.0 ? pivot : Double.MIN_NORMAL;
    }

    private static void ql(final double[] d, final double[] e, final double[][] z, final int n)
    {
        double f = 0.0;
        double tst1 = 0.0;
        for (int l = 0; l < n; l++)
        {
            tst1 = Math.max(tst1, Math.abs(d[l]) + Math.abs(e[l]));
            int m = l;
            while (m < n - 1 && Math.abs(e[m]) > EPS * tst1)
            {
                m++;
            }
            if (m > l)
            {
                int sweeps = 0;
                do
                {
                    if (++sweeps > MAX_SWEEPS_PER_VALUE)
                    {
                        throw new ArithmeticException("tridiagonal QL did not converge at row " + l);
                    }
                    double g = d[l];
                    double p = (d[l + 1] - g) / (2.0 * e[l]);
                    double r = Math.hypot(p, 1.0);
                    if (p < 0)
                    {
                        r = -r;
                    }
                    d[l] = e[l] / (p + r);
                    d[l + 1] = e[l] * (p + r);
                    final double dl1 = d[l + 1];
                    double h = g - d[l];
                    for (int i = l + 2; i < n; i++)
                    {
                        d[i] -= h;
                    }
                    f += h;

                    p = d[m];
                    double c = 1.0;
                    double c2 = c;
                    double c3 = c;
                    final double el1 = e[l + 1];
                    double s = 0.0;
                    double s2 = 0.0;
                    for (int i = m - 1; i >= l; i--)
                    {
                        c3 = c2;
                        c2 = c;
                        s2 = s;
                        g = c * e[i];
                        h = c * p;
                        r = Math.hypot(p, e[i]);
                        e[i + 1] = s * r;
                        s = e[i] / r;
                        c = p / r;
                        p = c * d[i] - s * g;
                        d[i + 1] = h + s * (c * g + s * d[i]);
                        for (int k = 0; z != null && k < n; k++)
                        {
                            final double[] row = z[k];
                            h = row[i + 1];
                            row[i + 1] = s * row[i] + c * h;
                            row[i] = c * row[i] - s * h;
                        }
                    }
                    p = -s * s2 * c3 * el1 * e[l] / dl1;
                    e[l] = s * p;
                    d[l] = c * p;
                }
                while (Math.abs(e[l]) > EPS * tst1);
            }
            d[l] += f;
            e[l] = 0.0;
        }
    }
}
