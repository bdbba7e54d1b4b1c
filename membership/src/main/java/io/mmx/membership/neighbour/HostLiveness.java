package io.mmx.membership.neighbour;

/**
 * What the operating system says of the process that hosts a member, where the host can tell: a
 * process that was killed is known dead at once, however busy the machine, while a word in memory
 * stands still alike whether its writer died or waits for a core. On shm (one machine) the node
 * answers from a file lock the owner holds while it lives; elsewhere {@link #NONE} knows nothing.
 */
@FunctionalInterface
public interface HostLiveness
{
    /** Knows nothing: a leader whose word stands still is declared stopped on the word alone. */
    HostLiveness NONE = processId -> false;

    /**
     * @param processId a member.
     * @return true only if the process hosting it surely runs (its word standing still is slowness,
     * not a crash); false if it is dead or this cannot tell.
     */
    boolean surelyRuns(int processId);

    /**
     * @param processId a member.
     * @return true only if the process hosting it is surely dead (the operating system says so), so a
     * leader whose word stood still only briefly may be declared stopped at once; false if it runs or
     * this cannot tell. {@link #NONE} never knows.
     */
    default boolean surelyDead(final int processId)
    {
        return false;
    }
}
