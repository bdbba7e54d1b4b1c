package io.mmx.planner.generate;

import io.mmx.planner.graph.Graph;

import java.util.SplittableRandom;

/**
 * Random connected simple d-regular graphs (the default generator, {@value #NAME}): random
 * regular graphs are near-Ramanujan expanders with high probability (λ2 close to 2√(d−1)),
 * which is what the crash-tolerance condition rewards.
 *
 * <p>Method: the configuration model pairs the {@code n·d} endpoint slots uniformly at
 * random; the expected O(d²) self-loops and repeated edges are then removed by random
 * degree-preserving switches, and the rare extra components joined by switches, without
 * restarting the pairing. The result is close to uniform (the switches touch O(d²) edges).
 * For {@code d ≥ n/2} it samples the sparser complement instead, whose complement is a
 * uniform dense d-regular graph and always connected.
 *
 * <p>All randomness comes from one {@link SplittableRandom} seeded with the given seed.
 */
public final class RandomRegularGenerator implements GraphGenerator
{
    /** Registry name. */
    public static final String NAME = "random";
    /** Fresh pairings tried before giving up; only tiny or dense inputs ever need a second one. */
    private static final int MAX_PAIRINGS = 256;

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public Graph generate(final int n, final int degree, final long seed)
    {
        GenerationRequest.validate(n, degree);
        final SplittableRandom random = new SplittableRandom(seed);
        if (2 * degree >= n)
        {
            return complement(sample(n, n - 1 - degree, false, random, seed));
        }
        return sample(n, degree, true, random, seed);
    }

    private static Graph sample(
        final int n, final int degree, final boolean connected, final SplittableRandom random, final long seed)
    {
        if (degree == 0)
        {
            return Graph.empty(n);
        }
        final RegularSlotGraph slots = new RegularSlotGraph(n, degree, new int[n * degree]);
        for (int pairing = 0; pairing < MAX_PAIRINGS; pairing++)
        {
            slots.pairAtRandom(random);
            if (slots.removeDefects(random) && (!connected || slots.connect(random)))
            {
                return slots.toGraph();
            }
        }
        throw new IllegalStateException("could not generate a " + (connected ? "connected " : "") + "simple " +
            degree + "-regular graph on " + n + " vertices from seed " + seed + " after " + MAX_PAIRINGS +
            " pairings; try another seed and report this one");
    }

    /** The complement of {@code sparse}: every pair not joined there is joined here. */
    private static Graph complement(final Graph sparse)
    {
        final int n = sparse.n();
        final int degree = n - 1 - sparse.maxDegree();
        final long m = (long)n * degree / 2;
        final int[] us = new int[(int)m];
        final int[] vs = new int[(int)m];
        final boolean[] adjacent = new boolean[n];
        int k = 0;
        for (int u = 0; u < n; u++)
        {
            final int[] row = sparse.neighbours(u);
            for (final int v : row)
            {
                adjacent[v] = true;
            }
            for (int v = u + 1; v < n; v++)
            {
                if (!adjacent[v])
                {
                    us[k] = u;
                    vs[k] = v;
                    k++;
                }
            }
            for (final int v : row)
            {
                adjacent[v] = false;
            }
        }
        return Graph.fromEdges(n, us, vs);
    }
}
