package io.mmx.rdma.memd;

import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.region.ProcessKey;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * The memd sessions of one node's processes, one per (process, owner, daemon), shared by the links
 * of every plan the node runs: the links of an era are bindings on them ({@link MemdRegionLink}). So
 * a live plan change opens sessions only for the edges the new plan adds, and the ended era's links
 * close only those of the edges it removes when it retires: the node's links follow the plan diff,
 * as queue pairs on a NIC should. A session closes with its last binding.
 *
 * <p>Counts the sessions it opened and closed, for status and benchmarks. The node's agent builds and
 * drives every era (the first is built before the agent starts) and is the only thread that uses a
 * session; {@link #connectAhead} connects new ones on a thread of its own and hands them over
 * through the pool's concurrent map, touching none the agent uses.
 */
public final class MemdSessions implements AutoCloseable
{
    /** One edge end's session: from process {@code self} to the daemon holding {@code owner}'s regions. */
    public record Edge(int self, int owner, InetSocketAddress daemon)
    {
    }

    private final int connectTimeoutMs;
    // The agent opens, binds and closes sessions; connectAhead's thread only adds new ones.
    private final Map<Edge, MemdSession> open = new ConcurrentHashMap<>();
    /** Sessions connected ahead that no link has bound yet (and that have not expired). */
    private final java.util.concurrent.atomic.AtomicInteger ahead = new java.util.concurrent.atomic.AtomicInteger();
    /** The earliest agent time at which one of those may expire ({@link Long#MAX_VALUE}: none). */
    private final AtomicLong nextExpiryNs = new AtomicLong(Long.MAX_VALUE);
    private final AtomicLong opened = new AtomicLong();
    private final AtomicLong closed = new AtomicLong();

    /** @param connectTimeoutMs bound on connect plus handshake of each new session. */
    public MemdSessions(final int connectTimeoutMs)
    {
        this.connectTimeoutMs = connectTimeoutMs;
    }

    /**
     * A link from the process {@code key} names to {@code owner}'s region of {@code plan} in
     * {@code era} on {@code daemon}: a new binding on the session of that edge, opened first if there
     * is none. Agent thread only.
     */
    public MemdRegionLink link(final ProcessKey key, final int owner, final InetSocketAddress daemon,
        final PlanDigest plan, final int era)
    {
        final Edge edge = new Edge(key.process(), owner, daemon);
        MemdSession session = open.get(edge);
        if (session == null)
        {
            session = new MemdSession(this, key, owner, daemon, connectTimeoutMs, true);
            final MemdSession ahead = open.putIfAbsent(edge, session);
            if (ahead != null)
            {
                // Connected ahead meanwhile: use that one.
                session.closeUncounted();
                session = ahead;
            }
            else
            {
                opened.incrementAndGet();
            }
        }
        if (session.connectedAhead)
        {
            session.connectedAhead = false; // bound: it lives as long as its links
            ahead.decrementAndGet();
        }
        return new MemdRegionLink(session, plan, era);
    }

    /**
     * Connects, on a thread of its own, a session for each of {@code edges} that has none, before a
     * plan change that adds those edges is proposed, so that the links of the new neighbours are open
     * before the change takes effect and the switch only binds the new era's regions on them. A
     * session no link binds within {@code keepNs} of agent time from {@code nowNs} closes at the next
     * {@link #expire} after that (the change was not made).
     *
     * @param keys the key of each process an edge starts at (those a node hosts).
     * @return completed with the number of sessions connected (an unreachable daemon's edge counts
     *     too: its session retries from the links that bind it, as any session does).
     */
    public CompletableFuture<Integer> connectAhead(final List<Edge> edges, final IntFunction<ProcessKey> keys,
        final long nowNs, final long keepNs)
    {
        final CompletableFuture<Integer> done = new CompletableFuture<>();
        final Thread thread = new Thread(() ->
        {
            int connected = 0;
            try
            {
                for (final Edge edge : edges)
                {
                    if (open.containsKey(edge))
                    {
                        continue;
                    }
                    final MemdSession session = new MemdSession(this, keys.apply(edge.self()), edge.owner(),
                        edge.daemon(), connectTimeoutMs, true);
                    // Set before the map publishes the session to the agent, which alone reads them from then on.
                    session.connectedAhead = true;
                    session.keepUntilNs = nowNs + keepNs;
                    ahead.incrementAndGet();
                    if (open.putIfAbsent(edge, session) != null)
                    {
                        ahead.decrementAndGet();
                        session.closeUncounted();
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
        }, "mmx-memd-connect-ahead");
        thread.setDaemon(true);
        thread.start();
        return done;
    }

    /**
     * Closes the sessions connected ahead that no link bound before their time ran out. Agent thread
     * only; costs one emptiness check when there are none.
     */
    public void expire(final long nowNs)
    {
        if (ahead.get() == 0 || nowNs - nextExpiryNs.get() < 0)
        {
            return;
        }
        // Reset first: a session connected while this scans either is seen below or lowers it afterwards.
        nextExpiryNs.set(Long.MAX_VALUE);
        for (final MemdSession session : open.values())
        {
            if (session.connectedAhead)
            {
                if (nowNs - session.keepUntilNs >= 0)
                {
                    session.close(); // no link bound it: the change did not come
                }
                else
                {
                    nextExpiryNs.accumulateAndGet(session.keepUntilNs, Math::min);
                }
            }
        }
    }

    /** Sessions connected ahead that no link has bound yet (any thread). */
    public int unbound()
    {
        return ahead.get();
    }

    /** Sessions open now (any thread). */
    public int openSessions()
    {
        return open.size();
    }

    /** Sessions opened since this pool was made (any thread). */
    public long sessionsOpened()
    {
        return opened.get();
    }

    /** Sessions closed since this pool was made, with their last link (any thread). */
    public long sessionsClosed()
    {
        return closed.get();
    }

    void closed(final MemdSession session)
    {
        if (session.connectedAhead)
        {
            session.connectedAhead = false;
            ahead.decrementAndGet();
        }
        if (open.remove(new Edge(session.self(), session.owner(), session.daemon()), session))
        {
            closed.incrementAndGet();
        }
    }

    /** Closes every session still open (their links then answer CLOSED). */
    @Override
    public void close()
    {
        final List<MemdSession> all = new ArrayList<>(open.values());
        for (final MemdSession session : all)
        {
            session.close();
        }
    }
}
