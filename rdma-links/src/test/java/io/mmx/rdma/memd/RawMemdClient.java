package io.mmx.rdma.memd;

import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.region.ClusterKey;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** A deliberately unchecked memd client for hostile-input tests: it sends whatever it is told. */
final class RawMemdClient implements AutoCloseable
{
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final byte[] nonce = new byte[MemdProtocol.NONCE_LENGTH];

    RawMemdClient(final InetSocketAddress address) throws IOException
    {
        socket = new Socket();
        socket.connect(address, 2_000);
        socket.setSoTimeout(5_000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
        final byte[] hello = new byte[MemdProtocol.LENGTH_PREFIX + MemdProtocol.HELLO_LENGTH];
        in.readFully(hello);
        System.arraycopy(hello, 8, nonce, 0, nonce.length);
    }

    byte[] nonce()
    {
        return nonce.clone();
    }

    void sendRaw(final byte[] bytes) throws IOException
    {
        out.write(bytes);
        out.flush();
    }

    /** A request frame tagged under the requester's process key derived from {@code key}, and {@code nonceForTag}. */
    static byte[] frame(
        final ClusterKey key,
        final byte[] nonceForTag,
        final int op,
        final int requester,
        final long requestId,
        final int owner,
        final int length,
        final long offset,
        final long operand1,
        final long operand2,
        final byte[] payload)
    {
        return frame(key.processKey(requester), nonceForTag, op, requester, requestId, owner, length, offset,
            operand1, operand2, payload);
    }

    /** A request frame naming {@code requester}, tagged under {@code tagKey} (which may be another process's). */
    static byte[] frame(
        final io.mmx.rdma.region.ProcessKey tagKey,
        final byte[] nonceForTag,
        final int op,
        final int requester,
        final long requestId,
        final int owner,
        final int length,
        final long offset,
        final long operand1,
        final long operand2,
        final byte[] payload)
    {
        final int signed = MemdProtocol.REQUEST_HEADER + payload.length;
        final ByteBuffer b = ByteBuffer.allocate(MemdProtocol.LENGTH_PREFIX + signed + MemdProtocol.TAG_LENGTH)
            .order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(signed + MemdProtocol.TAG_LENGTH);
        b.put(MemdProtocol.VERSION).put((byte)op).putShort((short)0).putInt(requester).putLong(requestId)
            .putInt(owner).putInt(length).putLong(offset).putLong(operand1).putLong(operand2).put(payload);
        final byte[] tag = new byte[MemdProtocol.TAG_LENGTH];
        MemdProtocol.tag(tagKey.newMac(), nonceForTag, b, MemdProtocol.LENGTH_PREFIX, signed, tag, 0);
        b.position(MemdProtocol.LENGTH_PREFIX + signed);
        b.put(tag);
        return b.array();
    }

    /** {@code frame} moved to {@code binding} and tagged again under {@code tagKey}. */
    static byte[] onBinding(final byte[] frame, final int binding, final io.mmx.rdma.region.ProcessKey tagKey,
        final byte[] nonceForTag)
    {
        final ByteBuffer b = ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort(MemdProtocol.LENGTH_PREFIX + MemdProtocol.REQ_BINDING, (short)binding);
        final int signed = frame.length - MemdProtocol.LENGTH_PREFIX - MemdProtocol.TAG_LENGTH;
        final byte[] tag = new byte[MemdProtocol.TAG_LENGTH];
        MemdProtocol.tag(tagKey.newMac(), nonceForTag, b, MemdProtocol.LENGTH_PREFIX, signed, tag, 0);
        b.position(MemdProtocol.LENGTH_PREFIX + signed);
        b.put(tag);
        return frame;
    }

    /** Reads one response; returns its status and value. */
    Response readResponse() throws IOException
    {
        final int length = Integer.reverseBytes(in.readInt());
        final byte[] body = new byte[length];
        in.readFully(body);
        final ByteBuffer b = ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN);
        return new Response(OpStatus.fromCode(b.get(MemdProtocol.RSP_STATUS)), b.getLong(MemdProtocol.RSP_ID),
            b.getLong(MemdProtocol.RSP_VALUE));
    }

    /** True if the daemon closed the connection (EOF) within the socket timeout. */
    boolean closedByPeer() throws IOException
    {
        try
        {
            while (true)
            {
                if (in.read() < 0)
                {
                    return true;
                }
            }
        }
        catch (final EOFException ex)
        {
            return true;
        }
        catch (final SocketTimeoutException ex)
        {
            return false;
        }
        catch (final IOException ex)
        {
            return true; // reset by peer
        }
    }

    @Override
    public void close() throws IOException
    {
        socket.close();
    }

    /** One decoded response. */
    record Response(OpStatus status, long requestId, long value)
    {
    }
}
