package io.mmx.rdma.fabric;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The connections of one node's edge ends (a hosted process to the holder of one owner's regions),
 * one per edge end, shared by the links of every era the node runs, and the bookkeeping of those
 * connected ahead of a plan change: memd sessions ({@link io.mmx.rdma.memd.MemdSessions}) and verbs
 * queue pairs ({@link io.mmx.rdma.verbs.VerbsQueuePairs}) are each a pool over one of these.
 *
 * <p>The node's agent binds, closes and expires connections; {@link #connectAhead} connects new ones
 * on a thread of its own and hands them over through the concurrent map, touching none the agent
 * uses. A connection made ahead that no link binds within its keep time closes at the next
 * {@link #expire} after it (the change was not made). Counts the connections opened and closed,
 * for status and benchmarks (any thread).
 *
 * @param <E> the edge end (a record: self, owner, where the owner's regions are).
 * @param <C> the connection; its {@code close} reports back through {@link #closed}.
 */
public final class EdgeEnds<E, C>
{
    private final Map<E, C> open = new ConcurrentHashMap<>();
    /** Connections made ahead that no link bound yet, with the agent time until which each is kept. */
    private final Map<C, Long> ahead = new ConcurrentHashMap<>();
    /** The earliest agent time at which one of those may expire ({@link Long#MAX_VALUE}: none). */
    private final AtomicLong nextExpiryNs = new AtomicLong(Long.MAX_VALUE);
    private final AtomicLong opened = new AtomicLong();
    private final AtomicLong closed = new AtomicLong();
    private final Consumer<C> close;
    private final Consumer<C> discard;

    /**
     * @param close   closes a connection of the pool (it then reports through {@link #closed}).
     * @param discard closes a connection that lost the race to join the pool (never counted).
     */
    public EdgeEnds(final Consumer<C> close, final Consumer<C> discard)
    {
        this.close = close;
        this.discard = discard;
    }

    /**
     * The connection of {@code edge}, made by {@code make} first if there is none, for a link to bind
     * on: if it was connected ahead it is kept from then on as long as its links. Agent thread only.
     */
    public C bind(final E edge, final Function<E, C> make)
    {
        C connection = open.get(edge);
        if (connection == null)
        {
            final C made = make.apply(edge);
            connection = open.putIfAbsent(edge, made);
            if (connection != null)
            {
                discard.accept(made); // connected ahead meanwhile: use that one
            }
            else
            {
                connection = made;
                opened.incrementAndGet();
            }
        }
        ahead.remove(connection);
        return connection;
    }

    /**
     * Connects, on a thread named {@code threadName}, a connection for each of {@code edges} that has
     * none, kept until {@code nowNs + keepNs} of agent time unless a link binds it.
     *
     * @param connect makes an edge's connection, or returns null when it could not (the switch
     *                connects it then, as without this call).
     * @return completed with the number of connections made.
     */
    public CompletableFuture<Integer> connectAhead(final List<E> edges, final Function<E, C> connect,
        final long nowNs, final long keepNs, final String threadName)
    {
        final CompletableFuture<Integer> done = new CompletableFuture<>();
        final Thread thread = new Thread(() ->
        {
            int connected = 0;
            try
            {
                for (final E edge : edges)
                {
                    if (open.containsKey(edge))
                    {
                        continue;
                    }
                    final C connection = connect.apply(edge);
                    if (connection == null)
                    {
                        continue;
                    }
                    // Marked before the map publishes it to the agent.
                    ahead.put(connection, nowNs + keepNs);
                    if (open.putIfAbsent(edge, connection) != null)
                    {
                        ahead.remove(connection);
                        discard.accept(connection);
                        continue;
                    }
                    nextExpiryNs.accumulateAndGet(nowNs + keepNs, Math::min);
                    opened.incrementAndGet();
                    connected++;
                }
                done.complete(connected);
            }
            catch (final RuntimeException ex)
            {
                done.completeExceptionally(ex);
            }
        }, threadName);
        thread.setDaemon(true);
        thread.start();
        return done;
    }

    /**
     * Closes the connections made ahead that no link bound before their time ran out. Agent thread
     * only; costs one emptiness check when there are none.
     */
    public void expire(final long nowNs)
    {
        if (ahead.isEmpty() || nowNs - nextExpiryNs.get() < 0)
        {
            return;
        }
        // Reset first: a connection made while this scans either is seen below or lowers it afterwards.
        nextExpiryNs.set(Long.MAX_VALUE);
        for (final Map.Entry<C, Long> entry : ahead.entrySet())
        {
            final long keepUntilNs = entry.getValue();
            if (nowNs - keepUntilNs >= 0)
            {
                close.accept(entry.getKey()); // no link bound it: the change did not come
            }
            else
            {
                nextExpiryNs.accumulateAndGet(keepUntilNs, Math::min);
            }
        }
    }

    /** {@code connection} of {@code edge} closed: it leaves the pool (counted once). */
    public void closed(final E edge, final C connection)
    {
        ahead.remove(connection);
        if (open.remove(edge, connection))
        {
            closed.incrementAndGet();
        }
    }

    /** Closes every connection still open. */
    public void closeAll()
    {
        new ArrayList<>(open.values()).forEach(close);
    }

    /** The connections open now, a live view (any thread). */
    public java.util.Collection<C> connections()
    {
        return java.util.Collections.unmodifiableCollection(open.values());
    }

    /** Connections made ahead that no link has bound yet (any thread). */
    public int unbound()
    {
        return ahead.size();
    }

    /** Connections open now (any thread). */
    public int open()
    {
        return open.size();
    }

    /** Connections opened since the pool was made (any thread). */
    public long opened()
    {
        return opened.get();
    }

    /** Connections closed since the pool was made (any thread). */
    public long closed()
    {
        return closed.get();
    }
}
