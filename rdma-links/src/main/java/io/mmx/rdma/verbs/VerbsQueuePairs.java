package io.mmx.rdma.verbs;

import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.region.ProcessKey;

import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

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
 * <p>Counts the queue pairs it opened and closed (one per edge end; a queue pair that failed and
 * was connected again is the same one), for status and benchmarks. Single-threaded: the node's
 * agent builds and drives every era.
 */
public final class VerbsQueuePairs implements AutoCloseable
{
    /** Eras' regions one queue pair carries at once: the eras that may overlap. */
    public static final int MAX_BINDINGS = EdgeRegistrations.MAX_REGIONS_PER_EDGE;

    private record Edge(int self, int owner, VerbsHostAddress host)
    {
    }

    private final VerbsEdgeConnector connector;
    private final int timeoutMs;
    private final SecureRandom random = new SecureRandom();
    private final Map<Edge, VerbsEdgeConnection> open = new HashMap<>();
    private ExecutorService releases;
    // Written by the agent only; read by status and benchmark threads.
    private volatile int openCount;
    private volatile long opened;
    private volatile long closed;

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
     * connected first if there is none.
     */
    public VerbsRegionLink link(final ProcessKey key, final int owner, final VerbsHostAddress host,
        final PlanDigest plan, final int era)
    {
        final Edge edge = new Edge(key.process(), owner, host);
        VerbsEdgeConnection connection = open.get(edge);
        if (connection == null)
        {
            connection = new VerbsEdgeConnection(this, edge, dial(host), key.process(), owner, MAX_BINDINGS);
            open.put(edge, connection);
            openCount = open.size();
            opened++;
        }
        return new VerbsRegionLink(key.process(), owner, new VerbsHandshake(key, plan, era), connection);
    }

    /** Queue pairs open now, one per edge end with a binding (any thread). */
    public int openQueuePairs()
    {
        return openCount;
    }

    /** Queue pairs opened since this pool was made (any thread). */
    public long queuePairsOpened()
    {
        return opened;
    }

    /** Queue pairs closed since this pool was made, with their last link (any thread). */
    public long queuePairsClosed()
    {
        return closed;
    }

    void closed(final VerbsEdgeConnection connection)
    {
        if (open.remove((Edge)connection.edgeKey(), connection))
        {
            openCount = open.size();
            closed++;
        }
    }

    /** Closes every queue pair still open (their links then answer CLOSED), and stops telling hosts of releases. */
    @Override
    public void close()
    {
        final List<VerbsEdgeConnection> all = new ArrayList<>(open.values());
        for (final VerbsEdgeConnection connection : all)
        {
            connection.close();
        }
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
                return connector.connect(link.codec(), link.self(), link.owner(), host, bindings);
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
