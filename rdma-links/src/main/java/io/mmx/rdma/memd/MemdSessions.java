package io.mmx.rdma.memd;

import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.region.ProcessKey;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The memd sessions of one node's processes, one per (process, owner, daemon), shared by the links
 * of every plan the node runs: the links of an era are bindings on them ({@link MemdRegionLink}). So
 * a live plan change opens sessions only for the edges the new plan adds, and the ended era's links
 * close only those of the edges it removes when it retires: the node's links follow the plan diff,
 * as queue pairs on a NIC should. A session closes with its last binding.
 *
 * <p>Counts the sessions it opened and closed, for status and benchmarks. Single-threaded: the node's
 * agent builds and drives every era (the first is built before the agent starts).
 */
public final class MemdSessions implements AutoCloseable
{
    private record Edge(int self, int owner, InetSocketAddress daemon)
    {
    }

    private final int connectTimeoutMs;
    private final Map<Edge, MemdSession> open = new HashMap<>();
    // Written by the agent only; read by status and benchmark threads.
    private volatile int openCount;
    private volatile long opened;
    private volatile long closed;

    /** @param connectTimeoutMs bound on connect plus handshake of each new session. */
    public MemdSessions(final int connectTimeoutMs)
    {
        this.connectTimeoutMs = connectTimeoutMs;
    }

    /**
     * A link from the process {@code key} names to {@code owner}'s region of {@code plan} on
     * {@code daemon}: a new binding on the session of that edge, opened first if there is none.
     */
    public MemdRegionLink link(final ProcessKey key, final int owner, final InetSocketAddress daemon,
        final PlanDigest plan)
    {
        final Edge edge = new Edge(key.process(), owner, daemon);
        MemdSession session = open.get(edge);
        if (session == null)
        {
            session = new MemdSession(this, key, owner, daemon, connectTimeoutMs, true);
            open.put(edge, session);
            openCount = open.size();
            opened++;
        }
        return new MemdRegionLink(session, plan);
    }

    /** Sessions open now (any thread). */
    public int openSessions()
    {
        return openCount;
    }

    /** Sessions opened since this pool was made (any thread). */
    public long sessionsOpened()
    {
        return opened;
    }

    /** Sessions closed since this pool was made, with their last link (any thread). */
    public long sessionsClosed()
    {
        return closed;
    }

    void closed(final MemdSession session)
    {
        if (open.remove(new Edge(session.self(), session.owner(), session.daemon()), session))
        {
            openCount = open.size();
            closed++;
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
