package io.mmx.planner.report;

import io.mmx.planner.analysis.AnalysisOptions;
import io.mmx.planner.analysis.GraphAnalysis;
import io.mmx.planner.analysis.GraphAnalyzer;
import io.mmx.planner.io.AtomicFiles;
import io.mmx.planner.placement.QpAccounting;
import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanAnalysis;
import io.mmx.planner.plan.ProgressListener;
import io.mmx.planner.spectral.Lanczos;
import io.mmx.planner.spectral.LanczosResult;
import io.mmx.planner.spectral.SpectrumEstimate;
import io.mmx.planner.tolerance.DomainFailureLevel;
import io.mmx.planner.tolerance.FailureDomainReport;
import io.mmx.planner.tolerance.ProbableTolerance;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code topo report}: one self-contained HTML page with inline SVG charts, written
 * atomically as {@code DIR/index.html}.
 */
public final class PlanReport
{
    private static final int PROFILE_POINTS = 24;

    private PlanReport()
    {
    }

    /** Writes {@code dir/index.html} for {@code plan}, spending up to {@code profileBudget} on the expansion profile; returns the file. */
    public static Path write(final Plan plan, final Path dir, final Duration profileBudget,
        final ProgressListener progress) throws IOException
    {
        final AnalysisOptions settings = plan.analysisResults().settings();
        final long seed = settings.seed();
        progress.stage("spectrum for the profile's sweep vector");
        final LanczosResult lanczos = new Lanczos(seed, settings.lanczosIterations(), Lanczos.DEFAULT_FAILURE_PROBABILITY,
            Lanczos.DEFAULT_BASIS_BUDGET_BYTES).run(plan.graph());
        progress.stage("expansion profile: " + PROFILE_POINTS + " attacks in " + profileBudget.toMillis() + " ms");
        final ExpansionProfile profile = ExpansionProfile.compute(plan.graph(), lanczos, seed, profileBudget.toMillis(),
            PROFILE_POINTS);
        final String html = page(plan, profile);
        final Path page = dir.resolve("index.html");
        AtomicFiles.write(page, out -> out.write(html));
        return page;
    }

