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

    /** The {@code origin} {@link #apply} sees for a command of an outside client (the default {@link #applyClientCommand}). */
    int CLIENT_ORIGIN = -1;

    /**
     * Applies one committed command of an outside client ({@code io.mmx.runtime.client.MmxClient}),
     * reassembled whole however large, once per replica even if the client sent it again.
     *
     * @param clientId the client's session.
     * @return the reply the client receives, at most {@code ClientWire.MAX_REPLY_BYTES} (4096) bytes (a
     *         longer one stops the node, as any exception here does). The default applies the command
     *         with {@link #apply} (origin {@link #CLIENT_ORIGIN}) and replies its {@code long},
     *         8 bytes little-endian.
     */
    default byte[] applyClientCommand(final long logIndex, final long clientId, final DirectBuffer buffer,
        final int offset, final int length)
    {
        final long reply = apply(logIndex, CLIENT_ORIGIN, buffer, offset, length);
        final byte[] out = new byte[8];
        new org.agrona.concurrent.UnsafeBuffer(out).putLong(0, reply, java.nio.ByteOrder.LITTLE_ENDIAN);
        return out;
    }

    /**
     * This replica will never see the commands of log indexes {@code fromLogIndex..toLogIndex}: it
     * restarted, or fell behind every decided log it can reach. Its state is incomplete until the
     * replica installs a snapshot from another (with a state directory, the node does so itself).
     */
    default void onGap(final long fromLogIndex, final long toLogIndex)
    {
    }

    /**
     * The state {@link #loadSnapshot} just loaded holds every command through {@code logIndex}; the next
     * {@link #apply} is after it. Called after each load that succeeded: of this replica's own snapshot
     * when it restarts, and of a peer's snapshot after a state transfer. A peer's snapshot may hold
     * commands this replica never saw as {@link #apply} or {@link #onGap}: those it missed, those decided
     * while the snapshot travelled (journaled, not applied), and those at or below {@code logIndex} that
     * it learns of only later (skipped, as the state already holds them). An application that keeps a
     * record of what it applied says here that the commands up to {@code logIndex} came in a snapshot.
     */
    default void onSnapshotLoaded(final long logIndex)
    {
    }

    /**
     * A digest of the whole state, if this state machine keeps one: replicas that applied the same
     * commands report the same digest at the same log index, so the node's status can show whether
     * they agree. Called on the agent thread at every status refresh (about every 100 ms): keep it
     * O(1), for example a sum of per-entry hashes updated as commands apply.
     */
    default java.util.OptionalLong stateDigest()
    {
        return java.util.OptionalLong.empty();
    }

    /**
     * True if this state machine can write and load snapshots ({@link #takeSnapshot},
     * {@link #loadSnapshot}); the default is false.
     */
    default boolean snapshots()
    {
        return false;
    }

    /**
     * Writes the whole state, as of the last command applied, to {@code out}: a stream, so the state
     * need not fit in one buffer. Replicas at the same log index must write the same bytes (iterate
     * in a defined order), so that snapshots and state digests compare across replicas.
     *
     * @throws IllegalStateException unless {@link #snapshots()} is true: the node asks only state
     *         machines that say they take snapshots (and refuses {@code --state-dir} for the others).
     */
    default void takeSnapshot(final java.io.OutputStream out) throws java.io.IOException
    {
        throw new IllegalStateException(getClass().getName() + " was asked for a snapshot, but its snapshots() " +
            "is false: implement snapshots(), takeSnapshot and loadSnapshot together");
    }

    /**
     * Replaces the whole state with the one {@code in} holds, as {@link #takeSnapshot} wrote it. If
     * the stream throws part way (a damaged snapshot), the state is void and the caller loads
     * another snapshot.
     *
     * @throws IllegalStateException unless {@link #snapshots()} is true (as {@link #takeSnapshot}).
     */
    default void loadSnapshot(final java.io.InputStream in) throws java.io.IOException
    {
        throw new IllegalStateException(getClass().getName() + " was given a snapshot to load, but its " +
            "snapshots() is false: implement snapshots(), takeSnapshot and loadSnapshot together");
    }
}
