package io.mmx.planner.cli;

import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanChanges;
import io.mmx.planner.plan.PlanFile;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code topo shrink}: remove processes from a plan, rewiring few edges. */
@Command(
    name = "shrink",
    mixinStandardHelpOptions = true,
    description = {
        "Removes processes from a plan: the neighbours they leave behind are re-paired among themselves, " +
        "and the highest surviving ids move into the holes so ids stay 0..n-1 (the renaming is printed). " +
        "Reports the rewiring and the new tolerance."})
final class ShrinkCommand implements Callable<Integer>
{
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "PLAN", description = "the plan to shrink")
    Path file;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Which which;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "1", description = "seed of the rewiring (default: ${DEFAULT-VALUE})")
    long seed;

    @CommandLine.Mixin
    AnalysisOptionsMixin analysis;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "where to write the new plan")
    Path out;

    static final class Which
    {
        @Option(names = "--remove", paramLabel = "K", description = "remove the K highest ids")
        Integer count;

        @Option(names = "--ids", paramLabel = "ID", split = ",", description = "remove exactly these ids, e.g. 3,17,40")
        int[] ids;
    }

    @Override
    public Integer call() throws IOException
    {
        final Plan before = PlanFile.readSealed(file);
        final PlanChanges.Change change = which.ids != null ?
            PlanChanges.shrink(before, which.ids, seed, analysis.toOptions(seed), Progress.toStderr(spec, before.n())) :
            PlanChanges.shrink(before, which.count, seed, analysis.toOptions(seed), Progress.toStderr(spec, before.n()));
        final Plan after = change.plan();
        PlanFile.write(after, out);
        PlanChanges.printDiff(before, after, change.change().diff(), spec.commandLine().getOut());
        PlanChanges.printRelabelling(change.change(), spec.commandLine().getOut());
        spec.commandLine().getOut().println("plan written to " + out + " (" + after.contentHash() + ")");
        return ExitCodes.OK;
    }
}
