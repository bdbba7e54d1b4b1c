package io.mmx.planner.plan;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mmx.planner.analysis.AnalysisOptions;
import io.mmx.planner.analysis.GraphAnalysis;
import io.mmx.planner.analysis.GraphAnalyzer;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.placement.QpAccounting;
import io.mmx.planner.spectral.SpectrumEstimate;
import io.mmx.planner.tolerance.DomainFailureLevel;
import io.mmx.planner.tolerance.FailureDomainReport;
import io.mmx.planner.tolerance.ProbableTolerance;

/**
 * The {@code analysis} object of a plan file, field by field as docs/plan-format.md lists it.
 * Built from the analysis records; read back as a JSON tree by the summary and the verifier.
 */
public final class PlanAnalysisJson
{
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private PlanAnalysisJson()
    {
    }

    static ObjectNode of(final Graph graph, final GraphAnalysis analysis, final AnalysisOptions options,
        final QpAccounting qps, final FailureDomainReport racks, final FailureDomainReport hosts)
    {
        final ObjectNode root = JSON.objectNode();
        root.set("settings", settings(options));
        final ObjectNode g = root.putObject("graph");
        g.put("n", analysis.n());
        g.put("edges", analysis.edges());
        g.put("min_degree", analysis.minDegree());
        g.put("max_degree", analysis.maxDegree());
        g.put("connected", analysis.connected());
        g.put("components", analysis.componentCount());
        g.put("diameter", analysis.diameter());
        g.put("diameter_exact", analysis.diameterExact());
        root.set("spectrum", spectrum(analysis.spectrum()));
        root.set("tolerance", tolerance(graph, analysis));
        root.set("qp", qp(graph, qps));
        if (racks == null && hosts == null)
        {
            root.putNull("failure_domains");
        }
        else
        {
            final ObjectNode domains = root.putObject("failure_domains");
            domains.set("racks", racks == null ? JSON.nullNode() : domains(racks));
            domains.set("hosts", hosts == null ? JSON.nullNode() : domains(hosts));
        }
        final ObjectNode timing = root.putObject("timing_ms");
        timing.put("structure", analysis.timings().structureMillis());
        timing.put("diameter", analysis.timings().diameterMillis());
        timing.put("spectrum", analysis.timings().spectrumMillis());
        timing.put("exact", analysis.timings().exactMillis());
        timing.put("certificate", analysis.timings().certificateMillis());
        timing.put("attack", analysis.timings().attackMillis());
        timing.put("probable", analysis.timings().probableMillis());
        timing.put("total", analysis.timings().totalMillis());
        return root;
    }

    /** The options recorded in {@code settings}, so that verify recomputes with the same ones. */
    static ObjectNode settings(final AnalysisOptions options)
    {
        final ObjectNode s = JSON.objectNode();
        s.put("seed", options.seed());
        s.put("lanczos_iterations", options.lanczosIterations());
        s.put("failure_probability", options.failureProbability());
        s.put("basis_budget_bytes", options.basisBudgetBytes());
        s.put("attack_budget_ms", options.attackBudgetMillis());
        s.put("exact_limit", options.exactVertexLimit());
        s.put("exact_budget_ms", options.exactBudgetMillis());
        s.put("exact_diameter_limit", options.exactDiameterVertexLimit());
        s.put("probable_target", options.probableTarget());
        return s;
    }

    /** Reads {@code settings} back; missing fields mean the plan was not written by this code. */
    static AnalysisOptions options(final JsonNode settings)
    {
        final String[] fields = {"seed", "lanczos_iterations", "failure_probability", "basis_budget_bytes",
            "attack_budget_ms", "exact_limit", "exact_budget_ms", "exact_diameter_limit", "probable_target"};
        for (final String field : fields)
        {
            if (!settings.hasNonNull(field) || !settings.get(field).isNumber())
            {
                throw new IllegalArgumentException("analysis.settings." + field + " is missing or not a number");
            }
        }
        return new AnalysisOptions(settings.get("seed").asLong(), settings.get("lanczos_iterations").asInt(),
            settings.get("failure_probability").asDouble(), settings.get("basis_budget_bytes").asLong(),
            settings.get("attack_budget_ms").asLong(), settings.get("exact_limit").asInt(),
            settings.get("exact_budget_ms").asLong(), settings.get("exact_diameter_limit").asInt(),
            settings.get("probable_target").asDouble()).validate();
    }

