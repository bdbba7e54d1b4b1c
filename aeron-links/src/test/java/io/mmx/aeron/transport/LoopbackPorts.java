package io.mmx.aeron.transport;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.UnknownHostException;

/**
 * Free UDP ports on 127.0.0.1 for tests.
 */
public final class LoopbackPorts
{
    private LoopbackPorts()
    {
    }

    /**
     * @param count how many distinct ports.
     * @return ports that were free a moment ago.
     */
    public static int[] freeUdpPorts(final int count)
    {
        final DatagramSocket[] sockets = new DatagramSocket[count];
        final int[] ports = new int[count];
        try
        {
            for (int i = 0; i < count; i++)
            {
                sockets[i] = new DatagramSocket(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
                ports[i] = sockets[i].getLocalPort();
            }
        }
        catch (final SocketException | UnknownHostException ex)
        {
            throw new IllegalStateException(ex);
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
        return ports;
    }
}
