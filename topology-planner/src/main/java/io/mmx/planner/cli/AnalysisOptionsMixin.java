package io.mmx.planner.cli;

import io.mmx.planner.analysis.AnalysisOptions;
import picocli.CommandLine.Option;

import java.time.Duration;

/** Options that tune the analysis, shared by plan, analyze, grow and shrink. */
final class AnalysisOptionsMixin
{
    @Option(names = "--attack-budget", paramLabel = "DURATION", defaultValue = "PT5S",
        converter = DurationConverter.class,
        description = "time for the attack search that bounds f_max from above, e.g. 10s, 500ms (default: 5s)")
    Duration attackBudget;

    @Option(names = "--exact-limit", paramLabel = "N", defaultValue = "40",
        description = "compute the exact f_max by branch and bound when n is at most this, <= 64 (default: ${DEFAULT-VALUE})")
    int exactLimit;

    AnalysisOptions toOptions(final long seed)
    {
        return AnalysisOptions.defaults()
            .withSeed(seed)
            .withAttackBudgetMillis(attackBudget.toMillis())
            .withExactVertexLimit(exactLimit)
            .validate();
    }
}
