package io.mmx.planner.cli;

import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanFile;
import io.mmx.planner.plan.PlanRequest;
import io.mmx.planner.plan.Planner;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.concurrent.Callable;

/** {@code topo plan}: generate, place, analyse and write a plan. */
@Command(
    name = "plan",
    mixinStandardHelpOptions = true,
    description = {
        "Generates a connected D-regular shared-memory graph on N processes, places the processes on " +
        "racks and hosts, proves its crash tolerance, prints a summary and writes the plan file."})
final class PlanCommand implements Callable<Integer>
{
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--n", required = true, paramLabel = "N", description = "number of processes (>= 2)")
    int n;

    @Option(names = "--degree", required = true, paramLabel = "D",
        description = "graph degree: RDMA connections (QPs) per process; 1 <= D < N, N*D even")
    int degree;

    @Option(names = "--seed", paramLabel = "S",
        description = "seed of the generator and the analysis (default: drawn at random and recorded); " +
            "same seed, same plan")
    Long seed;

    @Option(names = "--generator", paramLabel = "G", defaultValue = "random",
        description = "graph family: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE})",
        completionCandidates = GeneratorNames.class)
    String generator;

    @CommandLine.Mixin
    PlacementOptions placement;

    @CommandLine.Mixin
    AnalysisOptionsMixin analysis;

    @Option(names = "--out", paramLabel = "FILE", defaultValue = "plan.json",
        description = "where to write the plan (default: ${DEFAULT-VALUE}); written atomically")
    Path out;

    @Option(names = "--json", description = "print the analysis as JSON instead of the summary")
    boolean json;

    @Override
    public Integer call() throws IOException
    {
        // A seed drawn here, before the graph exists, is what makes probable_f a valid statement.
        final long chosen = seed != null ? seed : new SecureRandom().nextLong();
        final PlanRequest request = new PlanRequest(n, degree, chosen, generator, placement.toLayout(),
            placement.maxCrossRackFraction, analysis.toOptions(chosen));
        final Plan plan = Planner.plan(request, Progress.toStderr(spec, n));
        PlanFile.write(plan, out);
        if (json)
        {
            JsonOutput.print(spec.commandLine().getOut(), plan.analysis());
        }
        else
        {
            PlanSummary.print(plan, spec.commandLine().getOut());
            if (seed == null)
            {
                spec.commandLine().getOut().println("seed " + chosen + " drawn at random (give --seed " + chosen +
                    " to make this plan again)");
            }
            spec.commandLine().getOut().println("plan written to " + out + " (" + plan.contentHash() + ")");
        }
        return ExitCodes.OK;
    }
}
