package io.mmx.planner.cli;

import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanChanges;
import io.mmx.planner.plan.PlanFile;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code topo grow}: add processes to a plan, rewiring few edges. */
@Command(
    name = "grow",
    mixinStandardHelpOptions = true,
    description = {
        "Adds K processes (ids n..n+K-1) to a plan: each new process takes D/2 existing edges and " +
        "splices itself in, so D/2 old links per new process change. Reports the rewiring and the new " +
        "tolerance."})
final class GrowCommand implements Callable<Integer>
{
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "PLAN", description = "the plan to grow")
    Path file;

    @Option(names = "--add", required = true, paramLabel = "K", description = "processes to add (>= 1)")
    int add;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "1", description = "seed of the rewiring (default: ${DEFAULT-VALUE})")
    long seed;

    @CommandLine.Mixin
    PlacementOptions placement;

    @CommandLine.Mixin
    AnalysisOptionsMixin analysis;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "where to write the new plan")
    Path out;

    @Override
    public Integer call() throws IOException
    {
        final Plan before = PlanFile.readSealed(file);
        final PlanChanges.Change change = PlanChanges.grow(before, add, seed, placement.toLayout(),
            analysis.toOptions(seed), Progress.toStderr(spec, before.n() + add));
        final Plan after = change.plan();
        PlanFile.write(after, out);
        PlanChanges.printDiff(before, after, change.change().diff(), spec.commandLine().getOut());
        spec.commandLine().getOut().println("plan written to " + out + " (" + after.contentHash() + ")");
        return ExitCodes.OK;
    }
}
