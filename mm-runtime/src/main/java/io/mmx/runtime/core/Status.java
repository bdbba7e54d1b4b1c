package io.mmx.runtime.core;

import io.mmx.membership.Role;

/**
 * A process's progress report: whether it leads, how many distinct acceptors it reaches
 * against how many a quorum needs, and how far its log is decided and applied. A blocked leader
 * says why: {@code reachableAcceptors < neededAcceptors}, or {@code barred}: it is named leader but
 * may not lead (its region came back empty, so any ballot of its own might be one it used before).
 */
public final class Status
{
    /** The process this status is of. */
    public final int process;
    /** Its proposer's role: FOLLOWER, CANDIDATE (phase 1) or LEADER (phase 2). */
    public final Role role;
    /** Its current ballot. */
    public final long ballot;
    /** Distinct acceptors it currently reaches (meaningful while preparing or leading). */
    public final int reachableAcceptors;
    /** Acceptors a quorum needs: more than n/2. */
    public final int neededAcceptors;
    /** The last slot its learner applied, -1 before any. */
    public final long appliedThrough;
    /** The highest slot it knows decided. */
    public final long knownDecidedThrough;
    /** Named leader by the leader oracle (membership), but forbidden to lead by the amnesia rule. */
    public final boolean barred;

    /** A status with these fields (see each field). */
    public Status(final int process, final Role role, final long ballot, final int reachableAcceptors,
        final int neededAcceptors, final long appliedThrough, final long knownDecidedThrough, final boolean barred)
    {
        this.process = process;
        this.role = role;
        this.ballot = ballot;
        this.reachableAcceptors = reachableAcceptors;
        this.neededAcceptors = neededAcceptors;
        this.appliedThrough = appliedThrough;
        this.knownDecidedThrough = knownDecidedThrough;
        this.barred = barred;
    }

    /**
     * True if this process leads or tries to and cannot reach a quorum of acceptors, or is named
     * leader but may not lead: either way nothing is decided while it is the leader.
     */
    public boolean blocked()
    {
        return barred || role != Role.FOLLOWER && reachableAcceptors < neededAcceptors;
    }

    boolean sameAs(final Status o)
    {
        return o != null && o.role == role && o.ballot == ballot && o.reachableAcceptors == reachableAcceptors &&
            o.neededAcceptors == neededAcceptors && o.appliedThrough == appliedThrough &&
            o.knownDecidedThrough == knownDecidedThrough && o.barred == barred;
    }

    @Override
    public String toString()
    {
        return "Status{p" + process + " " + role + " ballot=" + ballot + " acceptors " + reachableAcceptors + "/" +
            neededAcceptors + " needed, applied=" + appliedThrough + ", decided>=" + knownDecidedThrough +
            (barred ? ", BLOCKED: named leader, but its region came back empty and it may not lead" :
            blocked() ? ", BLOCKED: reaches " + reachableAcceptors + " acceptors, a quorum needs " +
            neededAcceptors : "") + "}";
    }
}
