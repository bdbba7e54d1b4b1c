package io.mmx.runtime.node;

/**
 * A hosted process's progress, as {@code mmx status} shows it.
 *
 * @param id                  the process.
 * @param role                LEADER, CANDIDATE (running phase 1), FOLLOWER, BLOCKED (leads or tries to, but
 *                            reaches fewer acceptors than a quorum) or RECOVERING (reading its region after start).
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
    String role,
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
    /** True when the role is BLOCKED. */
    public boolean blocked()
    {
        return "BLOCKED".equals(role);
    }

    /** One JSON object, the element of {@code /status}'s {@code processes} array. */
    public String toJson()
    {
        return "{\"id\":" + id + ",\"role\":\"" + role + "\",\"leader\":" + leader + ",\"ballot\":" + ballot +
            ",\"reachableAcceptors\":" + reachableAcceptors + ",\"neededAcceptors\":" + neededAcceptors +
            ",\"commitIndex\":" + commitIndex + ",\"knownDecided\":" + knownDecided + ",\"blocked\":" + blocked() +
            ",\"qps\":" + qps + ",\"suspectedNeighbours\":" + suspectedNeighbours + ",\"deadMembers\":" + deadMembers +
            ",\"regionServed\":" + regionServed + ",\"appliedIndex\":" + appliedIndex + ",\"stateDigest\":" +
            (stateDigest == null ? "null" : "\"" + stateDigest + "\"") + "}";
    }
}
