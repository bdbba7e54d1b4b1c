package io.mmx.planner.plan;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.placement.Placement;

import java.util.Objects;

/**
 * A deployable plan: the shared-memory graph, how it was made, where each process runs, and
 * the analysis that states its crash tolerance. Field by field in docs/plan-format.md.
 *
 * @param version     plan format version, {@link #FORMAT_VERSION} when written by this code
 * @param graph       the shared-memory graph (RDMA links along its edges only)
 * @param degree      the common degree, or -1 if the graph is not regular
 * @param generator   the generator's name, or {@code "imported"} for a graph read from a file
 * @param seed        the seed that reproduces the graph with that generator
 * @param placement   rack and host of every process, or null when none was given
 * @param analysis    the analysis as a JSON object (see {@code PlanAnalysisJson})
 * @param contentHash {@code sha256:...} over everything else, see {@link PlanDigest}
 */
public record Plan(
    int version,
    Graph graph,
    int degree,
    String generator,
    long seed,
    Placement placement,
    ObjectNode analysis,
    String contentHash)
{
    /** The plan format this code writes. */
    public static final int FORMAT_VERSION = 2;
    /** The oldest plan format this code reads (version 1 hashed timings; see {@link PlanDigest}). */
    public static final int OLDEST_READABLE_VERSION = 1;

    /** Checks that the parts are present. */
    public Plan
    {
        Objects.requireNonNull(graph, "graph");
        Objects.requireNonNull(generator, "generator");
        Objects.requireNonNull(analysis, "analysis");
    }

    /** A plan with its content hash computed. */
    public static Plan sealed(final Graph graph, final int degree, final String generator, final long seed,
        final Placement placement, final ObjectNode analysis)
    {
        final Plan unsealed = new Plan(FORMAT_VERSION, graph, degree, generator, seed, placement, analysis, "");
        return new Plan(FORMAT_VERSION, graph, degree, generator, seed, placement, analysis,
            PlanDigest.of(unsealed).text());
    }

    /**
     * The plan's identity as read from its {@code contentHash} field (check it against
     * {@link PlanDigest#of(Plan)} first: {@link PlanFile#readSealed} does).
     *
     * @throws IllegalArgumentException when the field is not {@code sha256:} and 64 hex digits.
     */
    public PlanDigest digest()
    {
        return PlanDigest.parse(contentHash);
    }

    /**
     * The analysis read back into the planner's typed results; what every reader of a plan's
     * tolerance, spectrum or failure domains uses instead of JSON paths. Parsed on each call.
     *
     * @throws IllegalArgumentException naming the first field missing or of the wrong type.
     */
    public PlanAnalysis analysisResults()
    {
        return PlanAnalysisJson.read(this);
    }

    /** Processes in the plan. */
    public int n()
    {
        return graph.n();
    }
}
