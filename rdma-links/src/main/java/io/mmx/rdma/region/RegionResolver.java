package io.mmx.rdma.region;

import io.mmx.rdma.fabric.OpStatus;

/**
 * Finds and validates the region of an owner for backends whose regions are directly
 * addressable memory (local, shm). Validation errors come back as values, not exceptions,
 * because a neighbour's region may legitimately be missing until that neighbour starts.
 */
@FunctionalInterface
public interface RegionResolver
{
    /** Looks up {@code owner}'s region and checks its header against the caller's plan and key. */
    Resolution resolve(int owner);

    /**
     * Result of {@link #resolve}.
     *
     * @param memory  the region when {@code status} is OK, else null.
     * @param status  OK, REGION_LOST, REGION_MISMATCH or BAD_CLUSTER_KEY.
     * @param message one sentence naming the problem and the fix, or a description when OK.
     */
    record Resolution(RegionMemory memory, OpStatus status, String message)
    {
        /** A usable region. */
        public static Resolution found(final RegionMemory memory)
        {
            return new Resolution(memory, OpStatus.OK, "region of process " + memory.owner() + " is open");
        }

        /** A refusal. */
        public static Resolution failed(final OpStatus status, final String message)
        {
            return new Resolution(null, status, message);
        }
    }
}
