package io.mmx.membership;

/**
 * A process's role in leadership: the one vocabulary of the eventual leader election (Ω,
 * {@code LeaderElection}), of the consensus core's proposer, and of what a node reports
 * ({@code mmx status}, metrics, event lines). Each layer holds its own role: a process the election
 * names LEADER is a CANDIDATE in its proposer until phase 1 completes.
 */
public enum Role
{
    /**
     * Follows a leader. Election: one whose claim is fresh. Proposer: proposes nothing itself (it
     * forwards commands to the leader membership names).
     */
    FOLLOWER,
    /**
     * On its way to leading. Election: knows no fresh leader and claims leadership after a delay that
     * grows with its rank. Proposer: named leader, running phase 1 with a new ballot.
     */
    CANDIDATE,
    /**
     * Leads. Election: claims leadership, and steps down on a fresh claim from a lower id or when it
     * hears nobody for a lease. Proposer: proposes into slots (phase 2).
     */
    LEADER
}
