package io.mmx.planner.plan;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mmx.planner.analysis.AnalysisOptions;
import io.mmx.planner.analysis.GraphAnalysis;
import io.mmx.planner.analysis.GraphAnalyzer;
import io.mmx.planner.analysis.StageTimings;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.placement.QpAccounting;
import io.mmx.planner.spectral.SpectrumEstimate;
import io.mmx.planner.tolerance.AttackResult;
import io.mmx.planner.tolerance.Certificate;
import io.mmx.planner.tolerance.DomainFailureLevel;
import io.mmx.planner.tolerance.FailureDomainReport;
import io.mmx.planner.tolerance.ProbableTolerance;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.Predicate;

/**
 * The {@code analysis} object of a plan file, field by field as docs/plan-format.md lists it.
 * Built from the analysis records ({@link #of}); read back into them ({@link #read}, what every
 * reader of a plan's results uses) and, as a JSON tree, only by the verifier, which compares the
 * file with what it recomputes.
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
            t.put("exact_method", exactMethod(analysis.certificate()));
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

    /** How an exact f_max was found, given the certificate that states it. */
    static String exactMethod(final Certificate certificate)
    {
        return GraphAnalyzer.HARPER.equals(certificate.method()) ? GraphAnalyzer.HARPER : "branch-and-bound";
    }

    /**
     * Reads {@code plan}'s analysis object back into typed results, the inverse of {@link #of}:
     * a number written as null (not finite, or not applicable) reads back as NaN, -1 or empty, as
     * the records state. Stage timings, which no hash covers, read as 0 when missing.
     *
     * @throws IllegalArgumentException naming the first field that is missing or of the wrong type.
     */
    static PlanAnalysis read(final Plan plan)
    {
        final JsonNode a = plan.analysis();
        final Graph graph = plan.graph();
        final JsonNode g = object(a, "graph", "");
        final JsonNode s = object(a, "spectrum", "");
        final JsonNode t = object(a, "tolerance", "");
        final JsonNode timing = a.path("timing_ms");
        final SpectrumEstimate spectrum = new SpectrumEstimate(graph.n(), graph.regularDegree(),
            real(s, "lambda1", "spectrum"), real(s, "lambda2", "spectrum"), real(s, "lambda_min", "spectrum"),
            real(s, "lambda2_residual", "spectrum"), real(s, "lambda_min_residual", "spectrum"),
            integer(s, "iterations", "spectrum"), real(s, "lambda2_upper", "spectrum"),
            real(s, "lambda_min_lower", "spectrum"), real(s, "lambda_bound", "spectrum"),
            real(s, "failure_probability", "spectrum"), text(s, "reorthogonalisation", "spectrum"),
            text(s, "bound_justification", "spectrum"));
        final Certificate certificate = new Certificate(integer(t, "certified_f", "tolerance"),
            text(t, "certified_method", "tolerance"), text(t, "certified_justification", "tolerance"),
            integer(t, "live_set_upper", "tolerance"), integer(t, "degree_limit_f", "tolerance"));
        final AttackResult attack = new AttackResult(integer(t, "attack_f", "tolerance"),
            ints(t, "witness", "tolerance"), integer(t, "witness_closed_neighbourhood", "tolerance"),
            timing.path("attack").asLong(0), text(t, "attack_method", "tolerance"));
        final ProbableTolerance probable = t.path("probable_f").isNull() ?
            new ProbableTolerance(false, -1, Double.NaN, -1, text(t, "probable_justification", "tolerance")) :
            new ProbableTolerance(true, integer(t, "probable_f", "tolerance"),
                real(t, "probable_failure_probability", "tolerance"), integer(t, "probable_live_set_limit", "tolerance"),
                text(t, "probable_justification", "tolerance"));
        final StageTimings timings = new StageTimings(timing.path("structure").asLong(0),
            timing.path("diameter").asLong(0), timing.path("spectrum").asLong(0), timing.path("exact").asLong(0),
            timing.path("certificate").asLong(0), timing.path("attack").asLong(0), timing.path("probable").asLong(0),
            timing.path("total").asLong(0));
        final GraphAnalysis results = new GraphAnalysis(integer(g, "n", "graph"), longInteger(g, "edges", "graph"),
            integer(g, "min_degree", "graph"), integer(g, "max_degree", "graph"), bool(g, "connected", "graph"),
            integer(g, "components", "graph"), integer(g, "diameter", "graph"), bool(g, "diameter_exact", "graph"),
            spectrum, certificate, attack, optionalInteger(t, "exact_f", "tolerance"), probable, timings);
        final JsonNode domains = a.path("failure_domains");
        final boolean placed = domains.isObject();
        return new PlanAnalysis(options(object(a, "settings", "")), results,
            placed ? domains(domains, "racks") : null, placed ? domains(domains, "hosts") : null);
    }

    private static FailureDomainReport domains(final JsonNode domains, final String kind)
    {
        final JsonNode d = domains.path(kind);
        if (d.isNull())
        {
            return null;
        }
        final String where = "failure_domains." + kind;
        object(domains, kind, "failure_domains");
        final List<DomainFailureLevel> levels = new ArrayList<>();
        for (final JsonNode row : d.path("rows"))
        {
            final String at = where + ".rows[" + levels.size() + "]";
            levels.add(new DomainFailureLevel(integer(row, "failed", at), integer(row, "processes_lost", at),
                integer(row, "further_crashes_certified", at), integer(row, "further_crashes_attack", at),
                optionalInteger(row, "further_crashes_exact", at), ints(row, "attack_domains", at),
                ints(row, "attack_witness", at), integer(row, "combinations_tried", at),
                "exhaustive".equals(text(row, "worst_case", at)), text(row, "method", at)));
        }
        return new FailureDomainReport(integer(d, "domains", where), integer(d, "largest_domain", where),
            List.copyOf(levels), text(d, "justification", where));
    }

    private static JsonNode object(final JsonNode parent, final String field, final String where)
    {
        return field(parent, field, where, JsonNode::isObject, "an object");
    }

    /** {@code parent.field} if {@code ok} holds for it, else one sentence naming it {@code analysis.where.field}. */
    private static JsonNode field(final JsonNode parent, final String field, final String where,
        final Predicate<JsonNode> ok, final String expected)
    {
        final JsonNode node = parent.path(field);
        if (!ok.test(node))
        {
            throw new IllegalArgumentException("analysis." + (where.isEmpty() ? "" : where + ".") + field +
                " is missing or not " + expected +
                ": write the plan again with 'topo plan'");
        }
        return node;
    }

    private static int integer(final JsonNode parent, final String field, final String where)
    {
        return field(parent, field, where, JsonNode::isNumber, "a number").asInt();
    }

    private static long longInteger(final JsonNode parent, final String field, final String where)
    {
        return field(parent, field, where, JsonNode::isNumber, "a number").asLong();
    }

    private static OptionalInt optionalInteger(final JsonNode parent, final String field, final String where)
    {
        return parent.path(field).isNull() ? OptionalInt.empty() : OptionalInt.of(integer(parent, field, where));
    }

    /** A double written by {@link #putFinite}: null stands for a value that was not finite. */
    private static double real(final JsonNode parent, final String field, final String where)
    {
        return parent.path(field).isNull() ? Double.NaN :
            field(parent, field, where, JsonNode::isNumber, "a number").asDouble();
    }

    private static boolean bool(final JsonNode parent, final String field, final String where)
    {
        return field(parent, field, where, JsonNode::isBoolean, "true/false").asBoolean();
    }

    private static String text(final JsonNode parent, final String field, final String where)
    {
        return field(parent, field, where, JsonNode::isTextual, "a string").asText();
    }

    private static int[] ints(final JsonNode parent, final String field, final String where)
    {
        final JsonNode node = field(parent, field, where, JsonNode::isArray, "an array of integers");
        final int[] values = new int[node.size()];
        for (int i = 0; i < values.length; i++)
        {
            if (!node.get(i).isInt())
            {
                throw new IllegalArgumentException("analysis." + where + "." + field + "[" + i + "] is not an integer: " +
                    "write the plan again with 'topo plan'");
            }
            values[i] = node.get(i).asInt();
        }
        return values;
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
