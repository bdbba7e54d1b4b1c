package io.mmx.planner.tolerance;

/**
 * A concrete blocked live set: if exactly the processes in {@code witness} stay up, the live
 * closed neighbourhood has {@code closedNeighbourhoodSize} ≤ floor(n/2) acceptors and consensus
 * blocks. So f_max ≤ attackF = n - 1 - |witness|; anyone can check the witness.
 *
 * @param attackF                 n - 1 - |witness| (n - 1 for the empty witness).
 * @param witness                 the live set, sorted ascending.
 * @param closedNeighbourhoodSize |N[witness]|, verified before returning.
 * @param elapsedMillis           time spent searching.
 * @param method                  which search produced the witness.
 */
public record AttackResult(int attackF, int[] witness, int closedNeighbourhoodSize, long elapsedMillis, String method)
{
}
