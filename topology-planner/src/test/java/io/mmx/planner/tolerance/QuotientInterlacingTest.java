package io.mmx.planner.tolerance;

import io.mmx.planner.analysis.TestGraphs;
import io.mmx.planner.generate.HypercubeGenerator;
import io.mmx.planner.generate.RandomRegularGenerator;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.spectral.Lanczos;
import io.mmx.planner.spectral.SpectrumEstimate;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.*;

/** The three-part quotient interlacing proof: never below the truth, sharper than Haemers, and its checker catches wrong proofs. */
class QuotientInterlacingTest
{
    @Test
    void neverBelowTheTruthAgainstBruteForce()
    {
        final int[][] shapes = {{12, 3}, {14, 3}, {16, 3}, {18, 3}, {20, 3}, {22, 3}, {24, 3}, {12, 4}, {16, 4},
            {20, 4}, {24, 4}, {14, 5}, {18, 5}, {22, 5}, {16, 6}, {20, 6}, {24, 6}, {20, 7}, {24, 8}};
        int cases = 0;
        int tight = 0;
        int chosen = 0;
        for (final int[] shape : shapes)
        {
            for (long seed = 1; seed <= 2; seed++)
            {
                final long graphSeed = 7000L * shape[0] + 10L * shape[1] + seed;
                final Graph g = TestGraphs.randomRegular(shape[0], shape[1], graphSeed);
                final SpectrumEstimate spectrum = new Lanczos(graphSeed).estimate(g);
                // The plan's threshold and raised ones (failure domains use threshold + lost regions).
                for (int threshold = g.n() / 2 - 2; threshold <= g.n() / 2 + 3; threshold++)
                {
                    final int truth = BruteForce.maxBlockedSetSize(g, threshold);
                    final int bound = QuotientInterlacing.largestPossible(g.n(), shape[1], threshold,
                        spectrum.lambda2Upper(), spectrum.lambdaMinLower(), threshold);
                    final CertifiedBound.SizeBound certified = CertifiedBound.liveSetUpperBound(g, spectrum, threshold);
                    final String context = "n=" + g.n() + " d=" + shape[1] + " graphSeed=" + graphSeed +
                        " threshold=" + threshold + " truth=" + truth + " bound=" + bound;
                    assertTrue(bound >= truth, context);
                    assertTrue(certified.size() >= truth, context);
                    chosen += certified.method().equals(CertifiedBound.QUOTIENT_INTERLACING) ? 1 : 0;
                    cases++;
                    tight += bound == truth ? 1 : 0;
                }
            }
        }
        System.out.println("QuotientInterlacingTest: " + cases + " cases, sharper than Tanner and Haemers in " + chosen +
            ", equal to the truth in " + tight);
        // The proof must bite, not only stay sound.
        assertTrue(chosen >= cases / 4, chosen + " of " + cases);
    }

    @Test
    void neverBelowHarperOnHypercubes()
    {
        // Q10 and Q12: exact s* by Harper's theorem is 260 and 1124.
        for (final int k : new int[] {10, 12})
        {
            final Graph cube = new HypercubeGenerator().generate(1 << k, k, 1);
            final int truth = (1 << k) - 1 - HypercubeTolerance.analyze(cube).orElseThrow().exactF();
            final SpectrumEstimate spectrum = new Lanczos(k).estimate(cube);
            final int bound = QuotientInterlacing.largestPossible(cube.n(), k, cube.n() / 2, spectrum.lambda2Upper(),
                spectrum.lambdaMinLower(), cube.n() / 2);
            System.out.println("QuotientInterlacingTest Q" + k + ": s* = " + truth + ", bound " + bound);
            assertTrue(bound >= truth, "Q" + k + " bound " + bound + " truth " + truth);
        }
    }

    @Test
    void liftsTheCertificateAboveTheClosedFormsAtN4096()
    {
        final Graph g = new RandomRegularGenerator().draw(4096, 8, 1).graph();
        final SpectrumEstimate spectrum = new Lanczos(1).estimate(g);
        final Certificate certificate = CertifiedBound.certify(g, spectrum);
        System.out.println("QuotientInterlacingTest n=4096 d=8 seed 1: " + certificate);
        assertEquals(CertifiedBound.QUOTIENT_INTERLACING, certificate.method());
        // Haemers gave 2844 on this graph; the truth is about 3430.
        assertTrue(certificate.certifiedF() >= 3000, certificate.toString());
    }

    @Test
    void checkerAcceptsTheProofAndRejectsEveryDeliberateFault()
    {
        final int n = 4096;
        final int threshold = n / 2;
        final double a = 8 - 5.31;
        final double b = 8 + 5.31;
        final int s = QuotientInterlacing.largestPossible(n, 8, threshold, 5.31, -5.31, threshold);
        final QuotientInterlacing.Instance instance = new QuotientInterlacing.Instance(n, 8, s + 1, n - threshold, a, b);
        final QuotientInterlacing.Proof proof = QuotientInterlacing.prove(instance);
        assertNotNull(proof);
        assertTrue(QuotientInterlacing.check(proof));
        // The size just below is feasible for interlacing: no proof found, and the valid tree does not prove it.
        final QuotientInterlacing.Instance smaller = new QuotientInterlacing.Instance(n, 8, s, n - threshold, a, b);
        assertNull(QuotientInterlacing.prove(smaller));
        assertFalse(QuotientInterlacing.check(new QuotientInterlacing.Proof(smaller, proof.tree())));
        // A wider eigenvalue interval (a weaker premise) is not proven by the same tree.
        assertFalse(QuotientInterlacing.check(new QuotientInterlacing.Proof(
            new QuotientInterlacing.Instance(n, 8, s + 1, n - threshold, a / 2, b), proof.tree())));
        // Truncated, padded, a bad node code, and a leaf claiming the whole square for one condition.
        final byte[] tree = proof.tree();
        assertFalse(QuotientInterlacing.check(new QuotientInterlacing.Proof(instance, Arrays.copyOf(tree, tree.length - 1))));
        assertFalse(QuotientInterlacing.check(new QuotientInterlacing.Proof(instance, Arrays.copyOf(tree, tree.length + 1))));
        final byte[] badCode = tree.clone();
        badCode[badCode.length - 1] = 9;
        assertFalse(QuotientInterlacing.check(new QuotientInterlacing.Proof(instance, badCode)));
        for (byte condition = 1; condition <= 5; condition++)
        {
            assertFalse(QuotientInterlacing.check(new QuotientInterlacing.Proof(instance, new byte[] {condition})),
                "condition " + condition + " alone");
        }
        // Each leaf relabelled with every other condition: some relabelling must be caught at every leaf
        // whose box only one condition excludes, and the checker must catch all of those.
        int caught = 0;
        for (int i = 0; i < tree.length; i++)
        {
            if (tree[i] == QuotientInterlacing.SPLIT)
            {
                continue;
            }
            final byte[] relabelled = tree.clone();
            relabelled[i] = (byte)(tree[i] % 5 + 1);
            caught += QuotientInterlacing.check(new QuotientInterlacing.Proof(instance, relabelled)) ? 0 : 1;
        }
        assertTrue(caught > 0, "relabelled leaves caught: " + caught);
    }
}
