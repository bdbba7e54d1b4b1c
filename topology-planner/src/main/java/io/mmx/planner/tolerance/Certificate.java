package io.mmx.planner.tolerance;

/**
 * A proven lower bound on the crash tolerance f_max of a plan (DESIGN section 1).
 *
 * @param certifiedF    f_max ≥ certifiedF, proven given the spectral bound the justification names.
 * @param method        which argument gave the bound: exact, haemers, tanner, min-degree or trivial.
 * @param justification what is proof and what (if anything) is numerical or probabilistic.
 * @param liveSetUpper  the proven upper bound on s* behind certifiedF (certifiedF = n - 1 - liveSetUpper).
 * @param degreeLimitF  the degree upper limit f_max ≤ n - ceil((floor(n/2) + 1) / (maxDegree + 1)).
 */
public record Certificate(int certifiedF, String method, String justification, int liveSetUpper, int degreeLimitF)
{
}
