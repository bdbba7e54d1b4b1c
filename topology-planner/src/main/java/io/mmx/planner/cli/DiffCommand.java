package io.mmx.planner.cli;

import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanFile;
import io.mmx.planner.plan.PlanChanges;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code topo diff}: what changes between two plans. */
@Command(
    name = "diff",
    mixinStandardHelpOptions = true,
    description = "Compares two plans: processes added or removed, edges added and removed, processes whose " +
        "links change, and the tolerance before and after.")
final class DiffCommand implements Callable<Integer>
{
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "OLD", description = "the plan in service")
    Path oldFile;

    @Parameters(index = "1", paramLabel = "NEW", description = "the plan to move to")
    Path newFile;

    @Override
    public Integer call()
    {
        final Plan before = PlanFile.readSealed(oldFile);
        final Plan after = PlanFile.readSealed(newFile);
        PlanChanges.printDiff(before, after, spec.commandLine().getOut());
        return ExitCodes.OK;
    }
}
