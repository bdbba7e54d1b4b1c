package io.mmx.runtime.core;

/**
 * A process's progress report: whether it leads, how many distinct acceptors it reaches
 * against how many a quorum needs, and how far its log is decided and applied. A blocked leader
 * says why: {@code reachableAcceptors < neededAcceptors}.
 */
public final class Status
{
    /** The proposer role. */
    public enum Role
    {
        FOLLOWER, PREPARING, LEADING
    }

    public final int process;
    public final Role role;
    public final long ballot;
    public final int reachableAcceptors;
    public final int neededAcceptors;
    public final long appliedThrough;
    public final long knownDecidedThrough;

    public Status(final int process, final Role role, final long ballot, final int reachableAcceptors,
        final int neededAcceptors, final long appliedThrough, final long knownDecidedThrough)
    {
        this.process = process;
        this.role = role;
        this.ballot = ballot;
        this.reachableAcceptors = reachableAcceptors;
        this.neededAcceptors = neededAcceptors;
        this.appliedThrough = appliedThrough;
        this.knownDecidedThrough = knownDecidedThrough;
    }

    /** True if this process leads or tries to, and cannot reach a quorum of acceptors. */
    public boolean blocked()
    {
        return role != Role.FOLLOWER && reachableAcceptors < neededAcceptors;
    }

    boolean sameAs(final Status o)
    {
        return o != null && o.role == role && o.ballot == ballot && o.reachableAcceptors == reachableAcceptors &&
            o.neededAcceptors == neededAcceptors && o.appliedThrough == appliedThrough &&
            o.knownDecidedThrough == knownDecidedThrough;
    }

    @Override
    public String toString()
    {
        return "Status{p" + process + " " + role + " ballot=" + ballot + " acceptors " + reachableAcceptors + "/" +
            neededAcceptors + " needed, applied=" + appliedThrough + ", decided>=" + knownDecidedThrough +
            (blocked() ? ", BLOCKED: reaches " + reachableAcceptors + " acceptors, a quorum needs " +
            neededAcceptors : "") + "}";
    }
}
