package io.mmx.planner.analysis;

import io.mmx.planner.spectral.Lanczos;
import io.mmx.planner.tolerance.ExactTolerance;
import io.mmx.planner.tolerance.ProbableBound;

import java.util.ArrayList;
import java.util.List;

/**
 * Knobs of {@link GraphAnalyzer}, with defaults sized for n = 4096 plans in well under a second.
 * Use {@link #defaults()} and the {@code with...} methods; {@link #validate()} checks everything at
 * once and names every bad value.
 *
 * @param seed                       seed of the Lanczos start vector and of the attack search.
 * @param lanczosIterations          Krylov dimension per Lanczos pass.
 * @param failureProbability         total probability that the spectral bounds fail.
 * @param basisBudgetBytes           memory for a stored Lanczos basis.
 * @param attackBudgetMillis         time budget of the attack search.
 * @param exactVertexLimit           graphs up to this many vertices are solved exactly (≤ 64).
 * @param exactBudgetMillis          budget of the exact search in milliseconds' worth of search nodes
 *                                   (10,000 per ms, counted, not timed, so the outcome repeats).
 * @param exactDiameterVertexLimit   exact diameter up to this many vertices, else a double-sweep lower bound.
 * @param probableTarget             largest failure probability accepted for the probable bound.
 */
public record AnalysisOptions(
    long seed,
    int lanczosIterations,
    double failureProbability,
    long basisBudgetBytes,
    long attackBudgetMillis,
    int exactVertexLimit,
    long exactBudgetMillis,
    int exactDiameterVertexLimit,
    double probableTarget)
{
    /**
     * Seed 1, 300 Lanczos steps, failure probability 1e-6, 500 ms attack, exact up to 40 vertices,
     * probable bound at failure probability 1e-9.
     */
    public static AnalysisOptions defaults()
    {
        return new AnalysisOptions(1L, Lanczos.DEFAULT_ITERATIONS, Lanczos.DEFAULT_FAILURE_PROBABILITY,
            Lanczos.DEFAULT_BASIS_BUDGET_BYTES, 500L, 40, 5_000L, 10_000, ProbableBound.DEFAULT_TARGET);
    }

    /** These options with another seed. */
    public AnalysisOptions withSeed(final long value)
    {
        return new AnalysisOptions(value, lanczosIterations, failureProbability, basisBudgetBytes, attackBudgetMillis,
            exactVertexLimit, exactBudgetMillis, exactDiameterVertexLimit, probableTarget);
    }

    /** These options with another attack budget. */
    public AnalysisOptions withAttackBudgetMillis(final long value)
    {
        return new AnalysisOptions(seed, lanczosIterations, failureProbability, basisBudgetBytes, value,
            exactVertexLimit, exactBudgetMillis, exactDiameterVertexLimit, probableTarget);
    }

    /** These options with another exact-search vertex limit. */
    public AnalysisOptions withExactVertexLimit(final int value)
    {
        return new AnalysisOptions(seed, lanczosIterations, failureProbability, basisBudgetBytes, attackBudgetMillis,
            value, exactBudgetMillis, exactDiameterVertexLimit, probableTarget);
    }

    /** These options with another Krylov dimension. */
    public AnalysisOptions withLanczosIterations(final int value)
    {
        return new AnalysisOptions(seed, value, failureProbability, basisBudgetBytes, attackBudgetMillis,
            exactVertexLimit, exactBudgetMillis, exactDiameterVertexLimit, probableTarget);
    }

    /** These options with another exact-diameter limit. */
    public AnalysisOptions withExactDiameterVertexLimit(final int value)
    {
        return new AnalysisOptions(seed, lanczosIterations, failureProbability, basisBudgetBytes, attackBudgetMillis,
            exactVertexLimit, exactBudgetMillis, value, probableTarget);
    }

    /** These options with another probable-bound target. */
    public AnalysisOptions withProbableTarget(final double value)
    {
        return new AnalysisOptions(seed, lanczosIterations, failureProbability, basisBudgetBytes, attackBudgetMillis,
            exactVertexLimit, exactBudgetMillis, exactDiameterVertexLimit, value);
    }

    /**
     * Checks every field; throws one {@link IllegalArgumentException} naming all bad values.
     *
     * @return this, for chaining.
     */
    public AnalysisOptions validate()
    {
        final List<String> problems = new ArrayList<>();
        if (lanczosIterations < 2)
        {
            problems.add("lanczosIterations must be >= 2 (got " + lanczosIterations + ")");
        }
        if (!(failureProbability > 0 && failureProbability < 1))
        {
            problems.add("failureProbability must be in (0, 1) (got " + failureProbability + ")");
        }
        if (basisBudgetBytes < 0)
        {
            problems.add("basisBudgetBytes must be >= 0 (got " + basisBudgetBytes + ")");
        }
        if (attackBudgetMillis < 0)
        {
            problems.add("attackBudgetMillis must be >= 0 (got " + attackBudgetMillis + ")");
        }
        if (exactVertexLimit < 0 || exactVertexLimit > ExactTolerance.MAX_VERTICES)
        {
            problems.add("exactVertexLimit must be in 0.." + ExactTolerance.MAX_VERTICES + " (got " + exactVertexLimit + ")");
        }
        if (exactBudgetMillis <= 0)
        {
            problems.add("exactBudgetMillis must be > 0 (got " + exactBudgetMillis + ")");
        }
        if (exactDiameterVertexLimit < 0)
        {
            problems.add("exactDiameterVertexLimit must be >= 0 (got " + exactDiameterVertexLimit + ")");
        }
        if (!(probableTarget > 0 && probableTarget < 1))
        {
            problems.add("probableTarget must be in (0, 1) (got " + probableTarget + ")");
        }
        if (!problems.isEmpty())
        {
            throw new IllegalArgumentException("invalid analysis options: " + String.join("; ", problems));
        }
        return this;
    }
}
