package io.mmx.planner.cli;

import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanFile;
import io.mmx.planner.report.PlanReport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

/** {@code topo report}: an HTML page with charts for people. */
@Command(
    name = "report",
    mixinStandardHelpOptions = true,
    description = {
        "Writes DIR/index.html with SVG charts: the tolerance bracket, the expansion profile (for each " +
        "live-set size k, the proven minimum of |N[S]| and the smallest |N[S]| found by attack, against " +
        "the n/2 line), the spectrum, and QPs per process and per NIC."})
final class ReportCommand implements Callable<Integer>
{
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "PLAN", description = "the plan file")
    Path file;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "directory for the report (created if missing)")
    Path out;

    @Option(names = "--profile-budget", paramLabel = "DURATION", defaultValue = "PT5S", converter = DurationConverter.class,
        description = "time for the per-size attacks of the expansion profile (default: 5s)")
    Duration profileBudget;

    @Override
    public Integer call() throws IOException
    {
        final Plan plan = PlanFile.readSealed(file);
        Files.createDirectories(out);
        final Path page = PlanReport.write(plan, out, profileBudget, Progress.toStderr(spec, plan.n()));
        spec.commandLine().getOut().println("report written to " + page);
        return ExitCodes.OK;
    }
}
