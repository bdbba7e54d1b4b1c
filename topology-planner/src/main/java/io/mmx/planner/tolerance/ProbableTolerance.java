package io.mmx.planner.tolerance;

/**
 * A probable lower bound on f_max: a statement about the random generator, not about the graph
 * alone. Over the randomness of a seed fixed before the graph was seen, the chance that the
 * generator produced a graph with f_max below {@code probableF} is at most
 * {@code failureProbability}. Only graphs the planner drew by its pairing path qualify; for any
 * other graph the bound is not applicable and says why.
 *
 * @param applicable         whether the graph came from the pairing path the count covers.
 * @param probableF          f_max ≥ probableF except with probability ≤ failureProbability; -1 when not applicable.
 * @param failureProbability the bound on the chance that probableF is wrong; NaN when not applicable.
 * @param liveSetLimit       k: no blocked live set of size k exists except with that probability (probableF = n - k).
 * @param justification      the argument, or why it does not apply.
 */
public record ProbableTolerance(
    boolean applicable, int probableF, double failureProbability, int liveSetLimit, String justification)
{
    /** The bound for a graph the count does not cover. */
    public static ProbableTolerance notApplicable(final String reason)
    {
        return new ProbableTolerance(false, -1, Double.NaN, -1, "Not applicable: " + reason);
    }
}
