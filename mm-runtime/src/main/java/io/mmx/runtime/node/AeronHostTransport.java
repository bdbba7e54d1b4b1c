package io.mmx.runtime.node;

import io.mmx.aeron.transport.AeronTransport;
import io.mmx.aeron.transport.FrameHandler;
import io.mmx.runtime.host.HostTransport;
import org.agrona.DirectBuffer;

/** The node's Aeron transport as its host's {@link HostTransport}. */
final class AeronHostTransport implements HostTransport
{
    private final AeronTransport transport;

    AeronHostTransport(final AeronTransport transport)
    {
        this.transport = transport;
    }

    @Override
    public int poll(final FrameHandler handler)
    {
        return transport.poll(handler);
    }

    @Override
    public boolean send(final int srcProcessId, final int dstProcessId, final int type, final DirectBuffer payload,
        final int offset, final int length)
    {
        return transport.send(srcProcessId, dstProcessId, type, payload, offset, length);
    }

    @Override
    public boolean sendToHostOf(final int srcProcessId, final int dstProcessId, final int type,
        final DirectBuffer payload, final int offset, final int length)
    {
        return transport.sendToHostOf(srcProcessId, dstProcessId, type, payload, offset, length);
    }

    @Override
    public int broadcast(final int srcProcessId, final int type, final DirectBuffer payload, final int offset,
        final int length)
    {
        return transport.broadcast(srcProcessId, type, payload, offset, length);
    }

    @Override
    public int flush()
    {
        return transport.flush();
    }

    @Override
    public int maxFrameLengthBytes()
    {
        return transport.context().maxFrameLengthBytes();
    }
}
