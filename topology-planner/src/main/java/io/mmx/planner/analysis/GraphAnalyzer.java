package io.mmx.planner.analysis;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.spectral.Lanczos;
import io.mmx.planner.spectral.LanczosResult;
import io.mmx.planner.tolerance.AttackResult;
import io.mmx.planner.tolerance.AttackSearch;
import io.mmx.planner.tolerance.Certificate;
import io.mmx.planner.tolerance.CertifiedBound;
import io.mmx.planner.tolerance.ExactTolerance;

import java.util.OptionalInt;

/**
 * Runs every analysis of a plan graph in order (structure, diameter, spectrum, exact, certificate,
 * attack) and times each stage. The lambda2 Ritz vector from Lanczos seeds the attack's spectral
 * sweep, so the two share one eigen-solve.
 */
public final class GraphAnalyzer
{
    private GraphAnalyzer()
    {
    }

    /** Analyses {@code graph}; validates {@code options} first. */
    public static GraphAnalysis analyze(final Graph graph, final AnalysisOptions options)
    {
        options.validate();
        final long start = System.nanoTime();
        long mark = start;

        final int n = graph.n();
        final int minDegree = graph.minDegree();
        final int maxDegree = graph.maxDegree();
        final int components = graph.componentCount();
        final boolean connected = n <= 1 || components == 1;
        final long structureMillis = millisSince(mark);

        mark = System.nanoTime();
        final boolean diameterExact = n <= options.exactDiameterVertexLimit();
        final int diameter = !connected ? -1 :
            diameterExact ? Diameter.exact(graph) : Diameter.lowerBound(graph, options.seed());
        final long diameterMillis = millisSince(mark);

        mark = System.nanoTime();
        final LanczosResult lanczos = new Lanczos(options.seed(), options.lanczosIterations(),
            options.failureProbability(), options.basisBudgetBytes()).run(graph);
        final long spectrumMillis = millisSince(mark);

        mark = System.nanoTime();
        final OptionalInt exactF = n <= options.exactVertexLimit() ?
            new ExactTolerance(options.exactVertexLimit(), options.exactBudgetMillis()).exactF(graph) :
            OptionalInt.empty();
        final long exactMillis = millisSince(mark);

        mark = System.nanoTime();
        final Certificate certificate = CertifiedBound.certify(graph, lanczos.estimate(), exactF);
        final long certificateMillis = millisSince(mark);

        mark = System.nanoTime();
        final AttackResult attack = new AttackSearch(options.seed(), options.attackBudgetMillis())
            .search(graph, n / 2, lanczos.lambda2Vector(), certificate.liveSetUpper());
        final long attackMillis = millisSince(mark);

        final StageTimings timings = new StageTimings(structureMillis, diameterMillis, spectrumMillis, exactMillis,
            certificateMillis, attackMillis, millisSince(start));
        return new GraphAnalysis(n, graph.edgeCount(), minDegree, maxDegree, connected, components, diameter,
            diameterExact, lanczos.estimate(), certificate, attack, exactF, timings);
    }

    private static long millisSince(final long startNanos)
    {
        return (System.nanoTime() - startNanos) / 1_000_000L;
    }
}