    static String page(final Plan plan, final ExpansionProfile profile)
    {
        final PlanAnalysis t = plan.analysisResults();
        final GraphAnalysis g = t.graph();
        final SpectrumEstimate s = g.spectrum();
        final ProbableTolerance probable = g.probable();
        final int n = plan.n();
        final StringBuilder html = new StringBuilder(1 << 16);
        html.append("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>mmx plan report</title><style>")
            .append("body{font-family:sans-serif;max-width:820px;margin:2em auto;color:#222}")
            .append("table{border-collapse:collapse}td,th{padding:3px 10px;border-bottom:1px solid #ddd;text-align:left}")
            .append("td.num{text-align:right;font-variant-numeric:tabular-nums}.note{color:#666;font-size:90%}")
            .append("</style></head><body>\n");
        html.append("<h1>mmx plan: n = ").append(n).append(", degree ").append(plan.degree()).append("</h1>\n");
        html.append("<p class=\"note\">").append(SvgChart.escape(plan.generator())).append(" generator, seed ")
            .append(plan.seed()).append(", ").append(plan.graph().edgeCount()).append(" edges, ")
            .append(SvgChart.escape(plan.contentHash())).append("</p>\n");

        html.append("<h2>Crash tolerance</h2>\n<p>Consensus stays live while the live processes S have |N[S]| &gt; n/2. ")
            .append("f<sub>max</sub> is the number of crashes survived whichever processes crash; it lies in the bracket ")
            .append("below: the certified end is a proof, the attack end comes with a witness that anyone can check. ")
            .append("The probable value, when shown, holds for all but a tiny fraction of the seeds the generator could ")
            .append("have been given: a statement about how the graph was drawn, not a proof about this graph.</p>\n");
        html.append(bracket(n, t));
        html.append("<table><tr><th>bound</th><th>crashes</th><th>of n</th><th>why</th></tr>\n");
        row(html, "message passing alone", t.messagePassingF(), n, "a majority must stay up");
        row(html, "certified (proof)", t.certifiedF(), n, g.certificate().method());
        if (g.exactF().isPresent())
        {
            row(html, "exact", g.exactF().getAsInt(), n, GraphAnalyzer.HARPER.equals(t.exactMethod()) ?
                "Harper's theorem (hypercube)" : "branch and bound");
        }
        if (probable.applicable())
        {
            row(html, "probable (generator's randomness)", probable.probableF(), n, String.format(Locale.ROOT,
                "wrong with probability <= %.1e over the seed", probable.failureProbability()));
        }
        else
        {
            html.append("<tr><td>probable</td><td class=\"num\">&ndash;</td><td></td><td>")
                .append(SvgChart.escape(probable.justification())).append("</td></tr>\n");
        }
        row(html, "attack (witness)", t.attackF(), n, g.attack().witness().length +
            " live processes with |N[S]| = " + g.attack().closedNeighbourhoodSize());
        row(html, "any degree-" + plan.degree() + " graph", g.certificate().degreeLimitF(), n, "|N[S]| <= (d+1)|S|");
        html.append("</table>\n<p class=\"note\">").append(SvgChart.escape(g.certificate().justification()))
            .append("</p>\n");
        if (probable.applicable())
        {
            html.append("<p class=\"note\">").append(SvgChart.escape(probable.justification()))
                .append("</p>\n");
        }

        html.append("<h2>Expansion profile</h2>\n<p>For each live-set size k: the proven minimum of |N[S]| and the ")
            .append("smallest |N[S]| the attacks found. Where a curve is under the n/2 line, a live set of that size ")
            .append("can be blocked.</p>\n");
        final double[] trivialK = {1, Math.max(2, profile.provenSizes[profile.provenSizes.length - 1])};
        final double[] trivial = {Math.min(n, plan.degree() + 1.0), Math.min(n, (plan.degree() + 1.0) * trivialK[1])};
        html.append(new SvgChart("|N[S]| against live-set size", "live-set size k = |S|", "|N[S]|")
            .line("proven minimum of |N[S]|", "#1f77b4", profile.provenSizes, profile.provenMin)
            .dots("smallest |N[S]| found by attack", "#d62728", profile.attackSizes, profile.attackClosed)
            .line("(d+1)k: no graph does better", "#aaa", trivialK, trivial)
            .reference("n/2 = " + n / 2, "#2ca02c", n / 2.0)
            .render());

        html.append("<h2>Spectrum</h2>\n<p>Extreme adjacency eigenvalues (Lanczos). A smaller max(|&lambda;2|, |&lambda;min|) ")
            .append("means a better expander; 2&radic;(d&minus;1) is the best possible for large random graphs.</p>\n");
        final double[] xs = {1, 2, 3, 4};
        final double[] ys = {s.lambdaMin(), s.lambda2(), s.lambdaBound(), s.lambda1()};
        html.append(new SvgChart("Extreme adjacency eigenvalues", "", "eigenvalue")
            .categories("lambda_min", "lambda2", "bound on max(|lambda2|, |lambda_min|)", "lambda1 (= d)")
            .bars("eigenvalues", "#9467bd", xs, ys)
            .reference("+2 sqrt(d-1) (Ramanujan)", "#ff7f0e", 2 * Math.sqrt(Math.max(0, plan.degree() - 1)))
            .reference("-2 sqrt(d-1)", "#ff7f0e", -2 * Math.sqrt(Math.max(0, plan.degree() - 1)))
            .render());
        html.append("<p class=\"note\">").append(SvgChart.escape(s.justification())).append("</p>\n");

        html.append("<h2>Queue pairs</h2>\n");
        html.append(String.format(Locale.ROOT, "<p>%d QPs per process (full mesh: %d).", plan.graph().maxDegree(), n - 1));
        if (plan.placement() != null)
        {
            final QpAccounting qps = QpAccounting.of(plan.graph(), plan.placement());
            final double[] hosts = new double[plan.placement().hosts()];
            final double[] perNic = new double[hosts.length];
            for (int h = 0; h < hosts.length; h++)
            {
                hosts[h] = h;
                perNic[h] = qps.qpsOnNic(h);
            }
            html.append(String.format(Locale.ROOT, " Per NIC: max %d, mean %.1f (full mesh: %d).</p>%n",
                qps.maxQpsPerNic(), qps.meanQpsPerNic(), qps.fullMeshQpsPerNic()));
            html.append(new SvgChart("QPs on each host's NIC", "host", "QPs").bars("this plan", "#1f77b4", hosts, perNic)
                .render());
            html.append(domains(t));
        }
        else
        {
            html.append(" No placement: per-NIC counts need --racks, --hosts-per-rack, --procs-per-host.</p>\n");
        }
        return html.append("</body></html>\n").toString();
    }