    static ObjectNode spectrum(final SpectrumEstimate s)
    {
        final ObjectNode node = JSON.objectNode();
        putFinite(node, "lambda1", s.lambda1());
        putFinite(node, "lambda2", s.lambda2());
        putFinite(node, "lambda_min", s.lambdaMin());
        putFinite(node, "lambda2_residual", s.lambda2Residual());
        putFinite(node, "lambda_min_residual", s.lambdaMinResidual());
        node.put("iterations", s.iterations());
        putFinite(node, "lambda2_upper", s.lambda2Upper());
        putFinite(node, "lambda_min_lower", s.lambdaMinLower());
        putFinite(node, "lambda_bound", s.lambdaBound());
        putFinite(node, "failure_probability", s.failureProbability());
        node.put("reorthogonalisation", s.reorthogonalisation());
        node.put("bound_justification", s.justification());
        return node;
    }

    static ObjectNode tolerance(final Graph graph, final GraphAnalysis analysis)
    {
        final int n = graph.n();
        final ObjectNode t = JSON.objectNode();
        t.put("certified_f", analysis.certificate().certifiedF());
        t.put("certified_method", analysis.certificate().method());
        t.put("certified_justification", analysis.certificate().justification());
        t.put("live_set_upper", analysis.certificate().liveSetUpper());
        t.put("attack_f", analysis.attack().attackF());
        t.put("attack_method", analysis.attack().method());
        t.put("witness_size", analysis.attack().witness().length);
        t.put("witness_closed_neighbourhood", analysis.attack().closedNeighbourhoodSize());
        t.set("witness", ints(analysis.attack().witness()));
        if (analysis.exactF().isPresent())
        {
            t.put("exact_f", analysis.exactF().getAsInt());
            t.put("exact_method", GraphAnalyzer.HARPER.equals(analysis.certificate().method()) ?
                GraphAnalyzer.HARPER : "branch-and-bound");
        }
        else
        {
            t.putNull("exact_f");
            t.putNull("exact_method");
        }
        t.put("message_passing_f", (n + 1) / 2 - 1);
        t.put("degree_limit_f", analysis.certificate().degreeLimitF());
        final ProbableTolerance probable = analysis.probable();
        if (probable.applicable())
        {
            t.put("probable_f", probable.probableF());
            t.put("probable_failure_probability", probable.failureProbability());
            t.put("probable_live_set_limit", probable.liveSetLimit());
        }
        else
        {
            t.putNull("probable_f");
            t.putNull("probable_failure_probability");
            t.putNull("probable_live_set_limit");
        }
        t.put("probable_justification", probable.justification());
        return t;
    }

    static ObjectNode qp(final Graph graph, final QpAccounting qps)
    {
        final ObjectNode q = JSON.objectNode();
        q.put("per_process_max", graph.maxDegree());
        q.put("per_process_mean", graph.n() == 0 ? 0.0 : 2.0 * graph.edgeCount() / graph.n());
        q.put("full_mesh_per_process", graph.n() - 1);
        if (qps == null)
        {
            q.putNull("per_nic_max");
            q.putNull("per_nic_mean");
            q.putNull("full_mesh_per_nic");
            q.putNull("cross_rack_edges");
        }
        else
        {
            q.put("per_nic_max", qps.maxQpsPerNic());
            q.put("per_nic_mean", qps.meanQpsPerNic());
            q.put("full_mesh_per_nic", qps.fullMeshQpsPerNic());
            q.put("cross_rack_edges", qps.crossRackEdges());
        }
        return q;
    }

    static ObjectNode domains(final FailureDomainReport report)
    {
        final ObjectNode d = JSON.objectNode();
        d.put("domains", report.domainCount());
        d.put("largest_domain", report.largestDomain());
        d.put("justification", report.justification());
        final ArrayNode rows = d.putArray("rows");
        for (final DomainFailureLevel level : report.levels())
        {
            final ObjectNode row = rows.addObject();
            row.put("failed", level.failedDomains());
            row.put("processes_lost", level.processesLost());
            row.put("further_crashes_certified", level.certifiedFurtherCrashes());
            row.put("further_crashes_attack", level.attackFurtherCrashes());
            if (level.exactFurtherCrashes().isPresent())
            {
                row.put("further_crashes_exact", level.exactFurtherCrashes().getAsInt());
            }
            else
            {
                row.putNull("further_crashes_exact");
            }
            row.set("attack_domains", ints(level.attackDomains()));
            row.set("attack_witness", ints(level.attackWitness()));
            row.put("combinations_tried", level.combinationsTried());
            row.put("worst_case", level.exhaustive() ? "exhaustive" : "heuristic");
            row.put("method", level.method());
        }
        return d;
    }

    private static ArrayNode ints(final int[] values)
    {
        final ArrayNode array = JSON.arrayNode(values.length);
        for (final int value : values)
        {
            array.add(value);
        }
        return array;
    }

    private static void putFinite(final ObjectNode node, final String field, final double value)
    {
        if (Double.isFinite(value))
        {
            node.put(field, value);
        }
        else
        {
            node.putNull(field);
        }
    }
}
