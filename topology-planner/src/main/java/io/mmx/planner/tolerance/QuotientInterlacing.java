package io.mmx.planner.tolerance;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;

/**
 * A proof that no blocked set of a given size exists in a d-regular graph whose non-trivial
 * eigenvalues lie in [lambdaMin, lambda2], from the interlacing of a three-part quotient matrix.
 *
 * <p>If S (s vertices) has |N[S]| ≤ threshold, then V \ N[S] holds a set T of exactly
 * t = n - threshold vertices with no edge to S, and W = V \ (S + T) has w = n - s - t vertices.
 * Let p = e(S, W)/s and q = e(T, W)/t, both in [0, d]. The quotient matrix of the partition
 * (S, W, T) is [[d-p, p, 0], [sp/w, d-(sp+tq)/w, tq/w], [0, q, d-q]]; its eigenvalues interlace
 * those of the graph (Haemers 1995), so besides d its two other eigenvalues d - theta lie in
 * [lambdaMin, lambda2], i.e. theta2, theta3 lie in [a, b] with a = d - lambda2, b = d - lambdaMin.
 * Those two are the roots of w x^2 - ((s+w)p + (t+w)q) x + n p q, so both lie in [a, b] exactly
 * when five conditions hold (each written so that feasible means >= 0):
 *
 * <ol>
 * <li>d w - s p - t q (W's own edges are not negative);</li>
 * <li>w a^2 - a ((s+w)p + (t+w)q) + n p q (the polynomial is not negative at a);</li>
 * <li>w b^2 - b ((s+w)p + (t+w)q) + n p q (nor at b);</li>
 * <li>(s+w)p + (t+w)q - 2 a w (the roots' midpoint is not below a);</li>
 * <li>2 b w - (s+w)p - (t+w)q (nor above b).</li>
 * </ol>
 *
 * Each is affine in p and in q separately, so on a box it is largest at a corner. The proof is a
 * quadtree over [0, d]^2 whose every leaf names a condition that is negative at all four of the
 * leaf's corners: no (p, q) is possible, so no such S exists, and neither does a larger one (any
 * larger blocked set contains a blocked set of size s). The tree is searched in double precision
 * and then {@linkplain #check checked} in exact decimal arithmetic, which is what makes it a proof.
 *
 * <p>Haemers' closed form for a non-adjacent pair, s t / ((n-s)(n-t)) ≤ ((b-a)/(b+a))^2, comes
 * from the same interlacing after loosening; solving the conditions exactly is what gains: at
 * n = 4096, d = 8 it lowers the largest possible blocked set from 0.306 n to about 0.26 n.
 */
public final class QuotientInterlacing
{
    /** Pre-order code of an inner node; leaves are the condition numbers 1..5. */
    static final byte SPLIT = 0;
    private static final int CONDITIONS = 5;
    /** Deepest box: side d / 2^MAX_DEPTH. */
    private static final int MAX_DEPTH = 24;
    /** The search gives up beyond this many boxes (the size is then too close to feasible to prove cheaply). */
    private static final int MAX_BOXES = 1 << 13;
    /** A leaf is claimed in double precision only with this relative margin; the exact check decides. */
    private static final double MARGIN = 1e-9;
    /** Significant digits of a and b in the exact check. */
    private static final int ROUNDED_DIGITS = 12;

    private QuotientInterlacing()
    {
    }

    /**
     * The setting of one proof: graph size, degree, blocked-set size s, the size t of the set with
     * no edge to it, and the interval [a, b] that the quotient's non-trivial Laplacian eigenvalues must lie in.
     */
    record Instance(int n, int degree, int s, int t, double a, double b)
    {
        int w()
        {
            return n - s - t;
        }
    }

    /**
     * The proof as found: the quadtree in pre-order ({@link #SPLIT} or a condition number per node).
     *
     * @param instance what it proves impossible.
     * @param tree     the quadtree.
     */
    record Proof(Instance instance, byte[] tree)
    {
        int leaves()
        {
            int leaves = 0;
            for (final byte node : tree)
            {
                leaves += node == SPLIT ? 0 : 1;
            }
            return leaves;
        }
    }

