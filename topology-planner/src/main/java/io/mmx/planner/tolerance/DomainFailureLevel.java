package io.mmx.planner.tolerance;

import java.util.OptionalInt;

/**
 * Crash tolerance after {@code failedDomains} whole failure domains (racks or hosts) are lost:
 * their processes are dead <b>and</b> their memory regions are gone. The numbers count
 * <i>further</i> process crashes among the survivors (whose regions stay readable) that consensus
 * still survives, quorum being more than n/2 of all n acceptors. -1 means the domain failures
 * alone already block consensus.
 *
 * @param failedDomains           number of failed domains r.
 * @param processesLost           processes in the r largest domains (the certified worst case).
 * @param certifiedFurtherCrashes proven lower bound on further crashes tolerated, whichever r domains fail.
 * @param attackFurtherCrashes    upper bound: a concrete choice of domains and live set that blocks.
 * @param exactFurtherCrashes     exact worst case when every combination was tried and solved exactly.
 * @param attackDomains           domain labels of the failure that gave the attack bound.
 * @param attackWitness           live processes (original ids) that block after that failure.
 * @param combinationsTried       how many sets of r domains were examined by the attack.
 * @param exhaustive              true if every set of r domains was examined; false means heuristic.
 * @param method                  how the two bounds were obtained.
 */
public record DomainFailureLevel(
    int failedDomains,
    int processesLost,
    int certifiedFurtherCrashes,
    int attackFurtherCrashes,
    OptionalInt exactFurtherCrashes,
    int[] attackDomains,
    int[] attackWitness,
    int combinationsTried,
    boolean exhaustive,
    String method)
{
}
