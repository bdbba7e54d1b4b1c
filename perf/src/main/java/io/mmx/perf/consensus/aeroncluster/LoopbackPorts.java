package io.mmx.perf.consensus.aeroncluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Free UDP ports on 127.0.0.1, chosen by the kernel. Every socket stays bound until all are chosen so the
 * ports are distinct; another process could still take one before Aeron binds it, which fails the start
 * with a bind error rather than a silent mix-up.
 */
final class LoopbackPorts
{
    /** Every endpoint of the baseline binds here: IPv4 loopback, never a name that could resolve elsewhere. */
    static final String HOST = "127.0.0.1";

    private LoopbackPorts()
    {
    }

    static int[] reserve(final int count)
    {
        final DatagramSocket[] sockets = new DatagramSocket[count];
        try
        {
            final InetAddress loopback = InetAddress.getByName(HOST);
            final int[] ports = new int[count];
            for (int i = 0; i < count; i++)
            {
                sockets[i] = new DatagramSocket(new InetSocketAddress(loopback, 0));
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("could not bind a UDP port on loopback", ex);
        }
        finally
        {
            for (final DatagramSocket socket : sockets)
            {
                if (socket != null)
                {
                    socket.close();
                }
            }
        }
    }
}
