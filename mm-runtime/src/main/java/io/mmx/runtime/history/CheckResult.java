package io.mmx.runtime.history;

import java.util.List;

/**
 * Checker verdict. {@code key} and {@code ops} describe the failing (or inconclusive) partition;
 * {@code longestPrefix} is the most ops linearized in any search branch of it.
 */
public record CheckResult(Verdict verdict, String key, int longestPrefix, List<Operation> ops, long statesExplored)
{
    /** Possible verdicts. */
    public enum Verdict
    {
        /** Every partition has a linearization. */
        OK,
        /** A partition has none: {@code ops} is a history no sequential order explains. */
        NOT_LINEARIZABLE,
        /** The search hit its bound before deciding. */
        INCONCLUSIVE
    }
}
