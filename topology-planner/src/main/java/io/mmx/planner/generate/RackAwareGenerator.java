package io.mmx.planner.generate;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.placement.Placement;

import java.util.SplittableRandom;

/**
 * Random connected d-regular graphs ({@value #NAME}) in which at most a given fraction of each
 * process's edges leave its rack. A process in rack r gets
 * {@code x_r = min(floor(cap·d), round(d·(n − s_r)/(n − 1)))} cross-rack edges, where s_r is
 * the rack's size (the second term is what a uniform random graph gives on average: more
 * buys no expansion), and {@code d − x_r} edges inside its rack; when parity demands, one
 * process per rack gets one cross-rack edge fewer (one more if x_r is 0, still within the
 * cap). Both parts are random (configuration model plus switches, as in
 * {@link RandomRegularGenerator}), so each rack is an expander and so is the graph of racks.
 *
 * <p>The trade-off the cap sets:
 * <ul>
 *   <li><b>Expansion, hence process-crash tolerance</b>, grows with x. The rack indicator
 *   vectors give λ2 ≳ d − x·R/(R − 1) for R equal racks, so with few cross-rack edges all live
 *   processes in a minority of racks reach few regions outside them. Measured at n = 4096,
 *   d = 8, 16 racks: λ2 ≈ 7.2, 6.4, 5.7, 5.3 for x = 1, 2, 3, 4, against 5.3 (≈ 2√7) for a
 *   plain random graph, so for d = 8 a cap of 1/2 costs no expansion and 3/8 little.</li>
 *   <li><b>Rack failures.</b> A failed rack takes its processes' regions with it, so its
 *   processes count as crashed whatever the graph: how many racks may fail is set by their
 *   share of the processes, as for message-passing crashes, and no cap changes it. The cap
 *   changes only what the survivors keep: each loses about x/(R − 1) neighbours' regions with
 *   a failed rack (d/R in a plain random graph), so a low cap leaves them slightly more
 *   degree for further process crashes, a small gain next to the expansion it costs.</li>
 *   <li><b>Network.</b> Cross-rack edges carry one-sided RDMA through the rack uplinks and
 *   spine (longer latency, shared bandwidth). NIC QPs do not change with the cap: every
 *   off-host edge costs one QP on each endpoint's NIC whether or not it leaves the rack; only
 *   on-host edges are free (see {@code QpAccounting}).</li>
 * </ul>
 */
public final class RackAwareGenerator implements GraphGenerator
{
    /** Name recorded in plans. */
    public static final String NAME = "rack-aware";
    private static final int MAX_PAIRINGS = 256;

    private final Placement placement;
    private final double maxCrossRackFraction;

    /**
     * @param placement            where each process runs; the graph has {@code placement.processes()} vertices
     * @param maxCrossRackFraction cap on the fraction of each process's edges that leave its rack, in [0, 1]
     */
    public RackAwareGenerator(final Placement placement, final double maxCrossRackFraction)
    {
        if (!(maxCrossRackFraction >= 0.0 && maxCrossRackFraction <= 1.0))
        {
            throw new IllegalArgumentException("the cross-rack cap must be a fraction in [0, 1], got " +
                maxCrossRackFraction + "; e.g. 0.5 lets half of each process's edges leave its rack");
        }
        this.placement = placement;
        this.maxCrossRackFraction = maxCrossRackFraction;
    }

    @Override
    public String name()
    {
        return NAME;
    }

    /** The placement the graph is drawn for. */
    public Placement placement()
    {
        return placement;
    }

    /** The largest share of edges allowed to cross racks. */
    public double maxCrossRackFraction()
    {
        return maxCrossRackFraction;
    }

    /** Cross-rack edges a process may have at most: {@code floor(cap·degree)}. */
    public int crossRackEdgesPerProcess(final int degree)
    {
        // The epsilon keeps caps such as 3/8 written as 0.375 from rounding down to 2.
        return (int)Math.floor(maxCrossRackFraction * degree + 1e-9);
    }

