package io.mmx.planner.tolerance;

import io.mmx.planner.analysis.TestGraphs;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.spectral.Lanczos;
import io.mmx.planner.spectral.LanczosResult;
import org.junit.jupiter.api.Test;

import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.*;

/** certified_f <= exact f_max <= attack_f, and ExactTolerance == plain enumeration. */
class ToleranceSoundnessTest
{
    private static final ExactTolerance EXACT = new ExactTolerance(40, 20_000);

    @Test
    void sanityValuesFromTheDesign()
    {
        assertAllAgree(Graph.empty(12), 5);
        assertAllAgree(Graph.empty(13), 6);
        assertAllAgree(TestGraphs.complete(12), 11);
        assertAllAgree(TestGraphs.cycle(12), 7);
        assertAllAgree(TestGraphs.petersen(), 8);
    }

    @Test
    void soundOnSeededRandomRegularGraphs()
    {
        int graphs = 0;
        final int[][] shapes = {{10, 3}, {12, 3}, {14, 3}, {16, 3}, {18, 3}, {20, 3}, {22, 3}, {24, 3},
            {12, 4}, {15, 4}, {18, 4}, {21, 4}, {24, 4}, {14, 5}, {16, 5}, {20, 5}, {24, 5}, {16, 6}, {20, 6},
            {24, 6}, {22, 7}, {24, 8}, {11, 2}, {18, 2}, {24, 10}, {26, 3}, {25, 4}, {26, 4}, {26, 5}, {26, 6},
            {26, 8}, {26, 12}};
        for (final int[] shape : shapes)
        {
            for (long seed = 1; seed <= 2; seed++)
            {
                final long graphSeed = 1000L * shape[0] + 10L * shape[1] + seed;
                System.out.println("ToleranceSoundnessTest random regular n=" + shape[0] + " d=" + shape[1] +
                    " graphSeed=" + graphSeed);
                assertSound(TestGraphs.randomRegular(shape[0], shape[1], graphSeed), graphSeed);
                graphs++;
            }
        }
        assertTrue(graphs >= 50);
    }

    /**
     * Beyond brute force (n > 26), branch and bound (checked against brute force above) is the
     * truth: certified_f <= exact f_max <= attack_f on random regular graphs of 28 to 40 vertices.
     */
    @Test
    void soundAgainstBranchAndBoundUpToFortyVertices()
    {
        final int[][] shapes = {{28, 3}, {28, 5}, {30, 4}, {30, 6}, {32, 3}, {32, 4}, {32, 7}, {34, 4}, {34, 6},
            {36, 3}, {36, 5}, {38, 4}, {38, 6}, {40, 3}, {40, 4}, {40, 6}, {40, 8}};
        for (final int[] shape : shapes)
        {
            final long graphSeed = 1000L * shape[0] + 10L * shape[1] + 1;
            System.out.println("ToleranceSoundnessTest vs branch and bound n=" + shape[0] + " d=" + shape[1] +
                " graphSeed=" + graphSeed);
            final Graph g = TestGraphs.randomRegular(shape[0], shape[1], graphSeed);
            final OptionalInt exact = EXACT.exactF(g);
            assertTrue(exact.isPresent(), "branch and bound within its budget on " + g);
            final LanczosResult spectrum = new Lanczos(graphSeed).run(g);
            final Certificate certificate = CertifiedBound.certify(g, spectrum.estimate());
            final AttackResult attack = new AttackSearch(graphSeed, 50).search(g, g.n() / 2, spectrum.lambda2Vector());
            final String context = g + " graphSeed " + graphSeed + " exact=" + exact + " " + certificate +
                " attackF=" + attack.attackF();
            assertTrue(certificate.certifiedF() <= exact.getAsInt(), context);
            assertTrue(exact.getAsInt() <= certificate.degreeLimitF(), context);
            assertTrue(exact.getAsInt() <= attack.attackF(), context);
            assertValidWitness(g, attack, g.n() / 2);
        }
    }

    @Test
    void soundOnNonRegularGraphs()
    {
        for (long seed = 1; seed <= 6; seed++)
        {
            final int n = 14 + 2 * (int)seed;
            System.out.println("ToleranceSoundnessTest G(n, 0.2) n=" + n + " graphSeed=" + seed);
            assertSound(TestGraphs.randomGnp(n, 0.2, seed), seed);
        }
        assertSound(TestGraphs.path(20), 1);
        final Graph.Builder star = Graph.builder(15);
        for (int i = 1; i < 15; i++)
        {
            star.addEdge(0, i);
        }
        assertSound(star.build(), 2);
    }

