package io.mmx.perf.consensus.aeroncluster;

import io.aeron.ExclusivePublication;
import io.aeron.Image;
import io.aeron.cluster.codecs.CloseReason;
import io.aeron.cluster.service.ClientSession;
import io.aeron.cluster.service.Cluster;
import io.aeron.cluster.service.ClusteredService;
import io.aeron.logbuffer.Header;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.IdleStrategy;

/**
 * The trivial replicated state machine of the baseline: acknowledges every command to its client with the
 * command's first 8 bytes (its id). A clustered service sees a message only once the log holding it is
 * committed on a majority, so the acknowledgement is the client's commit notification. On followers
 * {@link ClientSession#offer} is a no-op, so only the leader answers.
 */
final class AckService implements ClusteredService
{
    private static final int ACK_LENGTH = Long.BYTES;

    private Cluster cluster;
    private IdleStrategy idleStrategy;
    /** Written by the service thread, read by tests and diagnostics: followers apply the log too. */
    private volatile long applied;

    /** @return commands this member's service has applied, leader or follower. */
    long applied()
    {
        return applied;
    }

    @Override
    public void onStart(final Cluster cluster, final Image snapshotImage)
    {
        this.cluster = cluster;
        this.idleStrategy = cluster.idleStrategy();
    }

    @Override
    public void onSessionOpen(final ClientSession session, final long timestamp)
    {
    }

    @Override
    public void onSessionClose(final ClientSession session, final long timestamp, final CloseReason closeReason)
    {
    }

    @Override
    public void onSessionMessage(
        final ClientSession session,
        final long timestamp,
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final Header header)
    {
        applied++; // single writer: the service thread
        // Retry under back-pressure as Aeron's samples do: dropping an ack would look like a lost commit.
        idleStrategy.reset();
        while (session.offer(buffer, offset, ACK_LENGTH) < 0)
        {
            if (session.isClosing() || cluster.getClientSession(session.id()) == null)
            {
                return;
            }
            idleStrategy.idle();
        }
    }

    @Override
    public void onTimerEvent(final long correlationId, final long timestamp)
    {
    }

    @Override
    public void onTakeSnapshot(final ExclusivePublication snapshotPublication)
    {
        // Stateless: an empty snapshot is a complete one.
    }

    @Override
    public void onRoleChange(final Cluster.Role newRole)
    {
    }

    @Override
    public void onTerminate(final Cluster cluster)
    {
    }
}
