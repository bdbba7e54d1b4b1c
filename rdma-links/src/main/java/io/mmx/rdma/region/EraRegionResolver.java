package io.mmx.rdma.region;

import io.mmx.planner.plan.PlanDigest;

/**
 * Finds an owner's region of one era for a server that serves several eras' regions at once (the
 * verbs region host during a live plan change): each era has fresh regions, and two eras may run
 * the same plan, so the era says which region is meant and the plan is checked against its header.
 */
@FunctionalInterface
public interface EraRegionResolver
{
    /** Looks up {@code owner}'s region of era {@code era} and checks its header against {@code plan} and the key. */
    RegionResolver.Resolution resolve(int owner, int era, PlanDigest plan);

    /** A resolver that serves era 0 only, through {@code launch} (checked against its own plan). */
    static EraRegionResolver launchOnly(final RegionResolver launch, final PlanDigest launchPlan)
    {
        return (owner, era, plan) -> era == 0 && plan.equals(launchPlan) ? launch.resolve(owner) :
            RegionResolver.Resolution.failed(io.mmx.rdma.fabric.OpStatus.REGION_LOST, "this host serves only era 0 " +
            "of plan " + launchPlan.shortHex() + ", not era " + era + " of plan " + plan.shortHex() + ": serve the " +
            "era directories of the shm base directory (memd --plans DIR with --verbs-listen)");
    }
}
