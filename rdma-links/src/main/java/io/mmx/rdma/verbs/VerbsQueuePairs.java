package io.mmx.rdma.verbs;

import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.EdgeEnds;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.region.ProcessKey;

import java.io.IOException;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * The verbs queue pairs of one node's processes, one per (process, owner, region host), shared by
 * the links of every era the node runs: the links of an era are bindings on them
 * ({@link VerbsRegionLink}), each of that era's region of the owner, granted by a handshake naming
 * the era and its plan. So a live plan change connects queue pairs only for the edges the new plan
 * adds (a CONNECT each), binds the new era's region on the queue pairs of the edges both plans share
 * (a BIND each: the host registers it in the edge's protection domain), and the ended era's links
 * close only the queue pairs of the edges it removes when it retires: the node's queue pairs follow
 * the plan diff, as {@link io.mmx.rdma.memd.MemdSessions} does on memd. A queue pair closes with its
 * last binding; the host is told of each other binding's end ({@link VerbsHandshake#OP_RELEASE}),
 * from a thread of its own so that a host that is down never holds up the agent.
 *
 * <p>{@link #connectAhead} opens the queue pairs of the edges a plan change will add before the change
 * is proposed (an OPEN each: the host admits a queue pair with no region yet), so the new era's links
 * only bind their regions on them.
 *
 * <p>Counts the queue pairs it opened and closed (one per edge end; a queue pair that failed and
 * was connected again is the same one), for status and benchmarks. The node's agent builds and
 * drives every era and is the only thread that uses a queue pair; {@link #connectAhead} connects new
 * ones on a thread of its own ({@link EdgeEnds}).
 */
public final class VerbsQueuePairs implements AutoCloseable
{
    /** Eras' regions one queue pair carries at once: the eras that may overlap. */
    public static final int MAX_BINDINGS = EdgeRegistrations.MAX_REGIONS_PER_EDGE;

    /** One edge end's queue pair: from process {@code self} to the host of {@code owner}'s regions. */
    public record Edge(int self, int owner, VerbsHostAddress host)
    {
    }

    private final VerbsEdgeConnector connector;
    private final int timeoutMs;
    private final SecureRandom random = new SecureRandom();
    private final EdgeEnds<Edge, VerbsEdgeConnection> ends =
        new EdgeEnds<>(VerbsEdgeConnection::close, VerbsEdgeConnection::close);
    private ExecutorService releases;

    /**
     * A pool over {@code connector}.
     *
     * @param timeoutMs bound on one queue pair's set-up and on each handshake exchange.
     */
    VerbsQueuePairs(final VerbsEdgeConnector connector, final int timeoutMs)
    {
        this.connector = connector;
        this.timeoutMs = timeoutMs;
    }

    /**
     * The pool of a node on verbs memory, over DiSNI's rdma_cm.
     *
     * @param connectTimeoutMs bound on one queue pair's set-up and on each handshake exchange.
     * @throws VerbsUnavailableException if libdisni, libibverbs or an RDMA device is missing.
     */
    public static VerbsQueuePairs open(final int connectTimeoutMs)
    {
        VerbsBackend.requireAvailable();
        return new VerbsQueuePairs(DisniVerbsConnector.forPool(connectTimeoutMs), connectTimeoutMs);
    }

    /**
     * A link from the process {@code key} names to {@code owner}'s region of era {@code era} (whose plan
     * is {@code plan}) on {@code host}: a new binding on the queue pair of that edge end, which is
     * connected first if there is none (or bound on if it was connected ahead).
     */
    public VerbsRegionLink link(final ProcessKey key, final int owner, final VerbsHostAddress host,
        final PlanDigest plan, final int era)
    {
        final VerbsEdgeConnection connection = ends.bind(new Edge(key.process(), owner, host),
            (edge) -> new VerbsEdgeConnection(this, edge, dial(host), key.process(), owner, MAX_BINDINGS));
        return new VerbsRegionLink(key.process(), owner, new VerbsHandshake(key, plan, era), connection);
    }

    /**
     * Connects, on a thread of its own, a queue pair for each of {@code edges} that has none, before a
     * plan change that adds those edges is proposed (an OPEN naming the new plan {@code plan} and its
     * era {@code era}), so that the links of the new neighbours are open before the change takes
     * effect and the switch only binds the new era's regions on them. A queue pair no link binds
     * within {@code keepNs} of agent time from {@code nowNs} closes at the next {@link #expire} after
     * that (the change was not made). A queue pair the host refuses (a host that serves no such plan,
     * or a version without OPEN) is not kept: the switch connects it, as without this call.
     *
     * @param keys the key of each process an edge starts at (those a node hosts).
     * @return completed with the number of queue pairs connected (fewer than the edges without one when a
     *     host refused or was unreachable).
     */
    public CompletableFuture<Integer> connectAhead(final List<Edge> edges, final IntFunction<ProcessKey> keys,
        final PlanDigest plan, final int era, final long nowNs, final long keepNs)
    {
        return ends.connectAhead(edges, (edge) ->
        {
            final VerbsEdgeConnection connection = new VerbsEdgeConnection(this, edge, dial(edge.host()),
                edge.self(), edge.owner(), MAX_BINDINGS);
            // Refused or unreachable: the switch connects it, and reports why if it fails again.
            return connection.openAhead(new VerbsHandshake(keys.apply(edge.self()), plan, era)) == null ?
                connection : null;
        }, nowNs, keepNs, "mmx-verbs-connect-ahead");
    }

    /**
     * Closes the queue pairs connected ahead that no link bound before their time ran out. Agent
     * thread only; costs one emptiness check when there are none.
     */
    public void expire(final long nowNs)
    {
        ends.expire(nowNs);
    }

    /** Queue pairs connected ahead that no link has bound yet (any thread). */
    public int unbound()
    {
        return ends.unbound();
    }

    /** Queue pairs open now, one per edge end with a binding or connected ahead (any thread). */
    public int openQueuePairs()
    {
        return ends.open();
    }

    /** Queue pairs opened since this pool was made (any thread). */
    public long queuePairsOpened()
    {
        return ends.opened();
    }

    /** Queue pairs closed since this pool was made, with their last link or unbound at expiry (any thread). */
    public long queuePairsClosed()
    {
        return ends.closed();
    }

    void closed(final VerbsEdgeConnection connection)
    {
        ends.closed((Edge)connection.edgeKey(), connection);
    }

    /** Closes every queue pair still open (their links then answer CLOSED), and stops telling hosts of releases. */
    @Override
    public void close()
    {
        ends.closeAll();
        if (releases != null)
        {
            releases.shutdown();
        }
    }

    private VerbsEdgeConnection.Dial dial(final VerbsHostAddress host)
    {
        return new VerbsEdgeConnection.Dial()
        {
            @Override
            public VerbsConnector.Connection connect(final VerbsRegionLink link, final int bindings)
            {
                return connector.connect(link.codec(), VerbsHandshake.OP_CONNECT, link.self(), link.owner(), host,
                    bindings);
            }

            @Override
            public VerbsConnector.Connection open(final VerbsHandshake codec, final int self, final int owner,
                final int bindings)
            {
                return connector.connect(codec, VerbsHandshake.OP_OPEN, self, owner, host, bindings);
            }

            @Override
            public VerbsHandshake.Grant bind(final VerbsRegionLink link)
            {
                final long nonce = random.nextLong();
                final VerbsHandshake codec = link.codec();
                try
                {
                    final byte[] reply = connector.exchange(host.handshake(), codec.request(VerbsHandshake.OP_BIND,
                        link.self(), link.owner(), 0, nonce), timeoutMs);
                    return codec.parseReply(reply, reply.length, VerbsHandshake.OP_BIND, link.self(), link.owner(),
                        nonce);
                }
                catch (final IOException ex)
                {
                    return VerbsHandshake.Grant.refused(OpStatus.NOT_CONNECTED, "process " + link.self() + " got no " +
                        "answer binding the region of process " + link.owner() + " of era " + codec.era() + " from " +
                        host.handshake() + " (" + ex.getMessage() + "): check that the host's verbs listener runs; " +
                        "it is retried on the next operation");
                }
            }

            @Override
            public void release(final VerbsRegionLink link)
            {
                final byte[] request = link.codec().request(VerbsHandshake.OP_RELEASE, link.self(), link.owner(), 0,
                    random.nextLong());
                releases().execute(() ->
                {
                    try
                    {
                        connector.exchange(host.handshake(), request, timeoutMs);
                    }
                    catch (final IOException ex)
                    {
                        // Best effort: the host drops the registration with the edge's queue pair, or after
                        // MAX_BINDINGS later eras.
                    }
                });
            }
        };
    }

    private ExecutorService releases()
    {
        if (releases == null)
        {
            releases = Executors.newSingleThreadExecutor((r) ->
            {
                final Thread t = new Thread(r, "mmx-verbs-release");
                t.setDaemon(true);
                return t;
            });
        }
        return releases;
    }

    /** Waits up to {@code timeoutMs} for the releases sent so far to be delivered (tests, shutdown). */
    boolean awaitReleases(final long timeoutMs) throws InterruptedException
    {
        if (releases == null)
        {
            return true;
        }
        final ExecutorService sent = releases;
        releases = null;
        sent.shutdown();
        return sent.awaitTermination(timeoutMs, TimeUnit.MILLISECONDS);
    }
}
