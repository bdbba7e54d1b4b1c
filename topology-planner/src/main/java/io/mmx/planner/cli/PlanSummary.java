package io.mmx.planner.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.mmx.planner.plan.Plan;

import java.io.PrintWriter;
import java.util.Locale;

/** The short human summary of a plan's analysis that plan and analyze print. */
final class PlanSummary
{
    private PlanSummary()
    {
    }

    static void print(final Plan plan, final PrintWriter out)
    {
        final JsonNode a = plan.analysis();
        final JsonNode g = a.path("graph");
        final JsonNode s = a.path("spectrum");
        final JsonNode t = a.path("tolerance");
        final int n = plan.n();
        out.printf(Locale.ROOT, "graph      n = %d, degree %s, %d edges, %s, diameter %s%s%n", n,
            plan.degree() >= 0 ? Integer.toString(plan.degree()) : g.path("min_degree").asInt() + ".." + g.path("max_degree").asInt(),
            plan.graph().edgeCount(),
            g.path("connected").asBoolean() ? "connected" : g.path("components").asInt() + " components (NOT connected)",
            g.path("diameter").asInt() < 0 ? "infinite" : (g.path("diameter_exact").asBoolean() ? "" : ">= ") + g.path("diameter").asInt(),
            "random".equals(plan.generator()) || "imported".equals(plan.generator()) ? "" : ", " + plan.generator());
        if (!s.isMissingNode() && !s.isNull())
        {
            out.printf(Locale.ROOT, "spectrum   lambda2 = %.4f, lambda_min = %.4f, max|lambda| <= %.4f used by the certificate%n",
                s.path("lambda2").asDouble(), s.path("lambda_min").asDouble(), s.path("lambda_bound").asDouble());
            if (plan.degree() > 1)
            {
                out.printf(Locale.ROOT, "           (Ramanujan 2*sqrt(d-1) = %.4f; Lanczos residual %.1e)%n",
                    2 * Math.sqrt(plan.degree() - 1.0),
                    Math.max(s.path("lambda2_residual").asDouble(), s.path("lambda_min_residual").asDouble()));
            }
        }
        out.printf(Locale.ROOT, "tolerance  f_max = the most crashed processes (of %d) that consensus survives, whichever crash:%n", n);
        out.printf(Locale.ROOT, "           certified  >= %-8d %s  %s%n", t.path("certified_f").asInt(),
            percent(t.path("certified_f").asInt(), n), "proof: " + t.path("certified_method").asText());
        if (t.hasNonNull("exact_f"))
        {
            out.printf(Locale.ROOT, "           exact       = %-8d %s  %s%n", t.path("exact_f").asInt(),
                percent(t.path("exact_f").asInt(), n), "harper".equals(t.path("exact_method").asText()) ?
                "Harper's theorem (hypercube)" : "branch and bound");
        }
        if (t.hasNonNull("probable_f"))
        {
            out.printf(Locale.ROOT, "           probable   >= %-8d %s  over the generator's random seed; wrong with " +
                "probability <= %.1e%n", t.path("probable_f").asInt(), percent(t.path("probable_f").asInt(), n),
                t.path("probable_failure_probability").asDouble());
        }
        else if (t.has("probable_justification"))
        {
            out.printf(Locale.ROOT, "           probable   not applicable: %s%n",
                t.path("probable_justification").asText().replaceFirst("^Not applicable: ", ""));
        }
        out.printf(Locale.ROOT, "           attack     <= %-8d %s  witness: %d live processes with |N[S]| = %d <= n/2%n",
            t.path("attack_f").asInt(), percent(t.path("attack_f").asInt(), n), t.path("witness_size").asInt(),
            t.path("witness_closed_neighbourhood").asInt());
        out.printf(Locale.ROOT, "           message passing alone: %d %s%n", t.path("message_passing_f").asInt(),
            percent(t.path("message_passing_f").asInt(), n));
        final JsonNode qp = a.path("qp");
        if (!qp.isMissingNode())
        {
            out.printf(Locale.ROOT, "QPs        %d per process (max), full mesh %d", qp.path("per_process_max").asInt(),
                qp.path("full_mesh_per_process").asInt());
            if (qp.hasNonNull("per_nic_max"))
            {
                out.printf(Locale.ROOT, "; %d per NIC (max), full mesh %d", qp.path("per_nic_max").asInt(),
                    qp.path("full_mesh_per_nic").asInt());
            }
            out.println();
        }
        final JsonNode domains = a.path("failure_domains");
        for (final String kind : new String[] {"racks", "hosts"})
        {
            final JsonNode rows = domains.path(kind).path("rows");
            if (!rows.isArray() || rows.isEmpty())
            {
                continue;
            }
            final StringBuilder line = new StringBuilder();
            for (final JsonNode row : rows)
            {
                if (line.length() > 0)
                {
                    line.append("; ");
                }
                line.append(row.path("failed").asInt()).append(" lost: ");
                if (row.path("further_crashes_certified").asInt() < 0)
                {
                    line.append("blocked");
                }
                else
                {
                    line.append(row.path("further_crashes_certified").asInt()).append("..")
                        .append(row.path("further_crashes_attack").asInt());
                }
            }
            out.printf(Locale.ROOT, "%-10s further process crashes tolerated (certified..attack) when %s fail: %s%n",
                kind.equals("racks") ? "racks" : "hosts", kind, line);
        }
        out.flush();
    }

    private static String percent(final int value, final int n)
    {
        return String.format(Locale.ROOT, "(%5.1f%%)", 100.0 * value / n);
    }
}
