package io.mmx.membership;

import io.mmx.membership.swim.MemberStatus;

/**
 * Events a membership node reports to the process that hosts it. Default methods do nothing, so a
 * host implements only what it uses. Called on the thread that calls tick/onMessage.
 */
public interface MembershipListener
{
    /** Listener that ignores everything. */
    MembershipListener NO_OP = new MembershipListener()
    {
    };

    /**
     * The cluster-wide view of a member changed.
     *
     * @param memberId    the member.
     * @param status      its new status.
     * @param incarnation its incarnation.
     * @param nowTick     when.
     */
    default void onMemberStatus(
        final int memberId, final MemberStatus status, final int incarnation, final long nowTick)
    {
    }

    /**
     * The leader this process follows changed.
     *
     * @param leaderId the new leader, or -1 while none is known.
     * @param epoch    the leader's epoch.
     * @param role     this process's role in the leader election.
     * @param nowTick  when.
     */
    default void onLeaderChanged(final int leaderId, final long epoch, final Role role, final long nowTick)
    {
    }

    /**
     * A plan neighbour's memory heartbeat stopped (takeover: execute its acceptor transitions) or resumed.
     *
     * @param neighbourId the neighbour.
     * @param suspected   true when it stopped, false when it resumed.
     * @param nowTick     when.
     */
    default void onNeighbourSuspicion(final int neighbourId, final boolean suspected, final long nowTick)
    {
    }

    /**
     * This process declared the leader it follows stopped (its memory heartbeat stood still) and told
     * every member (LEADER_DOWN).
     *
     * @param leaderId   the leader.
     * @param stillTicks ticks its word stood still.
     * @param stillReads reads of this process that saw it still.
     * @param nowTick    when.
     */
    default void onLeaderStopped(final int leaderId, final long stillTicks, final int stillReads, final long nowTick)
    {
    }

    /**
     * Plan activation finished or was refused.
     *
     * @param active  true when this process may serve; false when it was refused.
     * @param message one sentence naming both plan hashes when refused.
     * @param nowTick when.
     */
    default void onPlanActivation(final boolean active, final String message, final long nowTick)
    {
    }
}
