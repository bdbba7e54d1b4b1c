package io.mmx.planner.spectral;

/**
 * Extreme adjacency eigenvalues of a graph as estimated by {@link Lanczos}, with the bounds a
 * certificate may use and a statement of which parts are proof and which are numerical.
 *
 * <p>{@code lambda2}, {@code lambdaMin} are Ritz values: they lie inside the spectrum and approach
 * the true values from inside. {@code lambda2Upper} and {@code lambdaMinLower} add the margin
 * explained in {@code justification}; {@code lambdaBound} = max(lambda2Upper, -lambdaMinLower)
 * bounds max(|lambda2|, |lambdaMin|) and is what the spectral certificates use.
 *
 * @param n                  vertex count.
 * @param regularDegree      the common degree d, or -1 if the graph is not regular.
 * @param lambda1            largest eigenvalue: exactly d for a regular graph, else a Ritz value.
 * @param lambda2            second largest eigenvalue (Ritz value).
 * @param lambdaMin          smallest eigenvalue (Ritz value).
 * @param lambda2Residual    ||A x - lambda2 x|| for the unit Ritz vector x, computed explicitly.
 * @param lambdaMinResidual  the same for lambdaMin.
 * @param iterations         Lanczos steps of the pass that produced lambda2 (Krylov dimension).
 * @param lambda2Upper       upper bound on lambda2, valid except with probability failureProbability.
 * @param lambdaMinLower     lower bound on lambdaMin, valid except with probability failureProbability.
 * @param lambdaBound        upper bound on max(|lambda2|, |lambdaMin|) under the same condition.
 * @param failureProbability probability over the seeded random start that a bound above fails.
 * @param reorthogonalisation how the Lanczos basis was kept orthogonal (affects the justification).
 * @param justification      plain-language statement of what is proven and what is numerical.
 */
public record SpectrumEstimate(
    int n,
    int regularDegree,
    double lambda1,
    double lambda2,
    double lambdaMin,
    double lambda2Residual,
    double lambdaMinResidual,
    int iterations,
    double lambda2Upper,
    double lambdaMinLower,
    double lambdaBound,
    double failureProbability,
    String reorthogonalisation,
    String justification)
{
}
