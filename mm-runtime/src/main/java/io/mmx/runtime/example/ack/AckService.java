package io.mmx.runtime.example.ack;

import io.mmx.runtime.node.StateMachine;
import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * The smallest replicated service: it counts the commands it applies and replies to each with the
 * command's first 8 bytes (little-endian; fewer bytes are zero-padded). The consensus benchmark runs
 * it on every replica because its baseline, a 3-member Aeron Cluster, runs the same service, so the
 * two are compared on ordering and replicating commands, not on what a service does with them
 * ({@code mmx node --service ack}). Its state is the count, which it snapshots.
 */
public final class AckService implements StateMachine
{
    private long applied;

    @Override
    public long apply(final long logIndex, final int origin, final DirectBuffer buffer, final int offset,
        final int length)
    {
        applied++;
        if (length >= Long.BYTES)
        {
            return buffer.getLong(offset, ByteOrder.LITTLE_ENDIAN);
        }
        long reply = 0;
        for (int i = length - 1; i >= 0; i--)
        {
            reply = reply << 8 | buffer.getByte(offset + i) & 0xFF;
        }
        return reply;
    }

    /** Commands applied so far, snapshots' included. */
    public long applied()
    {
        return applied;
    }

    @Override
    public java.util.OptionalLong stateDigest()
    {
        return java.util.OptionalLong.of(applied);
    }

    @Override
    public boolean snapshots()
    {
        return true;
    }

    /** The count as one big-endian i64. */
    @Override
    public void takeSnapshot(final java.io.OutputStream out) throws java.io.IOException
    {
        final java.io.DataOutputStream data = new java.io.DataOutputStream(out);
        data.writeLong(applied);
        data.flush();
    }

    @Override
    public void loadSnapshot(final java.io.InputStream in) throws java.io.IOException
    {
        final java.io.DataInputStream data = new java.io.DataInputStream(in);
        final long count = data.readLong();
        if (count < 0)
        {
            throw new java.io.IOException("an ack-service snapshot with a negative count, " + count);
        }
        if (data.read() != -1)
        {
            throw new java.io.IOException("an ack-service snapshot with bytes after its count");
        }
        applied = count;
    }
}
