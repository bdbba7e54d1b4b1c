package io.mmx.perf.transport;

import io.mmx.aeron.frame.FrameKey;
import io.mmx.aeron.frame.FrameHeader;
import io.mmx.aeron.transport.AeronTransport;
import io.mmx.aeron.transport.ProcessDirectory;
import io.mmx.aeron.transport.TransportContext;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.file.Path;

/**
 * Two mmx transports: over UDP loopback (two endpoints sharing one embedded driver) or over IPC (one
 * transport hosting both processes). Every message is a full signed and verified mmx frame.
 */
final class AeronPair implements LinkPair
{
    static final int PAYLOAD_LENGTH = 32;

    private final AeronTransport a;
    private final AeronTransport b;
    private final String name;
    private final UnsafeBuffer payload = new UnsafeBuffer(new byte[PAYLOAD_LENGTH]);
    private final io.mmx.aeron.transport.FrameHandler handler = this::onFrame;
    private long receivedA = -1;
    private long receivedB = -1;

    private AeronPair(final AeronTransport a, final AeronTransport b, final String name)
    {
        this.a = a;
        this.b = b;
        this.name = name;
    }

    static AeronPair udp(final Path dir, final int portA, final int portB, final String idle)
    {
        final ProcessDirectory directory = ProcessDirectory.parse(
            "0@127.0.0.1:" + portA + ";1@127.0.0.1:" + portB);
        final AeronTransport a = AeronTransport.launch(context(directory, idle)
            .localEndpoint("127.0.0.1:" + portA).aeronDirectoryName(dir.resolve("udp-a").toString()));
        try
        {
            // B uses A's embedded driver as an external one: one driver thread for both ends, as two
            // processes hosted by one JVM would share it, and fewer threads fighting for two cores.
            final AeronTransport b = AeronTransport.launch(context(directory, idle)
                .localEndpoint("127.0.0.1:" + portB).driverMode(TransportContext.DriverMode.EXTERNAL)
                .aeronDirectoryName(a.context().aeronDirectoryName()));
            return new AeronPair(a, b, "aeron-udp");
        }
        catch (final RuntimeException ex)
        {
            a.close();
            throw ex;
        }
    }

    static AeronPair ipc(final Path dir, final String idle)
    {
        final AeronTransport both = AeronTransport.launch(context(ProcessDirectory.parse("0-1@127.0.0.1:1"), idle)
            .medium(TransportContext.Medium.IPC).aeronDirectoryName(dir.resolve("ipc").toString()));
        return new AeronPair(both, both, "aeron-ipc");
    }

    private static TransportContext context(final ProcessDirectory directory, final String idle)
    {
        return new TransportContext()
            .frameKey(FrameKey.ofHex(99, "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"))
            .directory(directory)
            .driverIdleStrategy(idle);
    }

    boolean isConnected()
    {
        a.poll(handler);
        b.poll(handler);
        return a.isConnected(1) && b.isConnected(0);
    }

    public boolean send(final boolean fromA, final long value)
    {
        payload.putLong(0, value);
        return fromA ? a.send(0, 1, 1, payload, 0, PAYLOAD_LENGTH) : b.send(1, 0, 1, payload, 0, PAYLOAD_LENGTH);
    }

    public long poll(final boolean atA)
    {
        // Over IPC both sides share one transport: a poll for one side may deliver the other's frame,
        // so each side's latest value is kept until that side asks for it.
        (atA ? a : b).poll(handler);
        final long value;
        if (atA)
        {
            value = receivedA;
            receivedA = -1;
        }
        else
        {
            value = receivedB;
            receivedB = -1;
        }
        return value;
    }

    private void onFrame(final FrameHeader header, final DirectBuffer buffer, final int offset, final int length)
    {
        // Several frames may arrive per poll; values are sequence numbers, so the latest says it all.
        if (header.dstProcessId() == 0)
        {
            receivedA = buffer.getLong(offset);
        }
        else
        {
            receivedB = buffer.getLong(offset);
        }
    }

    public String name()
    {
        return name;
    }

    String counters()
    {
        return a == b ? a.counters().toString() : a.counters() + " / " + b.counters();
    }

    public void close()
    {
        if (a == b)
        {
            CloseHelper.quietClose(a);
        }
        else
        {
            CloseHelper.quietCloseAll(b, a);
        }
    }
}
