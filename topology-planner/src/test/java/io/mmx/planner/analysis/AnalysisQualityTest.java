package io.mmx.planner.analysis;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.spectral.SpectrumEstimate;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** The DESIGN's quality targets at n = 4096, d = 8 (this test takes about ten seconds). */
class AnalysisQualityTest
{
    private static final long GRAPH_SEED = 4096_8L;
    private static final long ANALYSIS_SEED = 17L;

    @Test
    void randomEightRegularAtFourThousand()
    {
        final int n = 4096;
        final Graph g = TestGraphs.randomRegular(n, 8, GRAPH_SEED);
        System.out.println("AnalysisQualityTest n=4096 d=8 graphSeed=" + GRAPH_SEED + " analysisSeed=" + ANALYSIS_SEED);
        final GraphAnalysis a = GraphAnalyzer.analyze(g, AnalysisOptions.defaults()
            .withSeed(ANALYSIS_SEED).withAttackBudgetMillis(10_000));
        final SpectrumEstimate s = a.spectrum();
        System.out.printf("lambda2=%.6f (<= %.6f) lambdaMin=%.6f (>= %.6f) bound=%.6f residuals %.2e %.2e, %d steps, %s%n",
            s.lambda2(), s.lambda2Upper(), s.lambdaMin(), s.lambdaMinLower(), s.lambdaBound(), s.lambda2Residual(),
            s.lambdaMinResidual(), s.iterations(), s.reorthogonalisation());
        System.out.printf("certifiedF=%d (%.4f n, %s) attackF=%d |S|=%d (%s) diameter=%d timings %s%n",
            a.certifiedF(), a.certifiedF() / (double)n, a.certificate().method(), a.attackF(),
            a.attack().witness().length, a.attack().method(), a.diameter(), a.timings());

        assertTrue(s.lambdaBound() <= 1.03 * 2 * Math.sqrt(7), "lambda bound " + s.lambdaBound());
        assertTrue(s.lambda2Residual() < 1e-6 && s.lambdaMinResidual() < 1e-6, "residuals");
        assertTrue(a.certifiedF() >= 0.69 * n, "certified " + a.certifiedF());
        assertTrue(a.attack().witness().length >= 640, "attack |S| = " + a.attack().witness().length);
        assertTrue(a.certifiedF() <= a.attackF());
        assertTrue(a.attackF() <= a.certificate().degreeLimitF());
    }
}
