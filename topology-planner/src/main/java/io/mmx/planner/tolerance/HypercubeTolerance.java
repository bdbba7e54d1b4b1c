package io.mmx.planner.tolerance;

import io.mmx.planner.graph.Graph;

import java.util.Arrays;
import java.util.Optional;

/**
 * Exact crash tolerance of hypercubes, at any size, by Harper's vertex-isoperimetric theorem
 * (Harper 1966): among all sets of m vertices of Q_k, the first m in the simplicial order
 * (by weight, then x before y when the lowest bit where they differ is set in x) have the
 * smallest closed neighbourhood. So s* is the largest m whose initial segment has
 * |N[S]| ≤ floor(n/2), and that segment is an optimal witness.
 *
 * <p>Any graph qualifies, however it was made or numbered: {@link #recognise} labels the vertices
 * by breadth-first search from vertex 0 and accepts only a verified isomorphism onto Q_k (a
 * bijection onto 0..2^k - 1 under which every edge joins labels one bit apart, with k·2^(k-1)
 * edges), so the theorem is applied only where it holds.
 */
public final class HypercubeTolerance
{
    private HypercubeTolerance()
    {
    }

    /**
     * The exact tolerance of a hypercube with its optimal witness.
     *
     * @param exactF  f_max = n - 1 - s*.
     * @param witness an initial segment of the simplicial order, as ascending vertex ids of the graph.
     * @param closed  |N[witness]|.
     */
    public record Result(int exactF, int[] witness, int closed)
    {
    }

    /** The exact tolerance if {@code graph} is isomorphic to a hypercube, else empty. */
    public static Optional<Result> analyze(final Graph graph)
    {
        final int[] labels = recognise(graph);
        if (labels == null)
        {
            return Optional.empty();
        }
        final int n = graph.n();
        final int k = Integer.numberOfTrailingZeros(n);
        final int[] order = simplicialOrder(k);
        final boolean[] covered = new boolean[n];
        int coveredCount = 0;
        int size = 0;
        for (final int x : order)
        {
            int added = covered[x] ? 0 : 1;
            for (int bit = 0; bit < k; bit++)
            {
                added += covered[x ^ (1 << bit)] ? 0 : 1;
            }
            // |N[initial segment]| only grows along the order, so the first overflow ends the search.
            if (coveredCount + added > n / 2)
            {
                break;
            }
            covered[x] = true;
            for (int bit = 0; bit < k; bit++)
            {
                covered[x ^ (1 << bit)] = true;
            }
            coveredCount += added;
            size++;
        }
        final int[] vertexOf = new int[n];
        for (int v = 0; v < n; v++)
        {
            vertexOf[labels[v]] = v;
        }
        final int[] witness = new int[size];
        for (int i = 0; i < size; i++)
        {
            witness[i] = vertexOf[order[i]];
        }
        Arrays.sort(witness);
        return Optional.of(new Result(n - 1 - size, witness, coveredCount));
    }

    /**
     * Labels {@code graph}'s vertices as vertices of Q_k, or null if it is not a hypercube: the labels
     * are returned only after checking that they form an isomorphism.
     */
    static int[] recognise(final Graph graph)
    {
        final int n = graph.n();
        if (n < 2 || Integer.bitCount(n) != 1)
        {
            return null;
        }
        final int k = Integer.numberOfTrailingZeros(n);
        if (graph.regularDegree() != k || graph.edgeCount() != (long)k * n / 2)
        {
            return null;
        }
        final int[] label = new int[n];
        final int[] depth = new int[n];
        Arrays.fill(depth, -1);
        final int[] queue = new int[n];
        int head = 0;
        int tail = 0;
        depth[0] = 0;
        queue[tail++] = 0;
        final int[] first = graph.neighbours(0);
        for (int i = 0; i < first.length; i++)
        {
            label[first[i]] = 1 << i;
        }
        while (head < tail)
        {
            final int u = queue[head++];
            for (final int w : graph.neighbours(u))
            {
                if (depth[w] < 0)
                {
                    depth[w] = depth[u] + 1;
                    queue[tail++] = w;
                }
                if (depth[w] == depth[u] + 1 && depth[w] >= 2)
                {
                    // In Q_k a vertex's label is the union of its lower neighbours' labels.
                    label[w] |= label[u];
                }
            }
        }
        if (tail != n)
        {
            return null;
        }
        final boolean[] used = new boolean[n];
        for (int v = 0; v < n; v++)
        {
            if (used[label[v]] || Integer.bitCount(label[v]) != depth[v])
            {
                return null;
            }
            used[label[v]] = true;
        }
        for (int v = 0; v < n; v++)
        {
            for (final int w : graph.neighbours(v))
            {
                if (Integer.bitCount(label[v] ^ label[w]) != 1)
                {
                    return null;
                }
            }
        }
        return label;
    }

    /** The vertices of Q_k in simplicial order. */
    static int[] simplicialOrder(final int k)
    {
        final int n = 1 << k;
        final Integer[] order = new Integer[n];
        Arrays.setAll(order, i -> i);
        // Within a weight, x comes first when the lowest differing bit is x's: reversed bits, descending.
        Arrays.sort(order, (x, y) -> Integer.bitCount(x) != Integer.bitCount(y) ?
            Integer.compare(Integer.bitCount(x), Integer.bitCount(y)) :
            Integer.compareUnsigned(Integer.reverse(y), Integer.reverse(x)));
        final int[] result = new int[n];
        for (int i = 0; i < n; i++)
        {
            result[i] = order[i];
        }
        return result;
    }
}
