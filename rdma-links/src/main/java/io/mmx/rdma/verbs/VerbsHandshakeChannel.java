package io.mmx.rdma.verbs;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.concurrent.TimeUnit;

/**
 * Carries the two {@link VerbsHandshake} messages over TCP, one short connection per handshake:
 * the requester writes a request, the host answers with a reply (or closes the connection when
 * the request is too garbled to answer). It exists because DiSNI 2.1 cannot carry them in
 * rdma_cm private data: its {@code getCmEvent} drops the private data of a connect request and
 * its {@code accept} sends none. The messages are the same bytes either way.
 *
 * <p>The host side runs one non-blocking thread that serves many connections at once: each has
 * the I/O timeout from its accept to its reply, and at most {@link #MAX_CONNECTIONS} are open (a
 * new one then evicts the oldest), so silent or slow peers cost a few bytes each and never delay
 * another peer's exchange.
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

    private final ServerSocketChannel server;
    private final Selector selector;
    private final Responder responder;
    private final int ioTimeoutMs;
    private final Thread thread;
    // Accept order is deadline order: every peer gets the same timeout from its accept.
    private final LinkedHashSet<Peer> peers = new LinkedHashSet<>();
    private volatile boolean running = true;
    private volatile int openConnections;

    private VerbsHandshakeChannel(
        final ServerSocketChannel server, final Selector selector, final Responder responder, final int ioTimeoutMs)
    {
        this.server = server;
        this.selector = selector;
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
        ServerSocketChannel server = null;
        try
        {
            server = ServerSocketChannel.open();
            server.bind(listen, 256);
            server.configureBlocking(false);
            final Selector selector = Selector.open();
            server.register(selector, SelectionKey.OP_ACCEPT);
            return new VerbsHandshakeChannel(server, selector, responder, ioTimeoutMs);
        }
        catch (final IOException ex)
        {
            closeQuietly(server);
            throw new UncheckedIOException("the verbs handshake listener cannot bind " + listen + ": " +
                ex.getMessage() + "; pick a free port", ex);
        }
    }

    /** The address actually bound. */
    public InetSocketAddress boundAddress()
    {
        try
        {
            return (InetSocketAddress)server.getLocalAddress();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** Handshake connections open now (for tests and diagnostics). */
    public int openConnections()
    {
        return openConnections;
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
        selector.wakeup();
        try
        {
            thread.join(Math.max(1_000, ioTimeoutMs * 2L));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void run()
    {
        try
        {
            while (running)
            {
                selector.select(Math.max(1, ioTimeoutMs / 4));
                final Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext())
                {
                    final SelectionKey key = it.next();
                    it.remove();
                    if (!key.isValid())
                    {
                        continue;
                    }
                    if (key.isAcceptable())
                    {
                        accept();
                    }
                    else
                    {
                        ((Peer)key.attachment()).onReady();
                    }
                }
                expire(System.nanoTime());
            }
        }
        catch (final IOException ex)
        {
            // The selector or the listening socket failed: nothing per peer could cause that.
            System.err.println("mmx-verbs-handshake: stopped serving handshakes: " + ex);
        }
        finally
        {
            for (final Peer peer : peers.toArray(new Peer[0]))
            {
                peer.close();
            }
            closeQuietly(selector);
            closeQuietly(server);
        }
    }

    private void accept() throws IOException
    {
        SocketChannel channel;
        while ((channel = server.accept()) != null)
        {
            if (peers.size() >= MAX_CONNECTIONS)
            {
                peers.iterator().next().close();
            }
            channel.configureBlocking(false);
            channel.socket().setTcpNoDelay(true);
            final Peer peer = new Peer(channel, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ioTimeoutMs));
            peer.key = channel.register(selector, SelectionKey.OP_READ, peer);
            peers.add(peer);
            openConnections = peers.size();
        }
    }

    // A peer still reading at its deadline is judged on what arrived (the decoder refuses a short
    // request); one still writing is dropped.
    private void expire(final long nowNs)
    {
        while (!peers.isEmpty())
        {
            final Peer oldest = peers.iterator().next();
            if (nowNs - oldest.deadlineNs < 0)
            {
                return;
            }
            if (oldest.reply == null)
            {
                oldest.answer();
            }
            oldest.close();
        }
    }

    /** One handshake connection: the request read so far, then the reply being written. */
    private final class Peer
    {
        private final SocketChannel channel;
        private final long deadlineNs;
        private final ByteBuffer request = ByteBuffer.allocate(VerbsHandshake.REQUEST_LENGTH);
        private ByteBuffer reply;
        private SelectionKey key;

        Peer(final SocketChannel channel, final long deadlineNs)
        {
            this.channel = channel;
            this.deadlineNs = deadlineNs;
        }

        void onReady()
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
            if (peers.remove(this))
            {
                openConnections = peers.size();
            }
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
