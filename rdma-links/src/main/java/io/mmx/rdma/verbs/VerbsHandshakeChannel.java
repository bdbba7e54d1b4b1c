package io.mmx.rdma.verbs;

import io.mmx.rdma.net.AcceptLoop;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * Carries the two {@link VerbsHandshake} messages over TCP, one short connection per handshake:
 * the requester writes a request, the host answers with a reply (or closes the connection when
 * the request is too garbled to answer). It exists because DiSNI 2.1 cannot carry them in
 * rdma_cm private data: its {@code getCmEvent} drops the private data of a connect request and
 * its {@code accept} sends none. The messages are the same bytes either way.
 *
 * <p>The host side runs on an {@link AcceptLoop}, memd's: one non-blocking thread that serves many
 * connections at once, each with the I/O timeout from its accept to its reply, at most
 * {@link #MAX_CONNECTIONS} open (a new one then evicts the oldest), so silent or slow peers cost a
 * few bytes each and never delay another peer's exchange.
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

    /** Connections served at once; a new one beyond evicts the oldest. */
    public static final int MAX_CONNECTIONS = 1024;

    private final AcceptLoop loop;
    private final Responder responder;

    private VerbsHandshakeChannel(final AcceptLoop loop, final Responder responder)
    {
        this.loop = loop;
        this.responder = responder;
    }

    /**
     * Serves handshakes on {@code listen} (port 0 picks a free port).
     *
     * @throws UncheckedIOException if the address cannot be bound.
     */
    public static VerbsHandshakeChannel serve(
        final InetSocketAddress listen, final Responder responder, final int ioTimeoutMs)
    {
        return serve(listen, responder, ioTimeoutMs, (failure) -> System.err.println(
            "mmx-verbs-handshake: stopped serving handshakes: " + failure));
    }

    /**
     * Serves handshakes on {@code listen}; {@code onFailure} hears, once, what stopped the channel's
     * thread if anything but {@link #close()} did.
     *
     * @throws UncheckedIOException if the address cannot be bound.
     */
    public static VerbsHandshakeChannel serve(
        final InetSocketAddress listen,
        final Responder responder,
        final int ioTimeoutMs,
        final java.util.function.Consumer<Throwable> onFailure)
    {
        final AcceptLoop loop;
        try
        {
            loop = AcceptLoop.bind(listen, MAX_CONNECTIONS, TimeUnit.MILLISECONDS.toNanos(ioTimeoutMs),
                "mmx-verbs-handshake");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("the verbs handshake listener cannot bind " + listen + ": " +
                ex.getMessage() + "; pick a free port", ex);
        }
        final VerbsHandshakeChannel handshakes = new VerbsHandshakeChannel(loop, responder);
        loop.start(new AcceptLoop.Handler()
        {
            @Override
            public AcceptLoop.Peer accepted(final SocketChannel channel, final Selector selector, final long nowNs)
                throws IOException
            {
                final Peer peer = handshakes.new Peer(channel);
                peer.key = channel.register(selector, SelectionKey.OP_READ, peer);
                return peer;
            }

            @Override
            public void stopped(final Throwable failure)
            {
                if (failure != null)
                {
                    onFailure.accept(failure);
                }
            }
        });
        return handshakes;
    }

    /** The address actually bound. */
    public InetSocketAddress boundAddress()
    {
        return loop.boundAddress();
    }

    /** Handshake connections open now (for tests and diagnostics). */
    public int openConnections()
    {
        return loop.openingCount();
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
        loop.close();
    }

    /** One handshake connection: the request read so far, then the reply being written. */
    private final class Peer implements AcceptLoop.Peer
    {
        private final SocketChannel channel;
        private final ByteBuffer request = ByteBuffer.allocate(VerbsHandshake.REQUEST_LENGTH);
        private ByteBuffer reply;
        private SelectionKey key;

        Peer(final SocketChannel channel)
        {
            this.channel = channel;
        }

        // A peer still reading at its deadline is judged on what arrived (the decoder refuses a short
        // request); one still writing, or evicted, is dropped.
        @Override
        public void onDropped(final boolean evicted)
        {
            if (!evicted && reply == null)
            {
                answer();
            }
            close();
        }

        @Override
        public void onReady(final SelectionKey key)
        {
            try
            {
                if (reply == null)
                {
                    final int read = channel.read(request);
                    if (read < 0 || !request.hasRemaining())
                    {
                        answer();
                    }
                }
                if (reply != null)
                {
                    channel.write(reply);
                    if (!reply.hasRemaining())
                    {
                        close();
                    }
                }
            }
            catch (final IOException ex)
            {
                close(); // one peer's failure (reset) ends its handshake only
            }
        }

        // Calls the responder once; a null reply closes the connection without one.
        void answer()
        {
            final InetSocketAddress from;
            try
            {
                from = (InetSocketAddress)channel.getRemoteAddress();
            }
            catch (final IOException ex)
            {
                close();
                return;
            }
            final byte[] bytes = responder.respond(request.array(), request.position(), from);
            if (bytes == null)
            {
                close();
                return;
            }
            reply = ByteBuffer.wrap(bytes);
            if (key.isValid())
            {
                key.interestOps(SelectionKey.OP_WRITE);
            }
        }

        void close()
        {
            loop.closed(this);
            if (key != null)
            {
                key.cancel();
            }
            closeQuietly(channel);
        }
    }

    private static void closeQuietly(final java.io.Closeable closeable)
    {
        if (closeable != null)
        {
            try
            {
                closeable.close();
            }
            catch (final IOException ignore)
            {
                // closing: nothing left to release
            }
        }
    }
}
