package io.mmx.runtime.node;

import io.mmx.membership.Role;

/**
 * A hosted process's progress, as {@code mmx status} shows it. Where one word names the role
 * ({@code /status}, the {@code role} label of metrics, event lines, {@code mmx node}'s ROLE lines),
 * it is {@link #shownRole()}.
 *
 * @param id                  the process.
 * @param role                its proposer's role: LEADER, CANDIDATE (running phase 1) or FOLLOWER.
 * @param recovering          it still reads its region after start: its core is not ready.
 * @param blocked             not recovering, and it leads or tries to but reaches fewer acceptors than a
 *                            quorum, or is named leader but may not lead (its region came back empty).
 * @param leader              the leader it follows, -1 while none is known.
 * @param ballot              its proposer ballot.
 * @param reachableAcceptors  acceptors it can currently reach (meaningful while leading or trying).
 * @param neededAcceptors     a quorum: more than n/2.
 * @param commitIndex         highest slot applied to its state machine.
 * @param knownDecided        highest slot it knows to be decided.
 * @param qps                 memory connections it holds (queue pairs on verbs): degree + 1.
 * @param suspectedNeighbours plan neighbours whose memory heartbeat stopped (it executes their acceptors).
 * @param deadMembers         processes membership considers dead.
 * @param regionServed        its own region answered recently: a write of its memory heartbeat completed
 *                            within the last {@value ProcessReplica#REGION_SERVED_TICKS} ticks, so the
 *                            region's server (memd, or shm here) serves it to this process's own key.
 * @param appliedIndex        its state machine holds every command through this log index (the end of
 *                            the last slot it applied or restored), -1 before any.
 * @param stateDigest         the state machine's digest at {@code appliedIndex} as 16 hex digits; null when
 *                            the state machine keeps none, or its state is incomplete (a gap: it missed
 *                            commands), so it cannot be compared.
 */
public record ProcessStatus(
    int id,
    Role role,
    boolean recovering,
    boolean blocked,
    int leader,
    long ballot,
    int reachableAcceptors,
    int neededAcceptors,
    long commitIndex,
    long knownDecided,
    int qps,
    int suspectedNeighbours,
    int deadMembers,
    boolean regionServed,
    long appliedIndex,
    String stateDigest)
{
    /**
     * The role in one word: RECOVERING while recovering, else BLOCKED while blocked, else the role's
     * name (LEADER, CANDIDATE or FOLLOWER).
     */
    public String shownRole()
    {
        return recovering ? "RECOVERING" : blocked ? "BLOCKED" : role.name();
    }

    /** True when it leads and is neither blocked nor recovering: commands commit through it. */
    public boolean leads()
    {
        return role == Role.LEADER && !recovering && !blocked;
    }

    /** One JSON object, the element of {@code /status}'s {@code processes} array. */
    public String toJson()
    {
        return "{\"id\":" + id + ",\"role\":\"" + shownRole() + "\",\"leader\":" + leader + ",\"ballot\":" + ballot +
            ",\"reachableAcceptors\":" + reachableAcceptors + ",\"neededAcceptors\":" + neededAcceptors +
            ",\"commitIndex\":" + commitIndex + ",\"knownDecided\":" + knownDecided + ",\"blocked\":" + blocked +
            ",\"qps\":" + qps + ",\"suspectedNeighbours\":" + suspectedNeighbours + ",\"deadMembers\":" + deadMembers +
            ",\"regionServed\":" + regionServed + ",\"appliedIndex\":" + appliedIndex + ",\"stateDigest\":" +
            (stateDigest == null ? "null" : "\"" + stateDigest + "\"") + "}";
    }
}
