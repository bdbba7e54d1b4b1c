package io.mmx.planner.cli;

import io.mmx.planner.analysis.AnalysisOptions;
import io.mmx.planner.tolerance.ExactTolerance;
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

    @Option(names = "--probable-failure", paramLabel = "P", defaultValue = "1e-9",
        description = "largest chance, over the random seed, that probable_f is wrong; in (0, 1) " +
            "(default: ${DEFAULT-VALUE})")
    double probableFailure;

    AnalysisOptions toOptions(final long seed)
    {
        if (!(probableFailure > 0 && probableFailure < 1))
        {
            throw new IllegalArgumentException("--probable-failure " + probableFailure + " is not a probability " +
                "strictly between 0 and 1; give e.g. 1e-9");
        }
        if (exactLimit < 0 || exactLimit > ExactTolerance.MAX_VERTICES)
        {
            throw new IllegalArgumentException("--exact-limit " + exactLimit + " is out of range: give 0.." +
                ExactTolerance.MAX_VERTICES + " (0 turns the exact search off; it is exponential in n)");
        }
        return AnalysisOptions.defaults()
            .withSeed(seed)
            .withAttackBudgetMillis(attackBudget.toMillis())
            .withExactVertexLimit(exactLimit)
            .withProbableTarget(probableFailure)
            .validate();
    }
}
