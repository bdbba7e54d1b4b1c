package io.mmx.planner.plan;

import com.fasterxml.jackson.databind.JsonNode;
import io.mmx.planner.analysis.AnalysisOptions;
import io.mmx.planner.generate.Generators;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.placement.Placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Recomputes a plan and lists every field that disagrees. Reading already rejected structural
 * damage (asymmetry, self-loops, ids, placement shape); this checks the content hash, that the
 * graph is what its generator and seed give, and every deterministic field of the analysis
 * against a fresh computation with the recorded settings. The attack search depends on its
 * time budget, so its witnesses are checked instead of re-searched.
 */
public final class PlanVerifier
{
    /** Fields of the analysis that a fresh computation must reproduce. */
    private static final String[] DETERMINISTIC = {
        "/graph/n", "/graph/edges", "/graph/min_degree", "/graph/max_degree", "/graph/connected",
        "/graph/components", "/graph/diameter", "/graph/diameter_exact",
        "/spectrum/lambda1", "/spectrum/lambda2", "/spectrum/lambda_min", "/spectrum/lambda2_residual",
        "/spectrum/lambda_min_residual", "/spectrum/iterations", "/spectrum/lambda2_upper",
        "/spectrum/lambda_min_lower", "/spectrum/lambda_bound", "/spectrum/failure_probability",
        "/spectrum/reorthogonalisation", "/spectrum/bound_justification",
        "/tolerance/certified_f", "/tolerance/certified_method", "/tolerance/certified_justification",
        "/tolerance/live_set_upper", "/tolerance/exact_f", "/tolerance/exact_method", "/tolerance/message_passing_f",
        "/tolerance/degree_limit_f", "/tolerance/probable_f", "/tolerance/probable_failure_probability",
        "/tolerance/probable_live_set_limit", "/tolerance/probable_justification",
        "/qp/per_process_max", "/qp/per_process_mean", "/qp/full_mesh_per_process", "/qp/per_nic_max",
        "/qp/per_nic_mean", "/qp/full_mesh_per_nic", "/qp/cross_rack_edges"};
    private static final String[] DOMAIN_ROW_FIELDS = {
        "failed", "processes_lost", "further_crashes_certified", "further_crashes_exact"};

    private PlanVerifier()
    {
    }

    /** Every problem found, each naming the field and what it should be; empty if the plan is sound. */
    public static List<String> verify(final Plan plan, final ProgressListener progress)
    {
        final List<String> problems = new ArrayList<>();
        final Graph graph = plan.graph();
        progress.stage("checking the content hash");
        final String hash = PlanDigest.of(plan).text();
        if (!hash.equals(plan.contentHash()))
        {
            problems.add("content_hash: the file says " + plan.contentHash() + " but its content hashes to " + hash +
                "; the plan was changed after it was written (regenerate it, or find who edited it)");
        }
        checkDegree(plan, problems);
        checkGenerator(plan, progress, problems);
        final AnalysisOptions options;
        try
        {
            options = PlanAnalysisJson.options(plan.analysis().path("settings"));
        }
        catch (final IllegalArgumentException ex)
        {
            problems.add(ex.getMessage() + "; the analysis cannot be recomputed");
            return problems;
        }
        progress.stage("recomputing the analysis");
        final JsonNode expected = Planner.analyze(graph, plan.placement(), options.withAttackBudgetMillis(0),
            Planner.origin(plan.generator(), graph, plan.seed()), progress);
        final JsonNode stored = plan.analysis();
        for (final String path : DETERMINISTIC)
        {
            compare("analysis" + path.replace('/', '.'), stored.at(path), expected.at(path), problems);
        }
        checkWitness(graph, stored.path("tolerance"), problems);
        for (final String kind : new String[] {"racks", "hosts"})
        {
            checkDomains(graph, plan.placement(), kind, stored.path("failure_domains").path(kind),
                expected.path("failure_domains").path(kind), problems);
        }
        return problems;
    }

    private static void checkDegree(final Plan plan, final List<String> problems)
    {
        final int actual = plan.graph().regularDegree();
        if (plan.degree() != actual)
        {
            problems.add("degree: the file says " + plan.degree() + " but the adjacency " + (actual < 0 ?
                "is not regular (degrees " + plan.graph().minDegree() + ".." + plan.graph().maxDegree() + ")" :
                "is " + actual + "-regular"));
        }
    }

    private static void checkGenerator(final Plan plan, final ProgressListener progress, final List<String> problems)
    {
        if (!Generators.names().contains(plan.generator()) || plan.degree() < 0)
        {
            return;
        }
        progress.stage("regenerating the graph from generator " + plan.generator() + " and seed " + plan.seed());
        final Graph expected;
        try
        {
            expected = Generators.byName(plan.generator()).generate(plan.n(), plan.degree(), plan.seed());
        }
        catch (final IllegalArgumentException ex)
        {
            problems.add("generator: '" + plan.generator() + "' cannot make this plan's graph: " + ex.getMessage());
            return;
        }
        if (!expected.equals(plan.graph()))
        {
            int first = 0;
            while (first < plan.n() && Arrays.equals(expected.neighbours(first), plan.graph().neighbours(first)))
            {
                first++;
            }
            problems.add("adjacency: differs from what generator '" + plan.generator() + "' gives for seed " +
                plan.seed() + ", first at process " + first + " (file lists " +
                Arrays.toString(plan.graph().neighbours(first)) + ", generator gives " +
                Arrays.toString(expected.neighbours(first)) + ")");
        }
    }

