package io.mmx.planner.spectral;

/**
 * A {@link SpectrumEstimate} together with the unit Ritz vectors behind it, which attack
 * searches use for spectral sweeps. The vectors are n long; they are not part of any plan file.
 *
 * @param estimate        the eigenvalue estimates and bounds.
 * @param lambda2Vector   unit Ritz vector of lambda2 (length n; empty when n ≤ 1).
 * @param lambdaMinVector unit Ritz vector of lambdaMin (length n; empty when n ≤ 1).
 */
public record LanczosResult(SpectrumEstimate estimate, double[] lambda2Vector, double[] lambdaMinVector)
{
}
