package io.mmx.planner.cli;

import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanFile;
import io.mmx.planner.plan.PlanVerifier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code topo verify}: recompute a plan and reject it if anything disagrees. */
@Command(
    name = "verify",
    mixinStandardHelpOptions = true,
    description = {
        "Recomputes everything in a plan file: content hash, symmetry, degrees, ids, placement, QP " +
        "counts, spectrum, certificate, attack witness, exact value. Exit 0 if all agree, 1 naming each " +
        "wrong field."})
final class VerifyCommand implements Callable<Integer>
{
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "PLAN", description = "the plan file")
    Path file;

    @Override
    public Integer call()
    {
        final Plan plan = PlanFile.read(file);
        final List<String> problems = PlanVerifier.verify(plan, Progress.toStderr(spec, plan.n()));
        final PrintWriter out = spec.commandLine().getOut();
        if (problems.isEmpty())
        {
            out.println(file + ": OK (" + plan.contentHash() + ")");
            return ExitCodes.OK;
        }
        final PrintWriter err = spec.commandLine().getErr();
        err.println(file + ": REJECTED, " + problems.size() + " problem" + (problems.size() == 1 ? "" : "s") + ":");
        for (final String problem : problems)
        {
            err.println("  - " + problem);
        }
        err.flush();
        return ExitCodes.VERIFY_FAILED;
    }
}
