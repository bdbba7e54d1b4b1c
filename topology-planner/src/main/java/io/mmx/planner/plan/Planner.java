package io.mmx.planner.plan;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mmx.planner.analysis.AnalysisOptions;
import io.mmx.planner.analysis.GraphAnalysis;
import io.mmx.planner.analysis.GraphAnalyzer;
import io.mmx.planner.analysis.GraphOrigin;
import io.mmx.planner.generate.GenerationRequest;
import io.mmx.planner.generate.GraphGenerator;
import io.mmx.planner.generate.Generators;
import io.mmx.planner.generate.RackAwareGenerator;
import io.mmx.planner.generate.RandomRegularGenerator;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.placement.Placement;
import io.mmx.planner.placement.QpAccounting;
import io.mmx.planner.tolerance.ExactTolerance;
import io.mmx.planner.tolerance.FailureDomainReport;
import io.mmx.planner.tolerance.FailureDomainTolerance;

import java.util.Locale;

/**
 * Makes plans: generation, placement and the full analysis, in the order {@code topo plan}
 * runs them. Also analyses any graph into the plan's analysis object, so that plan, analyze,
 * verify, grow and shrink share one definition of "the analysis".
 */
public final class Planner
{
    /** Generator name recorded for a graph read from a file rather than generated. */
    public static final String IMPORTED = "imported";
    /** Generator name recorded after grow or shrink: the graph no longer follows from the seed. */
    public static final String EDITED = "edited";
    /** Cross-rack cap of the rack-aware generator when none is given. */
    public static final double DEFAULT_MAX_CROSS_RACK_FRACTION = 0.5;

    /** Failure-domain analysis looks at up to this many failed racks or hosts. */
    static final int MAX_FAILED_DOMAINS = 3;
    /** Sets of failed domains tried per level before the attack falls back to sampling. */
    static final int DOMAIN_COMBINATIONS = 64;

    private Planner()
    {
    }

    /** Generates, places and analyses; the result is sealed with its content hash. */
    public static Plan plan(final PlanRequest request, final ProgressListener progress)
    {
        GenerationRequest.validate(request.n(), request.degree());
        request.analysis().validate();
        HeapEstimate.requireFits(request.n(), request.degree(), Runtime.getRuntime().maxMemory());
        final Placement placement = request.layout() == null ? null : Placement.contiguous(request.n(),
            request.layout().racks(), request.layout().hostsPerRack(), request.layout().procsPerHost());
        final GraphGenerator generator = generator(request, placement);
        progress.stage(String.format(Locale.ROOT, "generating a %d-regular graph on %d processes (%s, seed %d)",
            request.degree(), request.n(), generator.name(), request.seed()));
        final Graph graph;
        final GraphOrigin origin;
        if (generator instanceof RandomRegularGenerator random)
        {
            final RandomRegularGenerator.Drawn drawn = random.draw(request.n(), request.degree(), request.seed());
            graph = drawn.graph();
            origin = origin(drawn);
        }
        else
        {
            graph = generator.generate(request.n(), request.degree(), request.seed());
            origin = origin(generator.name(), graph, request.seed());
        }
        final ObjectNode analysis = analyze(graph, placement, request.analysis(), origin, progress);
        progress.stage("sealing the plan");
        return Plan.sealed(graph, request.degree(), generator.name(), request.seed(), placement, analysis);
    }

    /** Analyses a graph that was not generated here, as {@code topo analyze} does. */
    public static Plan analyzeAsPlan(final Graph graph, final Placement placement, final AnalysisOptions options,
        final ProgressListener progress)
    {
        final ObjectNode analysis = analyze(graph, placement, options, progress);
        return Plan.sealed(graph, graph.regularDegree(), IMPORTED, options.seed(), placement, analysis);
    }

    /** The analysis object of a graph not drawn by the random generator (no probable bound). */
    public static ObjectNode analyze(final Graph graph, final Placement placement, final AnalysisOptions options,
        final ProgressListener progress)
    {
        return analyze(graph, placement, options, GraphOrigin.imported(), progress);
    }

