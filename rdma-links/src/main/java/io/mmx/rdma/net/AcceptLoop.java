package io.mmx.rdma.net;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One thread serving a listening TCP socket without blocking, so that no peer can hold up
 * another: it accepts every connection, keeps those still in their opening exchange (memd: not
 * yet authenticated; the verbs handshake: not yet answered) in accept order, which is deadline
 * order since each gets the same time, drops the oldest of them when a new one would exceed the
 * limit, drops those past their deadline, and hands readiness to each connection. A flood of
 * silent or half-sent sockets thus holds a slot each only until the next connection arrives or
 * the opening time runs out. memd and the verbs handshake channel both run on it.
 *
 * <p>If the thread fails (an {@link OutOfMemoryError} included) it closes every connection and
 * the listening socket and reports the failure through {@link #awaitTermination()}: a server
 * must not look alive while it serves nothing.
 */
public final class AcceptLoop implements AutoCloseable
{
    /** What the loop drives; every call comes from the loop's thread. */
    public interface Handler
    {
        /**
         * A new connection, already non-blocking and without Nagle's delay: make its {@link Peer},
         * register the channel with {@code selector} with the peer attached, and return it.
         */
        Peer accepted(SocketChannel channel, Selector selector, long nowNs) throws IOException;

        /** After every select: the handler's own timeouts (memd's idle connections). */
        default void afterSelect(final long nowNs)
        {
        }

        /**
         * The loop has stopped and closed every channel; {@code failure} is null after {@link #close()},
         * else what stopped it.
         */
        default void stopped(final Throwable failure)
        {
        }
    }

    /** One connection; its selection key's attachment. */
    public interface Peer
    {
        /** Its channel is ready for what its key's interest set asked. */
        void onReady(SelectionKey key);

        /**
         * The loop drops it before its opening finished: {@code evicted} for a newer connection, else
         * past its deadline. It must close its channel.
         */
        void onDropped(boolean evicted);
    }

    private final ServerSocketChannel server;
    private final Selector selector;
    private final int maxOpening;
    private final long openingTimeoutNs;
    private final long selectMs;
    private final String threadName;
    private Handler handler;
    private volatile Thread thread;
    // Peers in their opening exchange and their deadlines, in accept order (so in deadline order).
    private final LinkedHashMap<Peer, Long> opening = new LinkedHashMap<>();
    private final CountDownLatch terminated = new CountDownLatch(1);
    private volatile boolean running = true;
    private volatile int openingCount;
    private volatile Throwable failure;

    private AcceptLoop(
        final ServerSocketChannel server,
        final Selector selector,
        final int maxOpening,
        final long openingTimeoutNs,
        final String threadName)
    {
        this.server = server;
        this.selector = selector;
        this.maxOpening = maxOpening;
        this.openingTimeoutNs = openingTimeoutNs;
        this.threadName = threadName;
        // Often enough to drop a peer at its deadline within a quarter of the opening time.
        this.selectMs = Math.max(1, Math.min(100, TimeUnit.NANOSECONDS.toMillis(openingTimeoutNs) / 4));
    }

    /**
     * Binds {@code listen}; {@link #start(Handler)} starts serving.
     *
     * @param maxOpening       connections in their opening exchange at once; a new one beyond drops the oldest.
     * @param openingTimeoutNs how long a connection may take from its accept to the end of its opening.
     * @param threadName       the name of the loop's thread.
     * @throws IOException if the address cannot be bound (nothing is left open).
     */
    public static AcceptLoop bind(
        final InetSocketAddress listen,
        final int maxOpening,
        final long openingTimeoutNs,
        final String threadName) throws IOException
    {
        Selector selector = null;
        ServerSocketChannel server = null;
        try
        {
            selector = Selector.open();
            server = ServerSocketChannel.open();
            server.bind(listen, 256);
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
        }
        catch (final IOException ex)
        {
            closeQuietly(server);
            closeQuietly(selector);
            throw ex;
        }
        return new AcceptLoop(server, selector, maxOpening, openingTimeoutNs, threadName);
    }

    /** Starts the loop's thread, driving {@code handler}; once. */
    public void start(final Handler handler)
    {
        if (this.handler != null)
        {
            throw new IllegalStateException("the accept loop of " + threadName + " is already started");
        }
        this.handler = handler;
        thread = new Thread(this::run, threadName);
        thread.setDaemon(true);
        thread.start();
    }

    /** The address actually bound (useful with port 0). */
    public InetSocketAddress boundAddress()
    {
        try
        {
            return (InetSocketAddress)server.getLocalAddress();
        }
        catch (final IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    /** Connections in their opening exchange now. */
    public int openingCount()
    {
        return openingCount;
    }

    /**
     * {@code peer} finished its opening (memd: authenticated): the loop no longer drops it. From
     * the loop's thread only.
     */
    public void opened(final Peer peer)
    {
        forget(peer);
    }

    /** {@code peer} closed itself: the loop forgets it. From the loop's thread only. */
    public void closed(final Peer peer)
    {
        forget(peer);
    }

    /**
     * Waits until the loop's thread has stopped, after {@link #close()} or a failure.
     *
     * @return null after a normal close, else what stopped the thread.
     */
    public Throwable awaitTermination() throws InterruptedException
    {
        terminated.await();
        return failure;
    }

    /** What stopped the thread, or null while it runs or after a normal close. */
    public Throwable failure()
    {
        return failure;
    }

    /**
     * Stops serving because of {@code cause} (a part of the server beside this loop failed): the
     * thread closes everything as after its own failure, and {@link #awaitTermination()} returns
     * {@code cause}. Returns at once.
     */
    public void stop(final Throwable cause)
    {
        if (failure == null)
        {
            failure = cause;
        }
        running = false;
        selector.wakeup();
    }

    /** Stops the thread, closing every connection and the listening socket; waits up to five seconds for it. */
    @Override
    public void close()
    {
        running = false;
        if (thread == null)
        {
            closeQuietly(selector);
            closeQuietly(server);
            terminated.countDown();
            return;
        }
        selector.wakeup();
        try
        {
            thread.join(5_000);
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
                selector.select(selectMs);
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
                        ((Peer)key.attachment()).onReady(key);
                    }
                }
                final long nowNs = System.nanoTime();
                expire(nowNs);
                handler.afterSelect(nowNs);
            }
        }
        catch (final Throwable ex)
        {
            // A bug or an exhausted JVM, not input (input problems are handled per connection): a server
            // that cannot serve must not look alive, so it stops and says why.
            if (failure == null)
            {
                failure = ex;
            }
        }
        finally
        {
            for (final SelectionKey key : selector.keys())
            {
                closeQuietly(key.channel());
            }
            opening.clear();
            openingCount = 0;
            closeQuietly(selector);
            closeQuietly(server);
            try
            {
                handler.stopped(failure);
            }
            finally
            {
                terminated.countDown();
            }
        }
    }

    private void accept() throws IOException
    {
        SocketChannel channel;
        while ((channel = server.accept()) != null)
        {
            if (opening.size() >= maxOpening)
            {
                drop(opening.keySet().iterator().next(), true);
            }
            channel.configureBlocking(false);
            channel.socket().setTcpNoDelay(true);
            final long nowNs = System.nanoTime();
            final Peer peer = handler.accepted(channel, selector, nowNs);
            opening.put(peer, nowNs + openingTimeoutNs);
            openingCount = opening.size();
        }
    }

    private void expire(final long nowNs)
    {
        while (!opening.isEmpty())
        {
            final Map.Entry<Peer, Long> oldest = opening.entrySet().iterator().next();
            if (nowNs - oldest.getValue() < 0)
            {
                return;
            }
            drop(oldest.getKey(), false);
        }
    }

    private void drop(final Peer peer, final boolean evicted)
    {
        forget(peer);
        peer.onDropped(evicted);
    }

    private void forget(final Peer peer)
    {
        if (opening.remove(peer) != null)
        {
            openingCount = opening.size();
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
