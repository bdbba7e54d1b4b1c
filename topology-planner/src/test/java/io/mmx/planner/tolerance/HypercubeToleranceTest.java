package io.mmx.planner.tolerance;

import io.mmx.planner.generate.CirculantGenerator;
import io.mmx.planner.generate.HypercubeGenerator;
import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import java.util.OptionalInt;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HypercubeToleranceTest
{
    private static final long SEED = 0x4A12_9E7L;

    private static Graph cube(final int k)
    {
        return new HypercubeGenerator().generate(1 << k, k, 0);
    }

    @Test
    void agreesWithBruteForceAndBranchAndBound()
    {
        for (int k = 1; k <= 4; k++)
        {
            final Graph g = cube(k);
            final int sStar = BruteForce.maxBlockedSetSize(g, g.n() / 2);
            assertEquals(g.n() - 1 - sStar, exact(g).exactF(), "Q" + k);
        }
        final Graph q5 = cube(5);
        final OptionalInt branchAndBound = new ExactTolerance(64, 60_000).exactF(q5);
        assertTrue(branchAndBound.isPresent());
        assertEquals(branchAndBound.getAsInt(), exact(q5).exactF(), "Q5");
    }

    @Test
    void knownValuesAtTenAndTwelveDimensions()
    {
        assertEquals(763, exact(cube(10)).exactF());
        assertEquals(2971, exact(cube(12)).exactF());
    }

    @Test
    void spectralCertificateStaysBelowTheTruthOnLargeCubes()
    {
        // Hypercubes are the one family here whose truth is known far beyond brute force.
        for (int k = 4; k <= 12; k++)
        {
            final Graph g = cube(k);
            final Certificate certificate = CertifiedBound.certify(g, new io.mmx.planner.spectral.Lanczos(k).run(g)
                .estimate());
            final int truth = exact(g).exactF();
            assertTrue(certificate.certifiedF() <= truth, "Q" + k + ": " + certificate + " truth " + truth);
        }
    }

    @Test
    void witnessIsAValidBlockedSetOfTheStatedSize()
    {
        for (int k = 2; k <= 12; k++)
        {
            final Graph g = cube(k);
            final HypercubeTolerance.Result r = exact(g);
            final boolean[] in = new boolean[g.n()];
            for (final int v : r.witness())
            {
                in[v] = true;
            }
            assertEquals(r.closed(), g.closedNeighbourhoodSize(in), "Q" + k);
            assertTrue(r.closed() <= g.n() / 2, "Q" + k);
            assertEquals(g.n() - 1 - r.witness().length, r.exactF(), "Q" + k);
        }
    }

    @Test
    void recognisesAHypercubeUnderAnyNumbering()
    {
        System.out.println("HypercubeToleranceTest seed " + SEED);
        final SplittableRandom random = new SplittableRandom(SEED);
        for (int k = 3; k <= 8; k++)
        {
            final Graph g = cube(k);
            final Graph shuffled = relabel(g, random);
            final HypercubeTolerance.Result r = exact(shuffled);
            assertEquals(exact(g).exactF(), r.exactF(), "relabelled Q" + k + ", seed " + SEED);
        }
        // The 4 x 4 torus is Q4 in disguise.
        final Graph.Builder torus = Graph.builder(16);
        for (int v = 0; v < 16; v++)
        {
            torus.addEdge(v, (v / 4) * 4 + (v + 1) % 4);
            torus.addEdge(v, (v + 4) % 16);
        }
        assertNotNull(HypercubeTolerance.recognise(torus.build()));
    }

    @Test
    void refusesGraphsThatAreNotHypercubes()
    {
        assertTrue(HypercubeTolerance.analyze(new CirculantGenerator().generate(16, 4, 0)).isEmpty());
        assertTrue(HypercubeTolerance.analyze(new CirculantGenerator().generate(64, 6, 0)).isEmpty());
        assertTrue(HypercubeTolerance.analyze(Graph.empty(8)).isEmpty());
        // Q4 with one edge switched: still 4-regular on 16 vertices, no longer a hypercube.
        final Graph q4 = cube(4);
        final Graph.Builder b = Graph.builder(16);
        for (int u = 0; u < 16; u++)
        {
            for (final int v : q4.neighbours(u))
            {
                final boolean removed = (u == 0 && v == 1) || (u == 14 && v == 15);
                if (u < v && !removed)
                {
                    b.addEdge(u, v);
                }
            }
        }
        b.addEdge(0, 15);
        b.addEdge(1, 14);
        assertNull(HypercubeTolerance.recognise(b.build()));
    }

    private static HypercubeTolerance.Result exact(final Graph g)
    {
        return HypercubeTolerance.analyze(g).orElseThrow(() -> new AssertionError("not recognised: " + g));
    }

    private static Graph relabel(final Graph g, final SplittableRandom random)
    {
        final int n = g.n();
        final int[] perm = new int[n];
        for (int i = 0; i < n; i++)
        {
            perm[i] = i;
        }
        for (int i = n - 1; i > 0; i--)
        {
            final int j = random.nextInt(i + 1);
            final int t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        final Graph.Builder b = Graph.builder(n);
        for (int u = 0; u < n; u++)
        {
            for (final int v : g.neighbours(u))
            {
                if (u < v)
                {
                    b.addEdge(perm[u], perm[v]);
                }
            }
        }
        return b.build();
    }
}
