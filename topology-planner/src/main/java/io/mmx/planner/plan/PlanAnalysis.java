package io.mmx.planner.plan;

import io.mmx.planner.analysis.AnalysisOptions;
import io.mmx.planner.analysis.GraphAnalysis;
import io.mmx.planner.tolerance.FailureDomainReport;

/**
 * A plan's analysis as the planner's typed results: the {@code analysis} object of the plan file
 * read back ({@link Plan#analysisResults()}) into the records the analyzer made, so that a reader
 * in any module names fields and types instead of JSON paths. The JSON form stays the file's (and
 * the content hash's); {@link PlanAnalysisJson} writes one and reads the other.
 *
 * @param settings the options the analysis ran with.
 * @param graph    structure, spectrum, certified, attack, exact and probable bounds, stage timings.
 * @param racks    tolerance after whole racks fail, or null without a placement.
 * @param hosts    tolerance after whole hosts fail, or null without a placement.
 */
public record PlanAnalysis(AnalysisOptions settings, GraphAnalysis graph, FailureDomainReport racks, FailureDomainReport hosts)
{
    /** Proven lower bound on f_max. */
    public int certifiedF()
    {
        return graph.certifiedF();
    }

    /** Witness-backed upper bound on f_max. */
    public int attackF()
    {
        return graph.attackF();
    }

    /** What message passing alone tolerates: a majority of n must stay up. */
    public int messagePassingF()
    {
        return (graph.n() + 1) / 2 - 1;
    }

    /** How the exact f_max was found: Harper's theorem for a hypercube, else branch and bound. */
    public String exactMethod()
    {
        return PlanAnalysisJson.exactMethod(graph.certificate());
    }
}