    @Override
    public Graph generate(final int n, final int degree, final long seed)
    {
        GenerationRequest.validate(n, degree);
        if (n != placement.processes())
        {
            throw new IllegalArgumentException("the placement places " + placement.processes() +
                " processes but n = " + n + "; make the placement for n processes");
        }
        final SplittableRandom random = new SplittableRandom(seed);
        final int racks = placement.racks();
        final int[] rackSize = new int[racks];
        for (int p = 0; p < n; p++)
        {
            rackSize[placement.rackOf(p)]++;
        }
        int occupiedRacks = 0;
        for (final int size : rackSize)
        {
            occupiedRacks += size > 0 ? 1 : 0;
        }
        final int cap = crossRackEdgesPerProcess(degree);
        if (occupiedRacks > 1 && cap == 0)
        {
            throw new IllegalArgumentException("a cross-rack cap of " + maxCrossRackFraction + " allows floor(" +
                maxCrossRackFraction + "·" + degree + ") = 0 cross-rack edges per process, so the " +
                occupiedRacks + " racks could never be connected; raise the cap to at least 1/" + degree +
                " (3/" + degree + " or more keeps a good expander)");
        }
        final int[] crossOf = crossCounts(n, degree, cap, rackSize, random);
        checkFeasible(n, degree, crossOf, rackSize);

        final int[] slotGroup = new int[n * degree];
        for (int p = 0; p < n; p++)
        {
            final int intra = degree - crossOf[p];
            for (int i = 0; i < degree; i++)
            {
                slotGroup[p * degree + i] = i < intra ? placement.rackOf(p) : racks;
            }
        }
        final boolean[] needsDistinctRacks = new boolean[racks + 1];
        needsDistinctRacks[racks] = true;

        final RegularSlotGraph slots = new RegularSlotGraph(n, degree, new int[n * degree]);
        slots.useGroups(slotGroup, needsDistinctRacks, placement.rackLabels());
        final boolean[] complete = new boolean[racks];
        for (int p = 0; p < n; p++)
        {
            // No parity fix-up happens in such a rack (s·(s − 1) is even): all members need all others.
            complete[placement.rackOf(p)] = degree - crossOf[p] == rackSize[placement.rackOf(p)] - 1;
        }
        for (int rack = 0; rack < racks; rack++)
        {
            if (complete[rack] && rackSize[rack] > 1)
            {
                slots.completeGroup(rack);
            }
        }
        for (int pairing = 0; pairing < MAX_PAIRINGS; pairing++)
        {
            slots.pairAtRandom(random);
            if (slots.removeDefects(random) && slots.connect(random))
            {
                return slots.toGraph();
            }
        }
        throw new IllegalArgumentException("could not build a connected " + degree + "-regular graph with at " +
            "most " + cap + " cross-rack edges per process on this placement (seed " + seed + "): the in-rack or " +
            "cross-rack part is too dense for random switching; lower the degree, raise the cap or use larger racks");
    }

    /**
     * x_r cross-rack edges per process; one random process of each rack whose in-rack total
     * would be odd gets one fewer (one more if x_r is 0, which the cap then still allows).
     */
    private int[] crossCounts(
        final int n, final int degree, final int cap, final int[] rackSize, final SplittableRandom random)
    {
        final int racks = rackSize.length;
        final int[] crossOfRack = new int[racks];
        for (int rack = 0; rack < racks; rack++)
        {
            final long natural = Math.round((double)degree * (n - rackSize[rack]) / (n - 1));
            crossOfRack[rack] = (int)Math.min(cap, natural);
        }
        final int[] crossOf = new int[n];
        final int[] pick = new int[racks];
        final int[] seen = new int[racks];
        for (int p = 0; p < n; p++)
        {
            final int rack = placement.rackOf(p);
            crossOf[p] = crossOfRack[rack];
            // Reservoir sampling: a uniform member of each rack without listing racks' members.
            if (random.nextInt(++seen[rack]) == 0)
            {
                pick[rack] = p;
            }
        }
        for (int rack = 0; rack < racks; rack++)
        {
            if (((long)rackSize[rack] * (degree - crossOfRack[rack]) & 1) != 0)
            {
                // Then the cross total is even too: n·d is even and so is every in-rack total.
                if (crossOfRack[rack] > 0)
                {
                    crossOf[pick[rack]]--;
                }
                else
                {
                    crossOf[pick[rack]]++;
                }
            }
        }
        return crossOf;
    }

    private void checkFeasible(final int n, final int degree, final int[] crossOf, final int[] rackSize)
    {
        final long[] crossTotal = new long[rackSize.length];
        final int[] maxIntra = new int[rackSize.length];
        long allCross = 0;
        for (int p = 0; p < n; p++)
        {
            final int rack = placement.rackOf(p);
            crossTotal[rack] += crossOf[p];
            allCross += crossOf[p];
            maxIntra[rack] = Math.max(maxIntra[rack], degree - crossOf[p]);
        }
        for (int rack = 0; rack < rackSize.length; rack++)
        {
            if (rackSize[rack] > 0 && maxIntra[rack] > rackSize[rack] - 1)
            {
                throw new IllegalArgumentException("rack " + rack + " holds " + rackSize[rack] + " processes, too " +
                    "few for " + maxIntra[rack] + " in-rack neighbours each; raise the cross-rack cap or put at " +
                    "least " + (maxIntra[rack] + 1) + " processes in every rack");
            }
            if (2 * crossTotal[rack] > allCross)
            {
                throw new IllegalArgumentException("rack " + rack + " holds " + rackSize[rack] + " of the " + n +
                    " processes, more than the other racks can take cross-rack edges from; spread the " +
                    "processes more evenly over the racks");
            }
        }
    }
}