    /**
     * The largest blocked-set size not excluded by an exactly checked proof: every S with
     * |N[S]| ≤ threshold has at most this many vertices. Returns {@code upper} when nothing
     * smaller is proven. Needs lambda2 &lt; d (connected) and n - threshold ≥ 1.
     */
    public static int largestPossible(final int n, final int degree, final int threshold, final double lambda2Upper,
        final double lambdaMinLower, final int upper)
    {
        final int t = n - threshold;
        final double a = degree - lambda2Upper;
        final double b = degree - lambdaMinLower;
        if (t < 1 || !(a > 0) || !(b >= a) || upper < 1 || !Double.isFinite(b))
        {
            return upper;
        }
        // Smallest size whose proof is found; sizes near the truth need deeper trees or none exists.
        int lo = 1;
        int hi = Math.min(upper, n - t - 1);
        Proof found = null;
        while (lo <= hi)
        {
            final int mid = (int)(((long)lo + hi) / 2);
            final Proof proof = prove(new Instance(n, degree, mid, t, a, b));
            if (proof != null)
            {
                found = proof;
                hi = mid - 1;
            }
            else
            {
                lo = mid + 1;
            }
        }
        if (found == null || !check(found))
        {
            return upper;
        }
        return Math.min(upper, found.instance().s() - 1);
    }

    /** A quadtree excluding every (p, q), searched in double precision, or null if none was found. */
    static Proof prove(final Instance instance)
    {
        if (instance.w() < 1 || instance.s() < 1 || instance.t() < 1)
        {
            return null;
        }
        final ByteTree tree = new ByteTree();
        // Explicit stack of boxes in pre-order: (pLo, qLo, side).
        final Deque<double[]> stack = new ArrayDeque<>();
        stack.push(new double[] {0, 0, instance.degree()});
        int boxes = 0;
        while (!stack.isEmpty())
        {
            final double[] box = stack.pop();
            if (++boxes > MAX_BOXES)
            {
                return null;
            }
            final int violated = violatedEverywhere(instance, box[0], box[1], box[2]);
            if (violated > 0)
            {
                tree.add((byte)violated);
                continue;
            }
            final double half = box[2] / 2;
            if (feasibleAt(instance, box[0] + half, box[1] + half) || box[2] <= instance.degree() / (double)(1 << MAX_DEPTH))
            {
                // A feasible point (the size is not excluded by interlacing) or too fine to go on.
                return null;
            }
            tree.add(SPLIT);
            // Pushed in reverse so children pop in the order check() walks them.
            stack.push(new double[] {box[0] + half, box[1] + half, half});
            stack.push(new double[] {box[0], box[1] + half, half});
            stack.push(new double[] {box[0] + half, box[1], half});
            stack.push(new double[] {box[0], box[1], half});
        }
        return new Proof(instance, tree.toArray());
    }

    /**
     * Checks a proof in exact decimal arithmetic: the tree covers [0, d]^2 exactly once and every
     * leaf's condition is negative at its four corners. The instance's doubles are taken at their exact values.
     */
    static boolean check(final Proof proof)
    {
        final Instance instance = proof.instance();
        if (instance.w() < 1 || instance.s() < 1 || instance.t() < 1 || !(instance.a() > 0) ||
            !Double.isFinite(instance.b()))
        {
            return false;
        }
        final ExactConditions conditions = new ExactConditions(instance);
        final int[] cursor = {0};
        final boolean ok = checkBox(proof.tree(), cursor, conditions, BigDecimal.ZERO, BigDecimal.ZERO,
            BigDecimal.valueOf(instance.degree()), 0);
        return ok && cursor[0] == proof.tree().length;
    }

    private static boolean checkBox(final byte[] tree, final int[] cursor, final ExactConditions conditions,
        final BigDecimal pLo, final BigDecimal qLo, final BigDecimal side, final int depth)
    {
        if (cursor[0] >= tree.length || depth > MAX_DEPTH)
        {
            return false;
        }
        final byte node = tree[cursor[0]++];
        if (node == SPLIT)
        {
            final BigDecimal half = side.divide(BigDecimal.valueOf(2));
            final BigDecimal pMid = pLo.add(half);
            final BigDecimal qMid = qLo.add(half);
            return checkBox(tree, cursor, conditions, pLo, qLo, half, depth + 1) &&
                checkBox(tree, cursor, conditions, pMid, qLo, half, depth + 1) &&
                checkBox(tree, cursor, conditions, pLo, qMid, half, depth + 1) &&
                checkBox(tree, cursor, conditions, pMid, qMid, half, depth + 1);
        }
        if (node < 1 || node > CONDITIONS)
        {
            return false;
        }
        final BigDecimal pHi = pLo.add(side);
        final BigDecimal qHi = qLo.add(side);
        return conditions.value(node, pLo, qLo).signum() < 0 && conditions.value(node, pHi, qLo).signum() < 0 &&
            conditions.value(node, pLo, qHi).signum() < 0 && conditions.value(node, pHi, qHi).signum() < 0;
    }