    private static void checkWitness(final Graph graph, final JsonNode t, final List<String> problems)
    {
        final int n = graph.n();
        final JsonNode witness = t.path("witness");
        if (!witness.isArray())
        {
            problems.add("analysis.tolerance.witness: missing; the attack bound has no evidence");
            return;
        }
        final boolean[] inSet = new boolean[n];
        int previous = -1;
        for (final JsonNode id : witness)
        {
            final int v = id.asInt(-1);
            if (!id.isInt() || v <= previous || v >= n)
            {
                problems.add("analysis.tolerance.witness: entry " + id + " is not an ascending process id below " + n);
                return;
            }
            inSet[v] = true;
            previous = v;
        }
        final int size = witness.size();
        final int closed = graph.closedNeighbourhoodSize(inSet);
        expectInt("analysis.tolerance.witness_size", t.path("witness_size"), size, problems);
        expectInt("analysis.tolerance.witness_closed_neighbourhood", t.path("witness_closed_neighbourhood"), closed, problems);
        if (closed > n / 2)
        {
            problems.add("analysis.tolerance.witness: its closed neighbourhood has " + closed + " processes, more than " +
                "n/2 = " + (n / 2) + ", so it does not show that consensus can block");
        }
        expectInt("analysis.tolerance.attack_f", t.path("attack_f"), n - 1 - size, problems);
        final int certified = t.path("certified_f").asInt();
        if (certified > t.path("attack_f").asInt())
        {
            problems.add(String.format(Locale.ROOT, "analysis.tolerance: certified_f %d exceeds attack_f %d, " +
                "which no sound analysis can give", certified, t.path("attack_f").asInt()));
        }
    }

    private static void checkDomains(final Graph graph, final Placement placement, final String kind,
        final JsonNode stored, final JsonNode expected, final List<String> problems)
    {
        final String field = "analysis.failure_domains." + kind;
        if (expected.isMissingNode() || expected.isNull())
        {
            if (!(stored.isMissingNode() || stored.isNull()))
            {
                problems.add(field + ": present, but this plan has no such failure domains to analyse");
            }
            return;
        }
        compare(field + ".domains", stored.path("domains"), expected.path("domains"), problems);
        final JsonNode rows = stored.path("rows");
        final JsonNode expectedRows = expected.path("rows");
        if (rows.size() != expectedRows.size())
        {
            problems.add(field + ".rows: " + rows.size() + " rows, recomputing gives " + expectedRows.size());
            return;
        }
        final int[] labels = "racks".equals(kind) ? placement.rackLabels() : placement.hostLabels();
        for (int i = 0; i < rows.size(); i++)
        {
            for (final String name : DOMAIN_ROW_FIELDS)
            {
                compare(field + ".rows[" + i + "]." + name, rows.get(i).path(name), expectedRows.get(i).path(name),
                    problems);
            }
            checkDomainWitness(graph, labels, field + ".rows[" + i + "]", rows.get(i), problems);
        }
    }

    /** The attack row's failed domains plus live set must really block: |N[S] minus lost| <= n/2. */
    private static void checkDomainWitness(final Graph graph, final int[] labels, final String field,
        final JsonNode row, final List<String> problems)
    {
        final int n = graph.n();
        final boolean[] lost = new boolean[n];
        for (final JsonNode domain : row.path("attack_domains"))
        {
            for (int p = 0; p < n; p++)
            {
                lost[p] |= labels[p] == domain.asInt();
            }
        }
        final boolean[] live = new boolean[n];
        for (final JsonNode id : row.path("attack_witness"))
        {
            final int v = id.asInt(-1);
            if (v < 0 || v >= n || lost[v])
            {
                problems.add(field + ".attack_witness: " + id + " is not a surviving process id");
                return;
            }
            live[v] = true;
        }
        final boolean[] covered = new boolean[n];
        int reachable = 0;
        for (int v = 0; v < n; v++)
        {
            if (!live[v])
            {
                continue;
            }
            for (int i = -1; i < graph.degree(v); i++)
            {
                final int w = i < 0 ? v : graph.neighbour(v, i);
                if (!lost[w] && !covered[w])
                {
                    covered[w] = true;
                    reachable++;
                }
            }
        }
        if (reachable > n / 2)
        {
            problems.add(field + ": the attack's live set reaches " + reachable + " surviving acceptors, more than " +
                "n/2 = " + (n / 2) + ", so it does not show a block");
        }
    }

    private static void compare(final String field, final JsonNode stored, final JsonNode expected,
        final List<String> problems)
    {
        if (stored.isNumber() && expected.isNumber())
        {
            final double a = stored.asDouble();
            final double b = expected.asDouble();
            if (Math.abs(a - b) <= 1e-9 * Math.max(1.0, Math.abs(b)))
            {
                return;
            }
        }
        else if (stored.equals(expected) || (isAbsent(stored) && isAbsent(expected)))
        {
            return;
        }
        problems.add(field + ": the file says " + render(stored) + " but recomputing gives " + render(expected));
    }

    private static void expectInt(final String field, final JsonNode stored, final int expected,
        final List<String> problems)
    {
        if (!stored.isInt() || stored.asInt() != expected)
        {
            problems.add(field + ": the file says " + render(stored) + " but the witness gives " + expected);
        }
    }

    private static boolean isAbsent(final JsonNode node)
    {
        return node.isMissingNode() || node.isNull();
    }

    private static String render(final JsonNode node)
    {
        if (node.isMissingNode())
        {
            return "nothing";
        }
        final String text = node.toString();
        return text.length() <= 80 ? text : text.substring(0, 77) + "...";
    }
}