    @Test
    void exactGivesUpBeyondItsLimits()
    {
        assertTrue(new ExactTolerance(20, 1000).exactF(TestGraphs.cycle(21)).isEmpty());
        assertThrows(IllegalArgumentException.class, () -> new ExactTolerance(65, 1000));
    }

    @Test
    void exactBudgetIsACountOfSearchNodesNotAClock()
    {
        // 1 ms of budget is 10,000 nodes, far fewer than n = 40, d = 3 needs: it gives up every time,
        // however fast the machine; the default 5 s (5e7 nodes) finishes it every time, however loaded.
        final Graph g = TestGraphs.randomRegular(40, 3, 403);
        System.out.println("ToleranceSoundnessTest exact budget n=40 d=3 graphSeed=403");
        for (int run = 0; run < 3; run++)
        {
            assertTrue(new ExactTolerance(40, 1).exactF(g).isEmpty(), "run " + run);
        }
        assertTrue(new ExactTolerance(40, 5_000).exactF(g).isPresent());
    }

    @Test
    void exactHandlesFortyVertices()
    {
        final Graph g = TestGraphs.randomRegular(40, 4, 40);
        final long start = System.nanoTime();
        final OptionalInt f = EXACT.exactF(g);
        final long millis = (System.nanoTime() - start) / 1_000_000;
        System.out.println("ToleranceSoundnessTest exact n=40 d=4 graphSeed=40: f=" + f + " in " + millis + " ms");
        assertTrue(f.isPresent());
        final Certificate certificate = CertifiedBound.certify(g, new Lanczos(1).estimate(g));
        final AttackResult attack = new AttackSearch(1, 200).search(g);
        assertTrue(certificate.certifiedF() <= f.getAsInt() && f.getAsInt() <= attack.attackF());
    }

    private static void assertAllAgree(final Graph g, final int expectedF)
    {
        assertEquals(expectedF, g.n() - 1 - BruteForce.maxBlockedSetSize(g, g.n() / 2), "brute force on " + g);
        assertEquals(OptionalInt.of(expectedF), EXACT.exactF(g), "exact on " + g);
        final AttackResult attack = new AttackSearch(1, 200).search(g);
        assertEquals(expectedF, attack.attackF(), "attack on " + g);
        final Certificate withExact = CertifiedBound.certify(g, new Lanczos(1).estimate(g), EXACT.exactF(g));
        assertEquals(expectedF, withExact.certifiedF());
        assertSound(g, 1);
    }

    private static void assertSound(final Graph g, final long seed)
    {
        final int threshold = g.n() / 2;
        final int sStar = BruteForce.maxBlockedSetSize(g, threshold);
        final int f = g.n() - 1 - sStar;
        assertEquals(OptionalInt.of(sStar), EXACT.maxBlockedSetSize(g, threshold), "exact vs brute force, seed " + seed);

        final LanczosResult spectrum = new Lanczos(seed).run(g);
        final Certificate certificate = CertifiedBound.certify(g, spectrum.estimate());
        final AttackResult attack = new AttackSearch(seed, 50).search(g, threshold, spectrum.lambda2Vector());
        final String context = g + " seed " + seed + " f=" + f + " " + certificate + " attackF=" + attack.attackF();
        assertTrue(certificate.certifiedF() <= f, context);
        assertTrue(f <= certificate.degreeLimitF(), context);
        assertTrue(f <= attack.attackF(), context);
        assertValidWitness(g, attack, threshold);
    }

    static void assertValidWitness(final Graph g, final AttackResult attack, final int threshold)
    {
        final boolean[] inSet = new boolean[g.n()];
        for (int i = 0; i < attack.witness().length; i++)
        {
            if (i > 0)
            {
                assertTrue(attack.witness()[i - 1] < attack.witness()[i], "witness sorted and distinct");
            }
            inSet[attack.witness()[i]] = true;
        }
        final int closed = g.closedNeighbourhoodSize(inSet);
        assertEquals(closed, attack.closedNeighbourhoodSize());
        assertTrue(closed <= threshold);
        assertEquals(g.n() - 1 - attack.witness().length, attack.attackF());
    }
}
