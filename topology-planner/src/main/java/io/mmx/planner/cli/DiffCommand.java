package io.mmx.planner.cli;

import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanFile;
import io.mmx.planner.plan.PlanChanges;
import io.mmx.planner.plan.ProcessIds;
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
        "links change, and the tolerance before and after; with --live, whether the processes up reach a quorum " +
        "of the new plan.")
final class DiffCommand implements Callable<Integer>
{
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "OLD", description = "the plan in service")
    Path oldFile;

    @Parameters(index = "1", paramLabel = "NEW", description = "the plan to move to")
    Path newFile;

    @CommandLine.Option(names = "--live", paramLabel = "IDS",
        description = "the processes that will be up when NEW takes effect, by their ids in NEW (0-9,12), new " +
            "processes already started included: checks that they reach a quorum of NEW's acceptors (exit 4 if not)")
    String live;

    @Override
    public Integer call()
    {
        final Plan before = PlanFile.readSealed(oldFile);
        final Plan after = PlanFile.readSealed(newFile);
        final PlanChanges.LiveQuorum quorum = live == null ? null : PlanChanges.liveQuorum(after, ProcessIds.parse(live));
        final java.io.PrintWriter out = spec.commandLine().getOut();
        PlanChanges.printDiff(before, after, out);
        if (quorum == null)
        {
            return ExitCodes.OK;
        }
        out.println("live       " + quorum.describe());
        out.flush();
        if (!quorum.holds())
        {
            spec.commandLine().getErr().println("topo diff: error: refused: in " + newFile + " " + quorum.describe());
            spec.commandLine().getErr().flush();
            return ExitCodes.NO_QUORUM;
        }
        return ExitCodes.OK;
    }
}
