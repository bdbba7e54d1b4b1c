package io.mmx.rdma.fabric;

import io.mmx.planner.graph.Graph;
import org.agrona.CloseHelper;

/**
 * Opens one link per plan edge at a process, plus the loopback link to its own region, and
 * nothing else. DESIGN §4: the owner's acceptor words are accessed through the fabric too, so
 * that NIC atomics never race with CPU atomics; the loopback link is how.
 *
 * <p>The number of connections a process holds (its queue pairs on verbs) is
 * {@code degree(self) + 1}: {@link #remoteConnectionCount()} of them to neighbours and one loopback.
 */
public final class ConnectionManager implements AutoCloseable
{
    private final Graph plan;
    private final int self;
    private final int[] peers;
    private final RegionLink[] peerLinks;
    private final RegionLink loopback;
    /** The links {@link #doWork} polls: those that do not {@link RegionLink#completesInline()}. */
    private final RegionLink[] polled;

    private ConnectionManager(final Graph plan, final int self, final RegionLinkFactory factory)
    {
        this.plan = plan;
        this.self = self;
        this.peers = plan.neighbours(self);
        this.peerLinks = new RegionLink[peers.length];
        RegionLink ownLink = null;
        try
        {
            ownLink = factory.open(self, self);
            for (int i = 0; i < peers.length; i++)
            {
                peerLinks[i] = factory.open(self, peers[i]);
            }
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.closeAll(peerLinks);
            CloseHelper.close(ownLink);
            throw ex;
        }
        this.loopback = ownLink;
        final java.util.List<RegionLink> active = new java.util.ArrayList<>();
        if (!ownLink.completesInline())
        {
            active.add(ownLink);
        }
        for (final RegionLink link : peerLinks)
        {
            if (!link.completesInline())
            {
                active.add(link);
            }
        }
        this.polled = active.toArray(new RegionLink[0]);
    }

    /**
     * Opens the links of process {@code self} under {@code plan}.
     *
     * @throws IllegalArgumentException if {@code self} is not a process of the plan.
     */
    public static ConnectionManager open(final Graph plan, final int self, final RegionLinkFactory factory)
    {
        if (self < 0 || self >= plan.n())
        {
            throw new IllegalArgumentException("process id " + self + " is not in the plan of " + plan.n() +
                " processes: ids are 0.." + (plan.n() - 1));
        }
        return new ConnectionManager(plan, self, factory);
    }

    /** The plan these links follow. */
    public Graph plan()
    {
        return plan;
    }

    /** The process these links belong to. */
    public int selfId()
    {
        return self;
    }

    /** The link to {@code owner}'s region, or null if {@code owner} is neither self nor a plan neighbour. */
    public RegionLink link(final int owner)
    {
        if (owner == self)
        {
            return loopback;
        }
        // Neighbour rows are sorted: binary search keeps this allocation-free on the data path.
        int lo = 0;
        int hi = peers.length - 1;
        while (lo <= hi)
        {
            final int mid = (lo + hi) >>> 1;
            final int v = peers[mid];
            if (v < owner)
            {
                lo = mid + 1;
            }
            else if (v > owner)
            {
                hi = mid - 1;
            }
            else
            {
                return peerLinks[mid];
            }
        }
        return null;
    }

    /** Number of links to other processes: exactly the plan degree of self. */
    public int remoteConnectionCount()
    {
        return peerLinks.length;
    }

    /** All connections held, loopback included: the queue pairs this process needs on verbs. */
    public int connectionCount()
    {
        return peerLinks.length + 1;
    }

    /** A copy of the plan neighbours this process is linked to, ascending. */
    public int[] linkedPeers()
    {
        return peers.clone();
    }

    /** Calls {@link RegionLink#doWork} on every link; returns the total work. */
    public int doWork(final CompletionSink sink)
    {
        int work = 0;
        for (final RegionLink link : polled)
        {
            work += link.doWork(sink);
        }
        return work;
    }

    @Override
    public void close()
    {
        CloseHelper.closeAll(peerLinks);
        CloseHelper.close(loopback);
    }
}
