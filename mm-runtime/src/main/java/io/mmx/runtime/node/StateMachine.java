package io.mmx.runtime.node;

import org.agrona.DirectBuffer;

/**
 * The replicated service: one instance per hosted process, each a replica.
 *
 * <p><b>Thread and order.</b> Every method is called on the node's agent thread (named
 * {@code mmx-node}), never concurrently, and {@link #apply} in log order: increasing
 * {@code logIndex}, each committed command exactly once per replica (retried copies are filtered
 * before they reach it). Do not block here: the agent also drives the protocol.
 */
public interface StateMachine
{
    /**
     * Applies one committed command.
     *
     * @param logIndex position in the log (slot x batch + position; increasing, not dense).
     * @param origin   the process that submitted it.
     * @param buffer   holding the command; valid during this call only.
     * @param offset   of the command.
     * @param length   of the command in bytes.
     * @return the reply that completes the submitter's future (meaningful only at the origin's replica).
     */
    long apply(long logIndex, int origin, DirectBuffer buffer, int offset, int length);

    /**
     * This replica will never see the commands of log indexes {@code fromLogIndex..toLogIndex}: it
     * restarted, or fell behind every decided log it can reach. Its state is incomplete until the
     * application installs a copy from another replica; mmx has no state transfer of its own yet.
     */
    default void onGap(final long fromLogIndex, final long toLogIndex)
    {
    }
}
