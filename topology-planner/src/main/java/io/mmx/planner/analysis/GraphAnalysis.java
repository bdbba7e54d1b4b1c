package io.mmx.planner.analysis;

import io.mmx.planner.spectral.SpectrumEstimate;
import io.mmx.planner.tolerance.AttackResult;
import io.mmx.planner.tolerance.Certificate;
import io.mmx.planner.tolerance.ProbableTolerance;

import java.util.OptionalInt;

/**
 * Everything {@link GraphAnalyzer} knows about a plan graph. The crash tolerance f_max lies in
 * [certificate.certifiedF, attack.attackF] and equals exactF when that is present.
 *
 * @param n             vertex count.
 * @param edges         edge count.
 * @param minDegree     smallest degree.
 * @param maxDegree     largest degree (QPs per process).
 * @param connected     whether the graph is connected.
 * @param componentCount number of connected components.
 * @param diameter      the diameter, or a lower bound when {@code diameterExact} is false; -1 if disconnected.
 * @param diameterExact whether {@code diameter} is exact.
 * @param spectrum      lambda2, lambdaMin and their certified bounds.
 * @param certificate   proven lower bound on f_max.
 * @param attack        witness-backed upper bound on f_max.
 * @param exactF        exact f_max when n is small enough.
 * @param probable      the probable bound over the generator's randomness, or why it does not apply.
 * @param timings       time per stage.
 */
public record GraphAnalysis(
    int n,
    long edges,
    int minDegree,
    int maxDegree,
    boolean connected,
    int componentCount,
    int diameter,
    boolean diameterExact,
    SpectrumEstimate spectrum,
    Certificate certificate,
    AttackResult attack,
    OptionalInt exactF,
    ProbableTolerance probable,
    StageTimings timings)
{
    /** Proven lower bound on f_max (plain accessor for reports). */
    public int certifiedF()
    {
        return certificate.certifiedF();
    }

    /** Witness-backed upper bound on f_max. */
    public int attackF()
    {
        return attack.attackF();
    }
}
