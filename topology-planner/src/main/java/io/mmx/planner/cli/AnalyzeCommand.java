package io.mmx.planner.cli;

import io.mmx.planner.io.GraphFiles;
import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.Planner;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code topo analyze}: the plan analysis for any graph file. */
@Command(
    name = "analyze",
    mixinStandardHelpOptions = true,
    description = {
        "Analyses a graph: a plan file (.json), GraphML (.graphml, .xml) or an edge list (any other " +
        "name: a line 'n m', then m lines 'u v' with 0-based ids). Prints the summary, or JSON with " +
        "--json."})
final class AnalyzeCommand implements Callable<Integer>
{
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "the graph or plan to analyse")
    Path file;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "1",
        description = "seed of the analysis: Lanczos start vectors and attack search (default: ${DEFAULT-VALUE})")
    long seed;

    @CommandLine.Mixin
    AnalysisOptionsMixin analysis;

    @Option(names = "--json", description = "print the analysis as JSON")
    boolean json;

    @Override
    public Integer call()
    {
        final GraphFiles.Loaded loaded = GraphFiles.read(file);
        final Plan plan = Planner.analyzeAsPlan(loaded.graph(), loaded.plan() == null ? null : loaded.plan().placement(),
            analysis.toOptions(seed), Progress.toStderr(spec, loaded.graph().n()));
        if (json)
        {
            JsonOutput.print(spec.commandLine().getOut(), plan.analysis());
        }
        else
        {
            spec.commandLine().getOut().println(file + " (" + loaded.format() + ")");
            PlanSummary.print(plan, spec.commandLine().getOut());
        }
        return ExitCodes.OK;
    }
}
