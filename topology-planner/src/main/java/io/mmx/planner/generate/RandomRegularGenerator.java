package io.mmx.planner.generate;

import io.mmx.planner.graph.Graph;

import java.util.SplittableRandom;

/**
 * Random connected simple d-regular graphs (the default generator, {@value #NAME}): random
 * regular graphs are near-Ramanujan expanders with high probability (λ2 close to 2√(d−1)),
 * which is what the crash-tolerance condition rewards.
 *
 * <p>Method, for {@code 3 ≤ d < n/2}: the configuration (pairing) model pairs the {@code n·d}
 * endpoint slots uniformly at random; the expected O(d²) self-loops and repeated copies of edges
 * are then dropped and the freed slots joined by new edges, so the result contains every edge of
 * the pairing's underlying simple graph and only adds to it. A pairing whose freed slots cannot be
 * joined that way, or whose graph is disconnected, is discarded for a fresh one, at most
 * {@value #PAIRING_ATTEMPTS} times. Because adding edges never shrinks a closed neighbourhood
 * N[S], a first-moment count over the uniform pairing bounds the tolerance of what this returns
 * ({@link io.mmx.planner.tolerance.ProbableBound}); {@link #draw} says whether this path was taken.
 *
 * <p>Otherwise (degree 2, whose pairings are almost never connected; the rare shapes where every
 * attempt fails) the pairing is repaired by random degree-preserving switches and the extra
 * components joined by switches; and for {@code d ≥ n/2} it samples the sparser complement,
 * whose complement is a uniform dense d-regular graph and always connected. Neither is covered by
 * the count.
 *
 * <p>All randomness comes from one {@link SplittableRandom} seeded with the given seed.
 */
public final class RandomRegularGenerator implements GraphGenerator
{
    /** Registry name. */
    public static final String NAME = "random";
    /** Fresh pairings tried before giving up; only tiny or dense inputs ever need a second one. */
    private static final int MAX_PAIRINGS = 256;
    /**
     * Pairings tried with add-only repair before falling back to switches. The probable bound pays
     * this factor (each attempt is a fresh uniform pairing), so it is kept small: a pairing fails
     * only when its few defects cannot be joined (chance about 0.4 for d = 3, far less above).
     */
    public static final int PAIRING_ATTEMPTS = 32;
    /**
     * Above this degree the repair by added edges costs seconds to minutes (n = 4096: 2 s at degree
     * 256, 31 s at 512), so denser graphs are drawn by switches and carry no probable bound.
     */
    public static final int MAX_PAIRING_DEGREE = 256;
    /** Random greedy matchings of the freed slots tried per pairing. */
    private static final int REPAIR_TRIES = 16;

    /** How a graph was drawn; only {@link #PAIRING_WITH_ADDED_EDGES} is covered by the pairing-model count. */
    public enum Method
    {
        /** A uniform pairing, defects dropped, then edges only added. */
        PAIRING_WITH_ADDED_EDGES,
        /** A pairing repaired and connected by degree-preserving switches (edges removed too). */
        SWITCHES,
        /** The complement of a sparser random regular graph. */
        COMPLEMENT
    }

    /**
     * A drawn graph and the way it was drawn.
     *
     * @param graph  the connected simple regular graph.
     * @param method which path of the generator produced it.
     */
    public record Drawn(Graph graph, Method method)
    {
    }

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public Graph generate(final int n, final int degree, final long seed)
    {
        return draw(n, degree, seed).graph();
    }

    /** The graph {@link #generate} returns, with the path that produced it. */
    public Drawn draw(final int n, final int degree, final long seed)
    {
        GenerationRequest.validate(n, degree);
        final SplittableRandom random = new SplittableRandom(seed);
        if (2 * degree >= n)
        {
            return new Drawn(complement(sample(n, n - 1 - degree, false, random, seed)), Method.COMPLEMENT);
        }
        if (degree >= 3 && degree <= MAX_PAIRING_DEGREE)
        {
            final RegularSlotGraph slots = new RegularSlotGraph(n, degree, new int[n * degree]);
            for (int attempt = 0; attempt < PAIRING_ATTEMPTS; attempt++)
            {
                slots.pairAtRandom(random);
                if (slots.repairByAddingEdges(random, REPAIR_TRIES) && slots.isConnected())
                {
                    return new Drawn(slots.toGraph(), Method.PAIRING_WITH_ADDED_EDGES);
                }
            }
        }
        return new Drawn(sample(n, degree, true, random, seed), Method.SWITCHES);
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
