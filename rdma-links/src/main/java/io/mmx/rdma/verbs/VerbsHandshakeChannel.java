package io.mmx.rdma.verbs;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Arrays;

/**
 * Carries the two {@link VerbsHandshake} messages over TCP, one short connection per handshake:
 * the requester writes a request, the host answers with a reply (or closes the connection when
 * the request is too garbled to answer). It exists because DiSNI 2.1 cannot carry them in
 * rdma_cm private data: its {@code getCmEvent} drops the private data of a connect request and
 * its {@code accept} sends none. The messages are the same bytes either way.
 *
 * <p>The host side runs one thread that serves connections one at a time, each bounded by the
 * I/O timeout, so a peer that never writes costs one timeout, not a thread.
 */
public final class VerbsHandshakeChannel implements AutoCloseable
{
    /** Answers a request; returns the reply, or null to close without one. */
    @FunctionalInterface
    public interface Responder
    {
        /**
         * @param request the bytes read (up to {@link VerbsHandshake#REQUEST_LENGTH}).
         * @param length  how many were read before the peer stopped.
         * @param from    the peer's address.
         */
        byte[] respond(byte[] request, int length, InetSocketAddress from);
    }

    private final ServerSocket server;
    private final Responder responder;
    private final int ioTimeoutMs;
    private final Thread thread;
    private volatile boolean running = true;

    private VerbsHandshakeChannel(final ServerSocket server, final Responder responder, final int ioTimeoutMs)
    {
        this.server = server;
        this.responder = responder;
        this.ioTimeoutMs = ioTimeoutMs;
        this.thread = new Thread(this::run, "mmx-verbs-handshake");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Serves handshakes on {@code listen} (port 0 picks a free port).
     *
     * @throws UncheckedIOException if the address cannot be bound.
     */
    public static VerbsHandshakeChannel serve(
        final InetSocketAddress listen, final Responder responder, final int ioTimeoutMs)
    {
        try
        {
            final ServerSocket server = new ServerSocket();
            server.bind(listen, 256);
            return new VerbsHandshakeChannel(server, responder, ioTimeoutMs);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("the verbs handshake listener cannot bind " + listen + ": " +
                ex.getMessage() + "; pick a free port", ex);
        }
    }

    /** The address actually bound. */
    public InetSocketAddress boundAddress()
    {
        return (InetSocketAddress)server.getLocalSocketAddress();
    }

    /**
     * The requester side: sends {@code request} to {@code host} and returns the reply bytes.
     *
     * @throws IOException if the host is unreachable, closes without a full reply, or is slower than the timeout.
     */
    public static byte[] exchange(final InetSocketAddress host, final byte[] request, final int timeoutMs)
        throws IOException
    {
        try (Socket socket = new Socket())
        {
            socket.connect(host, timeoutMs);
            socket.setSoTimeout(timeoutMs);
            socket.setTcpNoDelay(true);
            socket.getOutputStream().write(request);
            socket.getOutputStream().flush();
            final byte[] reply = new byte[VerbsHandshake.REPLY_LENGTH];
            new DataInputStream(socket.getInputStream()).readFully(reply);
            return reply;
        }
        catch (final EOFException ex)
        {
            throw new IOException("the host " + host + " closed the handshake without a full reply", ex);
        }
    }

    @Override
    public void close()
    {
        running = false;
        try
        {
            server.close();
        }
        catch (final IOException ignore)
        {
            // closing: nothing left to release
        }
        try
        {
            thread.join(ioTimeoutMs * 2L);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void run()
    {
        while (running)
        {
            try (Socket socket = server.accept())
            {
                socket.setSoTimeout(ioTimeoutMs);
                final byte[] request = new byte[VerbsHandshake.REQUEST_LENGTH];
                final int length = readUpTo(socket.getInputStream(), request);
                final byte[] reply = responder.respond(request, length,
                    (InetSocketAddress)socket.getRemoteSocketAddress());
                if (reply != null)
                {
                    socket.getOutputStream().write(reply);
                    socket.getOutputStream().flush();
                }
            }
            catch (final SocketException ex)
            {
                if (!running)
                {
                    return;
                }
            }
            catch (final IOException ex)
            {
                // one peer's failure (timeout, reset) ends its handshake only
            }
        }
    }

    private static int readUpTo(final InputStream in, final byte[] into) throws IOException
    {
        int n = 0;
        try
        {
            while (n < into.length)
            {
                final int r = in.read(into, n, into.length - n);
                if (r < 0)
                {
                    break;
                }
                n += r;
            }
        }
        catch (final java.net.SocketTimeoutException ex)
        {
            // a short request is judged as what arrived; the decoder refuses it as garbled
            Arrays.fill(into, n, into.length, (byte)0);
        }
        return n;
    }
}