    private static String bracket(final int n, final PlanAnalysis t)
    {
        final double width = 760;
        final int mp = t.messagePassingF();
        final int cert = t.certifiedF();
        final int attack = t.attackF();
        final ProbableTolerance probableBound = t.graph().probable();
        final StringBuilder svg = new StringBuilder();
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"760\" height=\"122\" font-family=\"sans-serif\" font-size=\"12\">");
        svg.append("<rect x=\"0\" y=\"30\" width=\"760\" height=\"24\" fill=\"#eee\"/>");
        svg.append(String.format(Locale.ROOT, "<rect x=\"0\" y=\"30\" width=\"%.1f\" height=\"24\" fill=\"#bbb\"/>", width * mp / n));
        svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"30\" width=\"%.1f\" height=\"24\" fill=\"#2ca02c\"/>",
            width * mp / n, width * Math.max(0, cert - mp) / n));
        svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"30\" width=\"%.1f\" height=\"24\" fill=\"#ffbb78\"/>",
            width * cert / n, width * Math.max(0, attack - cert) / n));
        svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"22\">message passing %d</text>", Math.max(2, width * mp / n - 120), mp));
        svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"72\">certified %d</text>", Math.min(width - 110, width * cert / n), cert));
        svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"88\">attack %d</text>", Math.min(width - 80, width * attack / n), attack));
        if (probableBound.applicable())
        {
            // The probable end sits between the proof and the witness: a tick and a label above the bar.
            final int probable = probableBound.probableF();
            final double x = width * probable / n;
            svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"30\" width=\"%.1f\" height=\"24\" fill=\"#98df8a\"/>",
                width * cert / n, width * Math.max(0, probable - cert) / n));
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"26\" y2=\"58\" stroke=\"#1f77b4\" " +
                "stroke-width=\"2\"/>", x, x));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"22\">probable %d</text>", Math.min(width - 100, x), probable));
        }
        svg.append("<text x=\"0\" y=\"88\">0</text>");
        legend(svg, probableBound.applicable());
        return svg.append("</svg>\n").toString();
    }

    /** What each colour of the bracket means: proof, probable and witness, and what lies beyond. */
    private static void legend(final StringBuilder svg, final boolean probable)
    {
        final List<String[]> items = new ArrayList<>();
        items.add(new String[] {"#bbb", "message passing alone"});
        items.add(new String[] {"#2ca02c", "proof (certified)"});
        if (probable)
        {
            items.add(new String[] {"#98df8a", "probable (over the seed)"});
        }
        items.add(new String[] {"#ffbb78", probable ? "open, up to the witness" : "open, up to the witness (attack)"});
        items.add(new String[] {"#eee", "ruled out by the witness"});
        final double step = 760.0 / items.size();
        for (int i = 0; i < items.size(); i++)
        {
            final double x = i * step;
            svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"104\" width=\"12\" height=\"12\" fill=\"%s\" " +
                "stroke=\"#888\" stroke-width=\"0.5\"/><text x=\"%.1f\" y=\"114\" font-size=\"11\">%s</text>",
                x, items.get(i)[0], x + 16, SvgChart.escape(items.get(i)[1])));
        }
    }

    private static String domains(final PlanAnalysis analysis)
    {
        final StringBuilder html = new StringBuilder("<h2>Failure domains</h2>\n<p>A crashed process leaves its memory; ")
            .append("a failed host or rack takes it along. Further process crashes tolerated after losing whole domains:</p>\n");
        for (final String kind : new String[] {"racks", "hosts"})
        {
            final FailureDomainReport report = kind.equals("racks") ? analysis.racks() : analysis.hosts();
            if (report == null || report.levels().isEmpty())
            {
                continue;
            }
            html.append("<table><tr><th>").append(kind).append(" lost</th><th>processes lost</th><th>further crashes: certified</th>")
                .append("<th>attack</th><th>worst case</th></tr>\n");
            for (final DomainFailureLevel r : report.levels())
            {
                html.append(String.format(Locale.ROOT, "<tr><td class=\"num\">%d</td><td class=\"num\">%d</td><td class=\"num\">%s</td>" +
                    "<td class=\"num\">%d</td><td>%s</td></tr>%n", r.failedDomains(), r.processesLost(),
                    r.certifiedFurtherCrashes() < 0 ? "blocked" : Integer.toString(r.certifiedFurtherCrashes()),
                    r.attackFurtherCrashes(), r.exhaustive() ? "exhaustive" : "heuristic"));
            }
            html.append("</table>\n");
        }
        return html.toString();
    }

    private static void row(final StringBuilder html, final String name, final int f, final int n, final String why)
    {
        html.append(String.format(Locale.ROOT, "<tr><td>%s</td><td class=\"num\">%d</td><td class=\"num\">%.1f%%</td><td>%s</td></tr>%n",
            SvgChart.escape(name), f, 100.0 * f / n, SvgChart.escape(why)));
    }

}