    /**
     * Where a plan's graph came from: the pairing path of the random generator only if regenerating
     * it from {@code generator} and {@code seed} gives exactly {@code graph} by that path.
     */
    public static GraphOrigin origin(final String generator, final Graph graph, final long seed)
    {
        if (RandomRegularGenerator.NAME.equals(generator))
        {
            final int d = graph.regularDegree();
            if (d <= 0)
            {
                return GraphOrigin.other("the graph is not regular, so the random generator did not draw it");
            }
            final RandomRegularGenerator.Drawn drawn;
            try
            {
                drawn = new RandomRegularGenerator().draw(graph.n(), d, seed);
            }
            catch (final IllegalArgumentException ex)
            {
                return GraphOrigin.other("the random generator cannot draw this shape: " + ex.getMessage());
            }
            if (!drawn.graph().equals(graph))
            {
                return GraphOrigin.other("the graph differs from what the random generator draws from seed " + seed +
                    " (edited after it was drawn)");
            }
            return origin(drawn);
        }
        if (IMPORTED.equals(generator) || EDITED.equals(generator))
        {
            return GraphOrigin.imported();
        }
        if (RackAwareGenerator.NAME.equals(generator))
        {
            return GraphOrigin.other("the rack-aware generator restricts which slots pair, so the uniform pairing " +
                "count does not describe it");
        }
        return GraphOrigin.other("generator '" + generator + "' is deterministic: there is no randomness to bound");
    }

    private static GraphOrigin origin(final RandomRegularGenerator.Drawn drawn)
    {
        return switch (drawn.method())
        {
            case PAIRING_WITH_ADDED_EDGES -> GraphOrigin.pairing(RandomRegularGenerator.PAIRING_ATTEMPTS);
            case SWITCHES -> GraphOrigin.other("for this shape the random generator repaired the pairing with " +
                "switches, which remove edges, so the pairing count does not bound it");
            case COMPLEMENT -> GraphOrigin.other("for degree >= n/2 the random generator takes a complement, which " +
                "the pairing count does not bound");
        };
    }

    /** The analysis object of a plan: graph, spectrum, tolerance, QPs, failure domains. */
    public static ObjectNode analyze(final Graph graph, final Placement placement, final AnalysisOptions options,
        final GraphOrigin origin, final ProgressListener progress)
    {
        if (placement != null && placement.processes() != graph.n())
        {
            throw new IllegalArgumentException("the placement places " + placement.processes() + " processes but the " +
                "graph has " + graph.n() + "; give a placement for exactly n processes");
        }
        progress.stage(String.format(Locale.ROOT, "analysing: structure, spectrum (Lanczos), certificate, " +
            "attack (budget %d ms)", options.attackBudgetMillis()));
        final GraphAnalysis analysis = GraphAnalyzer.analyze(graph, options, origin);
        final QpAccounting qps = placement == null ? null : QpAccounting.of(graph, placement);
        FailureDomainReport racks = null;
        FailureDomainReport hosts = null;
        if (placement != null)
        {
            progress.stage("analysing failure domains: racks and hosts lost with their memory");
            final FailureDomainTolerance domains = failureDomains(graph.n(), options);
            if (placement.racks() > 1)
            {
                racks = domains.analyze(graph, placement.rackLabels(), analysis.spectrum());
            }
            if (placement.hosts() > 1)
            {
                hosts = domains.analyze(graph, placement.hostLabels(), analysis.spectrum());
            }
        }
        return PlanAnalysisJson.of(graph, analysis, options, qps, racks, hosts);
    }

    /** The failure-domain analysis with its share of the attack budget; deterministic given the options. */
    static FailureDomainTolerance failureDomains(final int n, final AnalysisOptions options)
    {
        final ExactTolerance exact = n <= options.exactVertexLimit() ?
            new ExactTolerance(options.exactVertexLimit(), options.exactBudgetMillis()) : null;
        return new FailureDomainTolerance(options.seed(), options.attackBudgetMillis() / 2, MAX_FAILED_DOMAINS,
            DOMAIN_COMBINATIONS, exact);
    }

    private static GraphGenerator generator(final PlanRequest request, final Placement placement)
    {
        if (RackAwareGenerator.NAME.equals(request.generator()))
        {
            if (placement == null)
            {
                throw new IllegalArgumentException("the rack-aware generator needs a placement: give --racks, " +
                    "--hosts-per-rack and --procs-per-host");
            }
            return new RackAwareGenerator(placement, request.maxCrossRackFraction() == null ?
                DEFAULT_MAX_CROSS_RACK_FRACTION : request.maxCrossRackFraction());
        }
        if (request.maxCrossRackFraction() != null)
        {
            throw new IllegalArgumentException("--max-cross-rack-fraction applies only to --generator " +
                RackAwareGenerator.NAME + "; drop it or choose that generator");
        }
        return Generators.byName(request.generator());
    }
}