    /** The first condition negative (with margin) at all four corners of the box, or 0. */
    private static int violatedEverywhere(final Instance instance, final double pLo, final double qLo, final double side)
    {
        for (int condition = 1; condition <= CONDITIONS; condition++)
        {
            if (negativeWithMargin(instance, condition, pLo, qLo) &&
                negativeWithMargin(instance, condition, pLo + side, qLo) &&
                negativeWithMargin(instance, condition, pLo, qLo + side) &&
                negativeWithMargin(instance, condition, pLo + side, qLo + side))
            {
                return condition;
            }
        }
        return 0;
    }

    private static boolean feasibleAt(final Instance instance, final double p, final double q)
    {
        for (int condition = 1; condition <= CONDITIONS; condition++)
        {
            if (value(instance, condition, p, q)[0] < 0)
            {
                return false;
            }
        }
        return true;
    }

    private static boolean negativeWithMargin(final Instance instance, final int condition, final double p, final double q)
    {
        final double[] valueAndScale = value(instance, condition, p, q);
        return valueAndScale[0] < -MARGIN * valueAndScale[1];
    }

    /** The condition's value at (p, q) and the sum of its terms' magnitudes (the scale of its rounding error). */
    private static double[] value(final Instance instance, final int condition, final double p, final double q)
    {
        final double s = instance.s();
        final double t = instance.t();
        final double w = instance.w();
        final double n = instance.n();
        final double d = instance.degree();
        final double sum = (s + w) * p + (t + w) * q;
        return switch (condition)
        {
            case 1 -> new double[] {d * w - s * p - t * q, d * w + s * p + t * q};
            case 2 -> bilinear(w, instance.a(), sum, n * p * q);
            case 3 -> bilinear(w, instance.b(), sum, n * p * q);
            case 4 -> new double[] {sum - 2 * instance.a() * w, sum + 2 * instance.a() * w};
            case 5 -> new double[] {2 * instance.b() * w - sum, sum + 2 * instance.b() * w};
            default -> throw new IllegalArgumentException("condition " + condition);
        };
    }

    private static double[] bilinear(final double w, final double x, final double sum, final double product)
    {
        return new double[] {w * x * x - x * sum + product, w * x * x + x * sum + product};
    }

    /** The five conditions in exact decimal arithmetic. */
    private static final class ExactConditions
    {
        private final BigDecimal s;
        private final BigDecimal t;
        private final BigDecimal w;
        private final BigDecimal n;
        private final BigDecimal d;
        private final BigDecimal a;
        private final BigDecimal b;
        private final BigDecimal sPlusW;
        private final BigDecimal tPlusW;

        ExactConditions(final Instance instance)
        {
            s = BigDecimal.valueOf(instance.s());
            t = BigDecimal.valueOf(instance.t());
            w = BigDecimal.valueOf(instance.w());
            n = BigDecimal.valueOf(instance.n());
            d = BigDecimal.valueOf(instance.degree());
            // The interval is widened to 12 significant digits (a down, b up): a weaker premise, so
            // still a proof, and short numbers keep the check fast. new BigDecimal(double) is exact.
            a = new BigDecimal(instance.a()).round(new MathContext(ROUNDED_DIGITS, RoundingMode.FLOOR));
            b = new BigDecimal(instance.b()).round(new MathContext(ROUNDED_DIGITS, RoundingMode.CEILING));
            sPlusW = s.add(w);
            tPlusW = t.add(w);
        }

        BigDecimal value(final int condition, final BigDecimal p, final BigDecimal q)
        {
            final BigDecimal sum = sPlusW.multiply(p).add(tPlusW.multiply(q));
            final BigDecimal two = BigDecimal.valueOf(2);
            return switch (condition)
            {
                case 1 -> d.multiply(w).subtract(s.multiply(p)).subtract(t.multiply(q));
                case 2 -> w.multiply(a).multiply(a).subtract(a.multiply(sum)).add(n.multiply(p).multiply(q));
                case 3 -> w.multiply(b).multiply(b).subtract(b.multiply(sum)).add(n.multiply(p).multiply(q));
                case 4 -> sum.subtract(two.multiply(a).multiply(w));
                case 5 -> two.multiply(b).multiply(w).subtract(sum);
                default -> throw new IllegalArgumentException("condition " + condition);
            };
        }
    }

    /** A growable byte array. */
    private static final class ByteTree
    {
        private byte[] bytes = new byte[64];
        private int size;

        void add(final byte value)
        {
            if (size == bytes.length)
            {
                bytes = Arrays.copyOf(bytes, 2 * size);
            }
            bytes[size++] = value;
        }

        byte[] toArray()
        {
            return Arrays.copyOf(bytes, size);
        }
    }
}
