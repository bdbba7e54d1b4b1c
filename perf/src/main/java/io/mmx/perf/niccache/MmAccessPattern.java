package io.mmx.perf.niccache;

import io.mmx.planner.placement.Placement;

import java.util.SplittableRandom;

/**
 * The analytic access pattern of m&amp;m Paxos (DESIGN §4) on a plan and a placement.
 *
 * <p>Per NIC (one per host) the QPs are: one loopback QP per local process, through which the
 * owner bumps its heartbeat and runs its own acceptor transitions (the atomicity domain rule),
 * and one QP per (local process, off-host neighbour) pair. On-host neighbours share memory
 * without the NIC and are not counted. Each pair's QP is touched both as requester (the local
 * process operates on the neighbour's region) and as responder (the neighbour operates on the
 * local region), so both directions are summed onto it:
 * <ul>
 *   <li>a live process bumps its heartbeat (WRITE) and runs one CAS per slot on its loopback QP;</li>
 *   <li>it READs each neighbour's heartbeat word once per heartbeat period;</li>
 *   <li>for each crashed neighbour it READs the head and record, WRITEs a new record and CASes the
 *       head, once per slot each (every live neighbour does so: duplicates are harmless, so the
 *       protocol does not elect one executor);</li>
 *   <li>it catches up by bulk READs of its neighbours' decided logs, spread evenly over them.</li>
 * </ul>
 * Crashed processes issue nothing, but their regions (and QP endpoints, held by the host's
 * memory daemon) stay, so ops on them still reference the crashed process's NIC.
 */
public final class MmAccessPattern implements AccessPattern
{
    private final String name;
    private final Neighbours neighbours;
    private final Placement placement;
    private final ProtocolRates rates;
    private final boolean[] crashed;

    /**
     * @param name       for reports, e.g. "d=8" or "full mesh".
     * @param neighbours the shared-memory graph.
     * @param placement  processes per host; its process count must equal the graph's.
     * @param rates      slot rate, heartbeat period, crashed fraction, catch-up rate.
     */
    public MmAccessPattern(
        final String name, final Neighbours neighbours, final Placement placement, final ProtocolRates rates)
    {
        if (placement.processes() != neighbours.n())
        {
            throw new IllegalArgumentException("the placement holds " + placement.processes() +
                " processes but the graph has " + neighbours.n() + "; place the plan's n processes");
        }
        this.name = name;
        this.neighbours = neighbours;
        this.placement = placement;
        this.rates = rates;
        this.crashed = pickCrashed(neighbours.n(), rates.crashedFraction(), rates.crashSeed());
    }

    /** Exactly round(fraction·n) processes, chosen by a seeded partial shuffle. */
    private static boolean[] pickCrashed(final int n, final double fraction, final long seed)
    {
        final int count = (int)Math.round(fraction * n);
        final int[] ids = new int[n];
        for (int i = 0; i < n; i++)
        {
            ids[i] = i;
        }
        final SplittableRandom random = new SplittableRandom(seed);
        final boolean[] crashed = new boolean[n];
        for (int i = 0; i < count; i++)
        {
            final int j = i + random.nextInt(n - i);
            final int t = ids[i];
            ids[i] = ids[j];
            ids[j] = t;
            crashed[ids[i]] = true;
        }
        return crashed;
    }

    /** Whether process {@code p} is crashed in this pattern. */
    public boolean isCrashed(final int p)
    {
        return crashed[p];
    }

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public int nicCount()
    {
        return placement.hosts();
    }

    @Override
    public int qpCount(final int nic)
    {
        int qps = 0;
        for (final int p : placement.processesOnHost(nic))
        {
            qps++;
            final int degree = neighbours.degree(p);
            for (int i = 0; i < degree; i++)
            {
                if (placement.hostOf(neighbours.neighbour(p, i)) != nic)
                {
                    qps++;
                }
            }
        }
        return qps;
    }

    @Override
    public double offeredOpsPerSec(final int nic)
    {
        return streams(nic).totalPerSec();
    }

    @Override
    public ReferenceStream open(final int nic, final long seed)
    {
        return streams(nic).open(seed);
    }

    private WeightedStreams streams(final int nic)
    {
        final double heartbeatsPerSec = rates.heartbeatsPerSec();
        final double slotsPerSec = rates.slotsPerSec();
        final WeightedStreams streams = new WeightedStreams();
        int qpId = 0;
        for (final int p : placement.processesOnHost(nic))
        {
            final int loopback = qpId++;
            if (!crashed[p])
            {
                streams.add(loopback, OpType.WRITE, heartbeatsPerSec);
                streams.add(loopback, OpType.CAS, slotsPerSec);
            }
            final int degree = neighbours.degree(p);
            for (int i = 0; i < degree; i++)
            {
                final int q = neighbours.neighbour(p, i);
                if (placement.hostOf(q) == nic)
                {
                    continue;
                }
                final int qp = qpId++;
                addDirection(streams, qp, p, q, degree);
                addDirection(streams, qp, q, p, neighbours.degree(q));
            }
        }
        return streams;
    }

    /** The references {@code executor} makes on {@code owner}'s region through their QP. */
    private void addDirection(
        final WeightedStreams streams, final int qp, final int executor, final int owner, final int executorDegree)
    {
        if (crashed[executor])
        {
            return;
        }
        streams.add(qp, OpType.READ, rates.heartbeatsPerSec() + rates.catchUpReadsPerSec() / executorDegree);
        if (crashed[owner])
        {
            streams.add(qp, OpType.READ, rates.slotsPerSec());
            streams.add(qp, OpType.WRITE, rates.slotsPerSec());
            streams.add(qp, OpType.CAS, rates.slotsPerSec());
        }
    }
}
