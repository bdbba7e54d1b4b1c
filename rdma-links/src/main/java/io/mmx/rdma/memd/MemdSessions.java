package io.mmx.rdma.memd;

import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.EdgeEnds;
import io.mmx.rdma.region.ProcessKey;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
 * session; {@link #connectAhead} connects new ones on a thread of its own ({@link EdgeEnds}).
 */
public final class MemdSessions implements AutoCloseable
{
    /** One edge end's session: from process {@code self} to the daemon holding {@code owner}'s regions. */
    public record Edge(int self, int owner, InetSocketAddress daemon)
    {
    }

    private final int connectTimeoutMs;
    private final EdgeEnds<Edge, MemdSession> ends = new EdgeEnds<>(MemdSession::close, MemdSession::closeUncounted);

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
        final MemdSession session = ends.bind(new Edge(key.process(), owner, daemon),
            (edge) -> new MemdSession(this, key, owner, daemon, connectTimeoutMs, true));
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
        return ends.connectAhead(edges, (edge) -> new MemdSession(this, keys.apply(edge.self()), edge.owner(),
            edge.daemon(), connectTimeoutMs, true), nowNs, keepNs, "mmx-memd-connect-ahead");
    }

    /**
     * Closes the sessions connected ahead that no link bound before their time ran out. Agent thread
     * only; costs one emptiness check when there are none.
     */
    public void expire(final long nowNs)
    {
        ends.expire(nowNs);
    }

    /**
     * What the daemon of {@code owner}'s region said of it in the latest answer this node's sessions got
     * about that region, if it came at or after {@code sinceNs} ({@link System#nanoTime}): 1 the owner's
     * node holds a connection to the daemon (its JVM runs: a heartbeat word standing still is slowness),
     * 0 none (its JVM is gone: the kernel closed its connections), -1 no answer since then. The thread
     * that drives the sessions only (the node's agent, whose membership asks).
     */
    public int ownerConnected(final int owner, final long sinceNs)
    {
        MemdSession latest = null;
        for (final MemdSession session : ends.connections())
        {
            if (session.owner() == owner && session.ownerConnected(sinceNs) >= 0 &&
                (latest == null || session.ownerAnsweredNs() - latest.ownerAnsweredNs() > 0))
            {
                latest = session;
            }
        }
        return latest == null ? -1 : latest.ownerConnected(sinceNs);
    }

    /** Sessions connected ahead that no link has bound yet (any thread). */
    public int unbound()
    {
        return ends.unbound();
    }

    /** Sessions open now (any thread). */
    public int openSessions()
    {
        return ends.open();
    }

    /** Sessions opened since this pool was made (any thread). */
    public long sessionsOpened()
    {
        return ends.opened();
    }

    /** Sessions closed since this pool was made, with their last link (any thread). */
    public long sessionsClosed()
    {
        return ends.closed();
    }

    void closed(final MemdSession session)
    {
        ends.closed(new Edge(session.self(), session.owner(), session.daemon()), session);
    }

    /** Closes every session still open (their links then answer CLOSED). */
    @Override
    public void close()
    {
        ends.closeAll();
    }
}
