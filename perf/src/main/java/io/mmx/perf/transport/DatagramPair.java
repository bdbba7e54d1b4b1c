package io.mmx.perf.transport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;

/**
 * Baseline: two non-blocking {@link DatagramChannel}s on 127.0.0.1 sending datagrams as long as an mmx
 * frame with the same payload (header and tag bytes included, but neither signed nor verified).
 */
final class DatagramPair implements LinkPair
{
    static final int DATAGRAM_LENGTH = AeronPair.PAYLOAD_LENGTH + 40;

    private final DatagramChannel a;
    private final DatagramChannel b;
    private final InetSocketAddress addressA;
    private final InetSocketAddress addressB;
    private final ByteBuffer sendBuffer = ByteBuffer.allocateDirect(DATAGRAM_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer receiveBuffer = ByteBuffer.allocateDirect(2048).order(ByteOrder.LITTLE_ENDIAN);

    DatagramPair()
    {
        try
        {
            a = open();
            b = open();
            addressA = (InetSocketAddress)a.getLocalAddress();
            addressB = (InetSocketAddress)b.getLocalAddress();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static DatagramChannel open() throws IOException
    {
        final DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET);
        channel.bind(new InetSocketAddress("127.0.0.1", 0));
        channel.configureBlocking(false);
        return channel;
    }

    public boolean send(final boolean fromA, final long value)
    {
        sendBuffer.clear();
        sendBuffer.putLong(0, value);
        sendBuffer.limit(DATAGRAM_LENGTH);
        try
        {
            return (fromA ? a.send(sendBuffer, addressB) : b.send(sendBuffer, addressA)) > 0;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    public long poll(final boolean atA)
    {
        receiveBuffer.clear();
        try
        {
            return (atA ? a.receive(receiveBuffer) : b.receive(receiveBuffer)) != null ? receiveBuffer.getLong(0) : -1;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    public String name()
    {
        return "datagram-channel";
    }

    public void close()
    {
        try
        {
            a.close();
            b.close();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
