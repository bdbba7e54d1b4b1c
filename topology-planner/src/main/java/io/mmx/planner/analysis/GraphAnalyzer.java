package io.mmx.planner.analysis;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.spectral.Lanczos;
import io.mmx.planner.spectral.LanczosResult;
import io.mmx.planner.tolerance.AttackResult;
import io.mmx.planner.tolerance.AttackSearch;
import io.mmx.planner.tolerance.Certificate;
import io.mmx.planner.tolerance.CertifiedBound;
import io.mmx.planner.tolerance.ExactTolerance;
import io.mmx.planner.tolerance.HypercubeTolerance;
import io.mmx.planner.tolerance.ProbableBound;
import io.mmx.planner.tolerance.ProbableTolerance;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * Runs every analysis of a plan graph in order (structure, diameter, spectrum, exact, certificate,
 * attack, probable bound) and times each stage. A verified hypercube gets its exact value and optimal
 * witness from Harper's theorem instead of the search. The lambda2 Ritz vector from Lanczos seeds the attack's spectral
 * sweep, so the two share one eigen-solve.
 */
public final class GraphAnalyzer
{
    /** Method name of values that Harper's theorem gives for hypercubes. */
    public static final String HARPER = "harper";

    private GraphAnalyzer()
    {
    }

    /** Analyses a graph of unknown origin (no probable bound); validates {@code options} first. */
    public static GraphAnalysis analyze(final Graph graph, final AnalysisOptions options)
    {
        return analyze(graph, options, GraphOrigin.imported());
    }

    /** Analyses {@code graph}, which came from {@code origin}; validates {@code options} first. */
    public static GraphAnalysis analyze(final Graph graph, final AnalysisOptions options, final GraphOrigin origin)
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
        final Optional<HypercubeTolerance.Result> cube = HypercubeTolerance.analyze(graph);
        final OptionalInt exactF = cube.isPresent() ? OptionalInt.of(cube.get().exactF()) :
            n <= options.exactVertexLimit() ?
            new ExactTolerance(options.exactVertexLimit(), options.exactBudgetMillis()).exactF(graph) :
            OptionalInt.empty();
        final long exactMillis = millisSince(mark);

        mark = System.nanoTime();
        final Certificate certificate = cube.isPresent() ?
            CertifiedBound.exact(graph, cube.get().exactF(), HARPER, "Proof: the graph is a hypercube Q_" +
                Integer.numberOfTrailingZeros(n) + " (isomorphism verified), and by Harper's vertex-isoperimetric " +
                "theorem the first |S| vertices in simplicial order have the smallest |N[S]| of any |S| vertices " +
                "(no numerics).") :
            CertifiedBound.certify(graph, lanczos.estimate(), exactF);
        final long certificateMillis = millisSince(mark);

        mark = System.nanoTime();
        final AttackResult attack = cube.isPresent() ?
            new AttackResult(cube.get().exactF(), cube.get().witness(), cube.get().closed(), 0, HARPER +
                " (initial segment of the simplicial order: optimal)") :
            new AttackSearch(options.seed(), options.attackBudgetMillis())
                .search(graph, n / 2, lanczos.lambda2Vector(), certificate.liveSetUpper());
        final long attackMillis = millisSince(mark);

        mark = System.nanoTime();
        final ProbableTolerance probable = probable(graph, options, origin);
        final long probableMillis = millisSince(mark);

        final StageTimings timings = new StageTimings(structureMillis, diameterMillis, spectrumMillis, exactMillis,
            certificateMillis, attackMillis, probableMillis, millisSince(start));
        return new GraphAnalysis(n, graph.edgeCount(), minDegree, maxDegree, connected, components, diameter,
            diameterExact, lanczos.estimate(), certificate, attack, exactF, probable, timings);
    }

    private static ProbableTolerance probable(final Graph graph, final AnalysisOptions options, final GraphOrigin origin)
    {
        if (!origin.pairingModel())
        {
            return ProbableTolerance.notApplicable(origin.reason());
        }
        if (graph.regularDegree() <= 0)
        {
            return ProbableTolerance.notApplicable("the graph is not regular, so it is no pairing-model graph");
        }
        return ProbableBound.of(graph.n(), graph.regularDegree(), origin.pairingAttempts(), options.probableTarget());
    }

    private static long millisSince(final long startNanos)
    {
        return (System.nanoTime() - startNanos) / 1_000_000L;
    }
}
