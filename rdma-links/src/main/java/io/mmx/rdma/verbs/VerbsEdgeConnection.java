package io.mmx.rdma.verbs;

import io.mmx.rdma.fabric.OpStatus;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The RC queue pair of one edge end (a process to the region host of one owner), shared by the
 * links of every era the process runs: each {@link VerbsRegionLink} is a binding of one era's region
 * on it (its rkey, base and size, obtained by a handshake naming that era), with its own slots in a
 * share of the connection's registered scratch memory. A live plan change keeps the queue pair of an
 * edge both plans share and binds the new era's region on it ({@link VerbsHandshake#OP_BIND}: the
 * host registers it in the edge's protection domain, where the queue pair reaches it); the queue
 * pair closes with its last binding.
 *
 * <p>A work request's id carries its binding, the binding's incarnation and its slot, so a completion
 * reaches the link that posted it, and one of a released binding reaches nobody. An error completion
 * moves an RC queue pair to the error state whichever binding it belongs to: every binding's
 * operations complete at once ({@link VerbsRegionLink}) and the queue pair is connected again on the
 * next operation of any binding, the others binding again on theirs. Single-threaded: one agent
 * submits and polls every binding.
 */
final class VerbsEdgeConnection
{
    /** The native side: a new queue pair with the grant of one binding's region, or that region on the existing one. */
    interface Dial
    {
        /** Opens a new queue pair (scratch for {@code bindings} links) with a CONNECT for {@code link}'s region; never throws. */
        VerbsConnector.Connection connect(VerbsRegionLink link, int bindings);

        /**
         * Opens a new queue pair of process {@code self} to {@code owner}'s host (scratch for
         * {@code bindings} links) with no region on it yet: an OPEN under {@code codec}, which names the
         * plan and era the queue pair is opened ahead of; never throws.
         */
        VerbsConnector.Connection open(VerbsHandshake codec, int self, int owner, int bindings);

        /** A BIND of {@code link}'s region on the open queue pair; never throws. */
        VerbsHandshake.Grant bind(VerbsRegionLink link);

        /** The binding of {@code link}'s region ended: the host may deregister it (best effort, never blocks long). */
        void release(VerbsRegionLink link);
    }

    private static final int SLOT_BITS = 16;
    private static final int BINDING_BITS = 16;

    private final VerbsQueuePairs pool;
    private final Dial dial;
    private final int self;
    private final int owner;
    private final Object edgeKey;
    private final VerbsRegionLink[] links;
    private final int[] incarnations;
    private final VerbsQueuePair.WorkCompletionHandler onWorkCompletion = this::onWorkCompletion;
    private VerbsConnector.Connection connection;
    private int generation;
    private int bindings;
    private boolean closed;

    /**
     * @param pool     where the connection leaves when its last binding is released, or null.
     * @param edgeKey  the pool's key of this edge end.
     * @param capacity bindings at once (each needs {@link VerbsRegionLink#SCRATCH_BYTES} of scratch).
     */
    VerbsEdgeConnection(final VerbsQueuePairs pool, final Object edgeKey, final Dial dial, final int self,
        final int owner, final int capacity)
    {
        this.pool = pool;
        this.edgeKey = edgeKey;
        this.dial = dial;
        this.self = self;
        this.owner = owner;
        this.links = new VerbsRegionLink[capacity];
        this.incarnations = new int[capacity];
        this.connection = VerbsConnector.Connection.failed(OpStatus.NOT_CONNECTED, "the queue pair of process " +
            self + " to the region of process " + owner + " is not connected yet");
    }

    int self()
    {
        return self;
    }

    int owner()
    {
        return owner;
    }

    Object edgeKey()
    {
        return edgeKey;
    }

    /**
     * Connects the queue pair with no binding, ahead of the era {@code codec} names (an OPEN): that
     * era's links then bind their regions on it (a BIND each) instead of connecting it.
     *
     * @return the failure, or null when the queue pair is up.
     */
    VerbsConnector.Connection openAhead(final VerbsHandshake codec)
    {
        final VerbsConnector.Connection opened = dial.open(codec, self, owner, links.length);
        if (opened.status() != OpStatus.OK)
        {
            return opened;
        }
        connection = opened;
        checkScratch();
        generation++;
        return null;
    }

    /** Whether a queue pair is up now. */
    boolean connected()
    {
        return connection.status() == OpStatus.OK;
    }

    /** Bindings held now. */
    int bindings()
    {
        return bindings;
    }

    /**
     * Takes a free binding for {@code link}.
     *
     * @throws IllegalStateException when every binding is taken.
     */
    int bind(final VerbsRegionLink link)
    {
        for (int b = 0; b < links.length; b++)
        {
            if (links[b] == null)
            {
                links[b] = link;
                incarnations[b]++;
                bindings++;
                return b;
            }
        }
        throw new IllegalStateException("the queue pair of process " + self + " to the region of process " + owner +
            " already carries " + links.length + " eras' regions: at most " + links.length + " eras can overlap; " +
            "wait for the ended eras to retire before another plan change");
    }

