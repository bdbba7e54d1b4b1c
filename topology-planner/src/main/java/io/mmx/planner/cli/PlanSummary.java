package io.mmx.planner.cli;

import io.mmx.planner.analysis.GraphAnalysis;
import io.mmx.planner.analysis.GraphAnalyzer;
import io.mmx.planner.placement.QpAccounting;
import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanAnalysis;
import io.mmx.planner.spectral.SpectrumEstimate;
import io.mmx.planner.tolerance.DomainFailureLevel;
import io.mmx.planner.tolerance.FailureDomainReport;
import io.mmx.planner.tolerance.ProbableTolerance;

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
        final PlanAnalysis results = plan.analysisResults();
        final GraphAnalysis g = results.graph();
        final SpectrumEstimate s = g.spectrum();
        final int n = plan.n();
        out.printf(Locale.ROOT, "graph      n = %d, degree %s, %d edges, %s, diameter %s%s%n", n,
            plan.degree() >= 0 ? Integer.toString(plan.degree()) : g.minDegree() + ".." + g.maxDegree(),
            plan.graph().edgeCount(),
            g.connected() ? "connected" : g.componentCount() + " components (NOT connected)",
            g.diameter() < 0 ? "infinite" : (g.diameterExact() ? "" : ">= ") + g.diameter(),
            "random".equals(plan.generator()) || "imported".equals(plan.generator()) ? "" : ", " + plan.generator());
        out.printf(Locale.ROOT, "spectrum   lambda2 = %.4f, lambda_min = %.4f, max|lambda| <= %.4f used by the certificate%n",
            s.lambda2(), s.lambdaMin(), s.lambdaBound());
        if (plan.degree() > 1)
        {
            out.printf(Locale.ROOT, "           (Ramanujan 2*sqrt(d-1) = %.4f; Lanczos residual %.1e)%n",
                2 * Math.sqrt(plan.degree() - 1.0), Math.max(s.lambda2Residual(), s.lambdaMinResidual()));
        }
        out.printf(Locale.ROOT, "tolerance  f_max = the most crashed processes (of %d) that consensus survives, whichever crash:%n", n);
        out.printf(Locale.ROOT, "           certified  >= %-8d %s  %s%n", results.certifiedF(),
            percent(results.certifiedF(), n), "proof: " + g.certificate().method());
        if (g.exactF().isPresent())
        {
            out.printf(Locale.ROOT, "           exact       = %-8d %s  %s%n", g.exactF().getAsInt(),
                percent(g.exactF().getAsInt(), n), GraphAnalyzer.HARPER.equals(results.exactMethod()) ?
                "Harper's theorem (hypercube)" : "branch and bound");
        }
        final ProbableTolerance probable = g.probable();
        if (probable.applicable())
        {
            out.printf(Locale.ROOT, "           probable   >= %-8d %s  over the generator's random seed; wrong with " +
                "probability <= %.1e%n", probable.probableF(), percent(probable.probableF(), n),
                probable.failureProbability());
        }
        else
        {
            out.printf(Locale.ROOT, "           probable   not applicable: %s%n",
                probable.justification().replaceFirst("^Not applicable: ", ""));
        }
        out.printf(Locale.ROOT, "           attack     <= %-8d %s  witness: %d live processes with |N[S]| = %d <= n/2%n",
            results.attackF(), percent(results.attackF(), n), g.attack().witness().length,
            g.attack().closedNeighbourhoodSize());
        out.printf(Locale.ROOT, "           message passing alone: %d %s%n", results.messagePassingF(),
            percent(results.messagePassingF(), n));
        out.printf(Locale.ROOT, "QPs        %d per process (max), full mesh %d", plan.graph().maxDegree(), n - 1);
        if (plan.placement() != null)
        {
            final QpAccounting qps = QpAccounting.of(plan.graph(), plan.placement());
            out.printf(Locale.ROOT, "; %d per NIC (max), full mesh %d", qps.maxQpsPerNic(), qps.fullMeshQpsPerNic());
        }
        out.println();
        printDomains(out, "racks", results.racks());
        printDomains(out, "hosts", results.hosts());
        out.flush();
    }

    private static void printDomains(final PrintWriter out, final String kind, final FailureDomainReport report)
    {
        if (report == null || report.levels().isEmpty())
        {
            return;
        }
        final StringBuilder line = new StringBuilder();
        for (final DomainFailureLevel level : report.levels())
        {
            if (line.length() > 0)
            {
                line.append("; ");
            }
            line.append(level.failedDomains()).append(" lost: ");
            if (level.certifiedFurtherCrashes() < 0)
            {
                line.append("blocked");
            }
            else
            {
                line.append(level.certifiedFurtherCrashes()).append("..").append(level.attackFurtherCrashes());
            }
        }
        out.printf(Locale.ROOT, "%-10s further process crashes tolerated (certified..attack) when %s fail: %s%n",
            kind, kind, line);
    }

    private static String percent(final int value, final int n)
    {
        return String.format(Locale.ROOT, "(%5.1f%%)", 100.0 * value / n);
    }
}
