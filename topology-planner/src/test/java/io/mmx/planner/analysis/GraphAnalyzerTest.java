package io.mmx.planner.analysis;

import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.*;

class GraphAnalyzerTest
{
    @Test
    void petersenIsFullyDetermined()
    {
        final GraphAnalysis a = GraphAnalyzer.analyze(TestGraphs.petersen(), AnalysisOptions.defaults());
        assertEquals(10, a.n());
        assertEquals(15, a.edges());
        assertEquals(3, a.minDegree());
        assertEquals(3, a.maxDegree());
        assertTrue(a.connected());
        assertEquals(1, a.componentCount());
        assertEquals(2, a.diameter());
        assertTrue(a.diameterExact());
        assertEquals(1.0, a.spectrum().lambda2(), 1e-9);
        assertEquals(-2.0, a.spectrum().lambdaMin(), 1e-9);
        assertEquals(OptionalInt.of(8), a.exactF());
        assertEquals(8, a.certifiedF());
        assertEquals("exact", a.certificate().method());
        assertEquals(8, a.attackF());
        assertTrue(a.timings().attackMillis() < 400, "the attack stops once it meets the exact bound");
    }

    @Test
    void disconnectedAndEmptyGraphs()
    {
        final GraphAnalysis empty = GraphAnalyzer.analyze(Graph.empty(12), AnalysisOptions.defaults().withAttackBudgetMillis(20));
        assertFalse(empty.connected());
        assertEquals(-1, empty.diameter());
        assertEquals(5, empty.certifiedF());
        assertEquals(5, empty.attackF());
        final GraphAnalysis single = GraphAnalyzer.analyze(Graph.empty(1), AnalysisOptions.defaults());
        assertEquals(0, single.certifiedF());
        assertEquals(0, single.attackF());
        assertEquals(0, single.diameter());
    }

    @Test
    void diameterExactMatchesEccentricitiesAndBoundIsBelow()
    {
        for (long seed = 1; seed <= 3; seed++)
        {
            final Graph g = TestGraphs.randomRegular(300 + (int)seed * 50, 3, seed);
            int truth = 0;
            for (int v = 0; v < g.n(); v++)
            {
                truth = Math.max(truth, g.eccentricity(v));
            }
            System.out.println("GraphAnalyzerTest diameter n=" + g.n() + " graphSeed=" + seed + " truth=" + truth);
            assertEquals(truth, Diameter.exact(g));
            final int lower = Diameter.lowerBound(g, seed);
            assertTrue(lower <= truth && lower >= truth - 2);
        }
        assertEquals(6, Diameter.exact(TestGraphs.cycle(12)));
        assertEquals(16, Diameter.lowerBound(TestGraphs.path(17), 3));
    }

    @Test
    void largeGraphsReportADiameterBound()
    {
        final Graph g = TestGraphs.randomRegular(2000, 4, 9);
        final GraphAnalysis a = GraphAnalyzer.analyze(g, AnalysisOptions.defaults()
            .withExactDiameterVertexLimit(1000).withAttackBudgetMillis(100));
        assertFalse(a.diameterExact());
        assertTrue(a.diameter() <= Diameter.exact(g));
        assertTrue(a.exactF().isEmpty());
        assertTrue(a.certifiedF() <= a.attackF());
    }

    @Test
    void optionsNameEveryProblem()
    {
        final AnalysisOptions bad = new AnalysisOptions(1, 1, 2.0, -1, -5, 99, 0, -1, 0.0);
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, bad::validate);
        for (final String field : new String[] {"lanczosIterations", "failureProbability", "basisBudgetBytes",
            "attackBudgetMillis", "exactVertexLimit", "exactBudgetMillis", "exactDiameterVertexLimit", "probableTarget"})
        {
            assertTrue(e.getMessage().contains(field), e.getMessage());
        }
        final AnalysisOptions good = AnalysisOptions.defaults();
        assertSame(good, good.validate());
    }
}
