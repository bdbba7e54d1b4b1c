package io.mmx.planner.tolerance;

import io.mmx.planner.graph.Graph;

import java.util.OptionalInt;

/**
 * Exact s* (the largest S with |N[S]| ≤ threshold) and f_max = n - 1 - s* by branch and bound
 * over 64-bit vertex masks, for graphs of at most {@link #MAX_VERTICES} vertices.
 *
 * <p>Search: a vertex whose closed neighbourhood is already covered is always added (it costs
 * nothing, and adding it never hurts a superset). Otherwise branch on the candidate that adds the
 * least new coverage: take it, then forbid it. A candidate that no longer fits the threshold is
 * dropped. The bound on what the remaining candidates X can add: every x in X brings at least one
 * new covered vertex u (some u in N[x] not yet covered), at most {@code slack} new vertices can be
 * covered, and u is brought by at most |N[u] ∩ candidates| of them; so |X| is at most the sum of
 * the {@code slack} largest such counts.
 */
public final class ExactTolerance
{
    /** Masks are longs. */
    public static final int MAX_VERTICES = 64;

    /**
     * Search nodes granted per millisecond of budget. The budget is a count, not a clock, so whether
     * the search finishes (and so exact_f and certified_f, which plans hash) does not depend on
     * load: one core did 3,000 to 10,000 nodes per ms at load average 5 (n = 32..40, d = 3..10),
     * and n = 40, d = 3 (the hardest shape at the default limit) took 5.3 million nodes.
     */
    public static final long NODES_PER_MILLI = 10_000;

    private final int vertexLimit;
    private final long nodeBudget;

    /**
     * @param vertexLimit   graphs with more vertices are not attempted (at most {@link #MAX_VERTICES}).
     * @param budgetMillis  give up (empty result) after {@code budgetMillis} x {@link #NODES_PER_MILLI}
     *                      search nodes: about that many milliseconds on one core, counted, not timed.
     */
    public ExactTolerance(final int vertexLimit, final long budgetMillis)
    {
        if (vertexLimit < 0 || vertexLimit > MAX_VERTICES)
        {
            throw new IllegalArgumentException("exact vertex limit must be in 0.." + MAX_VERTICES + ", got " + vertexLimit);
        }
        if (budgetMillis <= 0)
        {
            throw new IllegalArgumentException("exact time budget must be > 0 ms, got " + budgetMillis);
        }
        this.vertexLimit = vertexLimit;
        this.nodeBudget = Math.multiplyExact(budgetMillis, NODES_PER_MILLI);
    }

    /** Exact f_max = n - 1 - s* for threshold floor(n/2), or empty beyond the limits. */
    public OptionalInt exactF(final Graph graph)
    {
        final OptionalInt s = maxBlockedSetSize(graph, graph.n() / 2);
        return s.isPresent() ? OptionalInt.of(graph.n() - 1 - s.getAsInt()) : OptionalInt.empty();
    }

    /** Exact max |S| with |N[S]| ≤ threshold, or empty beyond the vertex limit or time budget. */
    public OptionalInt maxBlockedSetSize(final Graph graph, final int threshold)
    {
        final int n = graph.n();
        if (n > vertexLimit)
        {
            return OptionalInt.empty();
        }
        final long[] closed = new long[n];
        for (int v = 0; v < n; v++)
        {
            long mask = 1L << v;
            for (int i = 0; i < graph.degree(v); i++)
            {
                mask |= 1L << graph.neighbour(v, i);
            }
            closed[v] = mask;
        }
        final Search search = new Search(n, closed, threshold, nodeBudget);
        final long all = n == 64 ? -1L : (1L << n) - 1;
        try
        {
            search.run(0L, all, 0);
        }
        catch (final BudgetExceeded e)
        {
            return OptionalInt.empty();
        }
        return OptionalInt.of(search.best);
    }

    private static final class BudgetExceeded extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        BudgetExceeded()
        {
            super(null, null, false, false);
        }
    }

    private static final class Search
    {
        private final int n;
        private final long[] closed;
        private final int threshold;
        private final long nodeBudget;
        private final int[] counts;
        private int best;
        private long nodes;

        Search(final int n, final long[] closed, final int threshold, final long nodeBudget)
        {
            this.n = n;
            this.closed = closed;
            this.threshold = threshold;
            this.nodeBudget = nodeBudget;
            this.counts = new int[n];
        }

        void run(final long cover, final long candidatesIn, final int sizeIn)
        {
            if (++nodes > nodeBudget)
            {
                throw new BudgetExceeded();
            }
            long candidates = candidatesIn;
            long covered = cover;
            int size = sizeIn;
            final int slack;
            // Free vertices first: they cost no coverage.
            for (long c = candidates; c != 0; c &= c - 1)
            {
                final int x = Long.numberOfTrailingZeros(c);
                if ((closed[x] & ~covered) == 0)
                {
                    size++;
                    candidates &= ~(1L << x);
                }
            }
            if (size > best)
            {
                best = size;
            }
            slack = threshold - Long.bitCount(covered);
            int chosen = -1;
            int chosenCost = Integer.MAX_VALUE;
            for (long c = candidates; c != 0; c &= c - 1)
            {
                final int x = Long.numberOfTrailingZeros(c);
                final int cost = Long.bitCount(closed[x] & ~covered);
                if (cost > slack)
                {
                    candidates &= ~(1L << x);
                }
                else if (cost < chosenCost)
                {
                    chosenCost = cost;
                    chosen = x;
                }
            }
            if (chosen < 0 || size + bound(covered, candidates, slack) <= best)
            {
                return;
            }
            final long bit = 1L << chosen;
            run(covered | closed[chosen], candidates & ~bit, size + 1);
            run(covered, candidates & ~bit, size);
        }

        private int bound(final long covered, final long candidates, final int slack)
        {
            final int candidateCount = Long.bitCount(candidates);
            if (slack >= n)
            {
                return candidateCount;
            }
            int m = 0;
            for (long u = ~covered & (n == 64 ? -1L : (1L << n) - 1); u != 0; u &= u - 1)
            {
                final int v = Long.numberOfTrailingZeros(u);
                final int c = Long.bitCount(closed[v] & candidates);
                if (c > 0)
                {
                    counts[m++] = c;
                }
            }
            // Sum of the slack largest counts; m <= 64 so a partial selection sort is cheap.
            int sum = 0;
            for (int k = 0; k < slack && k < m; k++)
            {
                int maxIndex = k;
                for (int i = k + 1; i < m; i++)
                {
                    if (counts[i] > counts[maxIndex])
                    {
                        maxIndex = i;
                    }
                }
                final int tmp = counts[k];
                counts[k] = counts[maxIndex];
                counts[maxIndex] = tmp;
                sum += counts[k];
                if (sum >= candidateCount)
                {
                    return candidateCount;
                }
            }
            return Math.min(sum, candidateCount);
        }
    }
}
