package io.mmx.planner.placement;

import io.mmx.planner.graph.Graph;

/**
 * RDMA queue-pair budget of a plan under a placement, against the full mesh it replaces.
 *
 * <p>Each plan edge is one reliable-connected QP at each endpoint, so a process holds as many
 * QPs as it has neighbours. A NIC (one per host) carries the QPs of its host's processes to
 * neighbours on <em>other</em> hosts only: neighbours on the same host share memory without
 * the NIC. Per-NIC means are over hosts that hold at least one process.
 */
public final class QpAccounting
{
    private final int n;
    private final int procsPerHost;
    private final int maxQpsPerProcess;
    private final double meanQpsPerProcess;
    private final int[] qpsPerNic;
    private final int maxQpsPerNic;
    private final double meanQpsPerNic;
    private final long onHostEdges;
    private final long crossHostEdges;
    private final long crossRackEdges;

    private QpAccounting(final Graph graph, final Placement placement)
    {
        n = graph.n();
        procsPerHost = placement.procsPerHost();
        qpsPerNic = new int[placement.hosts()];
        final int[] offsets = graph.offsets();
        final int[] targets = graph.targets();
        int maxProcess = 0;
        long onHost = 0;
        long crossHost = 0;
        long crossRack = 0;
        for (int u = 0; u < n; u++)
        {
            maxProcess = Math.max(maxProcess, offsets[u + 1] - offsets[u]);
            final int hostU = placement.hostOf(u);
            for (int i = offsets[u]; i < offsets[u + 1]; i++)
            {
                final int v = targets[i];
                final int hostV = placement.hostOf(v);
                if (hostV != hostU)
                {
                    // Counted from both rows, so each endpoint's NIC gets its own QP.
                    qpsPerNic[hostU]++;
                }
                if (u < v)
                {
                    if (hostU == hostV)
                    {
                        onHost++;
                    }
                    else
                    {
                        crossHost++;
                    }
                    if (placement.rackOf(u) != placement.rackOf(v))
                    {
                        crossRack++;
                    }
                }
            }
        }
        int maxNic = 0;
        long nicSum = 0;
        int occupiedHosts = 0;
        for (int h = 0; h < qpsPerNic.length; h++)
        {
            if (placement.processCountOnHost(h) > 0)
            {
                occupiedHosts++;
                nicSum += qpsPerNic[h];
                maxNic = Math.max(maxNic, qpsPerNic[h]);
            }
        }
        maxQpsPerProcess = maxProcess;
        meanQpsPerProcess = n == 0 ? 0 : (double)targets.length / n;
        maxQpsPerNic = maxNic;
        meanQpsPerNic = occupiedHosts == 0 ? 0 : (double)nicSum / occupiedHosts;
        onHostEdges = onHost;
        crossHostEdges = crossHost;
        crossRackEdges = crossRack;
    }

    /**
     * Accounts {@code graph} placed by {@code placement}.
     *
     * @throws IllegalArgumentException if the placement does not place exactly the graph's processes.
     */
    public static QpAccounting of(final Graph graph, final Placement placement)
    {
        if (placement.processes() != graph.n())
        {
            throw new IllegalArgumentException("the placement places " + placement.processes() +
                " processes but the graph has n = " + graph.n() + "; use a placement made for this graph");
        }
        return new QpAccounting(graph, placement);
    }

    /** Most queue pairs one process holds. */
    public int maxQpsPerProcess()
    {
        return maxQpsPerProcess;
    }

    /** Queue pairs per process on average. */
    public double meanQpsPerProcess()
    {
        return meanQpsPerProcess;
    }

    /** Most queue pairs one host's NIC holds. */
    public int maxQpsPerNic()
    {
        return maxQpsPerNic;
    }

    /** Queue pairs per NIC on average. */
    public double meanQpsPerNic()
    {
        return meanQpsPerNic;
    }

    /** QPs on the NIC of {@code host}: edges from its processes to processes on other hosts. */
    public int qpsOnNic(final int host)
    {
        return qpsPerNic[host];
    }

    /** A full mesh gives every process a QP to each of the other {@code n - 1}. */
    public long fullMeshQpsPerProcess()
    {
        return n - 1L;
    }

    /** A full mesh gives a full host's NIC {@code P·(n − P)} QPs: each local process to each remote one. */
    public long fullMeshQpsPerNic()
    {
        final long p = Math.min(procsPerHost, n);
        return p * (n - p);
    }

    /** Edges whose endpoints share a host: no NIC QP. */
    public long onHostEdges()
    {
        return onHostEdges;
    }

    /** Edges between different hosts: one QP on each endpoint's NIC. */
    public long crossHostEdges()
    {
        return crossHostEdges;
    }

    /** Edges between different racks (a subset of the cross-host edges). */
    public long crossRackEdges()
    {
        return crossRackEdges;
    }

    @Override
    public String toString()
    {
        return "QpAccounting(perProcess max=" + maxQpsPerProcess + " mean=" + meanQpsPerProcess +
            " vs full mesh " + fullMeshQpsPerProcess() + "; perNic max=" + maxQpsPerNic + " mean=" + meanQpsPerNic +
            " vs full mesh " + fullMeshQpsPerNic() + "; crossRackEdges=" + crossRackEdges + ")";
    }
}
