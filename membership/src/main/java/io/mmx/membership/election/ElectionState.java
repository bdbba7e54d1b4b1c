package io.mmx.membership.election;

/**
 * State of the eventual leader election (Ω) at one process.
 */
public enum ElectionState
{
    /** Follows a leader whose claim is fresh. */
    FOLLOWER,
    /** Knows no fresh leader; claims leadership after a delay that grows with its rank. */
    CANDIDATE,
    /** Claims leadership; steps down on a fresh claim from a lower id or when it hears nobody for a lease. */
    LEADER
}