    /**
     * Makes {@code link}'s binding usable if it can be: connects the queue pair if there is none
     * (with {@code link}'s region as the first binding), or binds {@code link}'s region on the queue
     * pair it has not been bound on yet. A binding the host refused for good stays refused.
     *
     * @return true when {@code link} may post.
     */
    boolean ready(final VerbsRegionLink link)
    {
        if (closed)
        {
            return false;
        }
        if (link.status() == OpStatus.OK && boundNow(link))
        {
            return true;
        }
        if (link.status() != OpStatus.OK && !retryable(link.status()))
        {
            return false; // refused for good: not a neighbour, another plan, another key
        }
        if (connection.status() != OpStatus.OK)
        {
            connection = dial.connect(link, links.length);
            if (connection.status() != OpStatus.OK)
            {
                link.refused(connection.status(), connection.message());
                return false;
            }
            checkScratch();
            generation++;
            link.bound(generation, connection.remoteBase(), connection.rkey(), connection.dataBytes(),
                connection.message());
            return true;
        }
        if (link.generation() != generation)
        {
            final VerbsHandshake.Grant grant = dial.bind(link);
            if (grant.status() != OpStatus.OK)
            {
                link.refused(grant.status(), grant.message());
                return false;
            }
            link.bound(generation, grant.remoteBase(), grant.rkey(), grant.dataBytes(), grant.message());
        }
        return link.status() == OpStatus.OK;
    }

    /** Whether {@code link} is bound on the queue pair up now. */
    boolean boundNow(final VerbsRegionLink link)
    {
        return !closed && connection.status() == OpStatus.OK && link.generation() == generation;
    }

    /** The queue pair up now; only when {@link #boundNow}. */
    VerbsQueuePair queuePair()
    {
        return connection.queuePair();
    }

    /** The scratch memory of the queue pair up now (one share per binding). */
    AtomicBuffer scratch()
    {
        return connection.scratch();
    }

    int lkey()
    {
        return connection.lkey();
    }

    /** The work request id of {@code slot} of {@code binding}, carrying the binding's incarnation. */
    long workRequestId(final int binding, final int slot)
    {
        return ((long)incarnations[binding] << (SLOT_BITS + BINDING_BITS)) | ((long)binding << SLOT_BITS) | slot;
    }

    /** Polls the queue pair; completions go to the links that posted them. */
    int doWork(final int max)
    {
        final VerbsQueuePair qp = connection.queuePair();
        return closed || qp == null ? 0 : qp.poll(onWorkCompletion, max);
    }

    /**
     * Releases {@code binding}: its completions still due reach nobody, the host is told (best effort)
     * when the queue pair is up, and the queue pair closes with the last binding.
     */
    void release(final int binding)
    {
        final VerbsRegionLink link = links[binding];
        if (link == null)
        {
            return;
        }
        links[binding] = null;
        bindings--;
        if (bindings == 0)
        {
            close();
            return;
        }
        if (boundNow(link))
        {
            dial.release(link);
        }
    }

    /** Destroys the queue pair; every binding is then CLOSED. */
    void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (connection.queuePair() != null)
        {
            connection.queuePair().close();
        }
        connection = VerbsConnector.Connection.failed(OpStatus.CLOSED, "the queue pair of process " + self +
            " to the region of process " + owner + " is closed");
        if (pool != null)
        {
            pool.closed(this);
        }
    }

    private void onWorkCompletion(final long wrId, final int wcStatus)
    {
        final int slot = (int)(wrId & ((1 << SLOT_BITS) - 1));
        final int binding = (int)((wrId >>> SLOT_BITS) & ((1 << BINDING_BITS) - 1));
        final int incarnation = (int)(wrId >>> (SLOT_BITS + BINDING_BITS));
        final VerbsRegionLink link = binding < links.length && incarnations[binding] == incarnation ?
            links[binding] : null;
        if (wcStatus == VerbsAbi.IBV_WC_SUCCESS)
        {
            if (link != null)
            {
                link.completed(slot);
            }
            return; // else: a request of a released binding
        }
        if (connection.queuePair() == null)
        {
            return; // the flushed rest of a queue pair already failed in this poll
        }
        // Any error completion puts the RC queue pair in the error state, whichever binding posted it.
        failQueuePair(link, slot, wcStatus);
    }

    private void failQueuePair(final VerbsRegionLink failed, final int failedSlot, final int wcStatus)
    {
        if (connection.queuePair() != null)
        {
            connection.queuePair().close();
        }
        final String message = "the queue pair to process " + owner + " failed with work completion status " +
            wcStatus + (wcStatus == VerbsAbi.IBV_WC_REM_ACCESS_ERR ?
            " (remote access error: the grant's rkey or size no longer matches the region)" : "") +
            "; it is reconnected on the next operation";
        connection = VerbsConnector.Connection.failed(OpStatus.NOT_CONNECTED, message);
        for (final VerbsRegionLink link : links)
        {
            if (link != null)
            {
                link.queuePairFailed(message, link == failed ? failedSlot : -1, wcStatus);
            }
        }
    }

    private void checkScratch()
    {
        final int needed = links.length * VerbsRegionLink.SCRATCH_BYTES;
        if (connection.scratch().capacity() < needed)
        {
            final int capacity = connection.scratch().capacity();
            connection.queuePair().close();
            connection = VerbsConnector.Connection.failed(OpStatus.CLOSED, "closed for a bug");
            throw new IllegalArgumentException("verbs scratch memory is " + capacity + " bytes, a queue pair of " +
                links.length + " binding(s) needs " + needed + ": register VerbsRegionLink.SCRATCH_BYTES per binding");
        }
    }

    private static boolean retryable(final OpStatus status)
    {
        return status == OpStatus.NOT_CONNECTED || status == OpStatus.REGION_LOST;
    }
}
