package io.mmx.runtime.node;

import io.mmx.membership.neighbour.HostLiveness;

/**
 * Liveness for processes whose regions are on memd, from what the daemons answer: memd counts the
 * authenticated connections each process holds to it, and every answer about an owner's region says
 * whether the owner holds one now. A node holds a connection as each process it hosts to the daemon
 * of that process's region (its link to its own region) for as long as its JVM lives, and the
 * kernel closes it the moment the JVM dies, SIGKILL included: the counterpart of the lock files on
 * shm ({@link ShmLiveness}). So when a leader's or a neighbour's heartbeat word has stood still past
 * the bound, the answers to the very reads that found it still tell a slow JVM (a busy machine, a
 * collector pause: not declared stopped) from a dead one ({@link #surelyDead}: declared on the early
 * bound). Only answers younger than {@link #FRESH_NS} count; without one (the daemon unreachable, a
 * whole host gone) this knows nothing and the word alone decides, as before.
 *
 * <p>Reads what the node's sessions kept of the answers; no I/O of its own. Agent thread: membership
 * asks from the host the agent drives, which also drives the sessions.
 */
final class MemdLiveness implements HostLiveness
{
    /** How old the latest answer about an owner may be to count. */
    static final long FRESH_NS = 1_000_000_000L;

    /** What the daemons said of an owner: {@link io.mmx.rdma.memd.MemdSessions#ownerConnected}. */
    @FunctionalInterface
    interface Answers
    {
        /** 1 the owner holds a connection, 0 none, -1 no answer at or after {@code sinceNs}. */
        int ownerConnected(int owner, long sinceNs);
    }

    private final Answers answers;

    MemdLiveness(final Answers answers)
    {
        this.answers = answers;
    }

    @Override
    public boolean surelyRuns(final int processId)
    {
        return answers.ownerConnected(processId, System.nanoTime() - FRESH_NS) == 1;
    }

    @Override
    public boolean surelyDead(final int processId)
    {
        return answers.ownerConnected(processId, System.nanoTime() - FRESH_NS) == 0;
    }
}
