package io.mmx.perf.niccache;

import io.mmx.planner.generate.Generators;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.placement.Placement;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Runs the m&amp;m access pattern on random regular plans of each degree and on the full mesh,
 * for each number of processes per host, through one NIC model.
 */
public final class DegreeSweep
{
    /** Hosts per rack of the contiguous placement (racks do not change NIC load). */
    static final int HOSTS_PER_RACK = 32;

    private final int n;
    private final long planSeed;
    private final ProtocolRates rates;
    private final NicModel model;
    private final int nicsPerCell;
    private final long measuredReferences;
    private final Map<Integer, Graph> plans = new HashMap<>();

    /**
     * @param n                  processes.
     * @param planSeed           seed of the random regular plans.
     * @param rates              protocol rates.
     * @param model              the NIC.
     * @param nicsPerCell        NICs simulated per cell, spread evenly over the hosts.
     * @param measuredReferences references counted per NIC.
     */
    public DegreeSweep(
        final int n, final long planSeed, final ProtocolRates rates, final NicModel model, final int nicsPerCell,
        final long measuredReferences)
    {
        if (nicsPerCell < 1 || measuredReferences < 1)
        {
            throw new IllegalArgumentException("simulate at least 1 NIC and 1 reference per cell");
        }
        this.n = n;
        this.planSeed = planSeed;
        this.rates = rates;
        this.model = model;
        this.nicsPerCell = nicsPerCell;
        this.measuredReferences = measuredReferences;
    }

    /** Cells for every degree (ascending; plans generated once and reused) and then the full mesh. */
    public List<SweepRow> run(final int[] degrees, final int[] procsPerHost)
    {
        final List<SweepRow> rows = new ArrayList<>();
        for (final int p : procsPerHost)
        {
            for (final int d : degrees)
            {
                rows.add(cell(p, d));
            }
            rows.add(fullMeshCell(p));
        }
        return rows;
    }

    /**
     * Cells for degrees doubling from {@code fromDegree} up to {@code maxDegree}, past the sweep,
     * to find where a plan stops beating the full mesh. The large plans are not kept.
     */
    public List<SweepRow> doubling(final int procsPerHost, final int fromDegree, final int maxDegree)
    {
        final List<SweepRow> rows = new ArrayList<>();
        for (int d = fromDegree; d <= maxDegree && d < n; d *= 2)
        {
            rows.add(cell(procsPerHost, d));
            plans.remove(d);
        }
        return rows;
    }

    /** The cell for a random {@code degree}-regular plan. */
    public SweepRow cell(final int procsPerHost, final int degree)
    {
        final Graph graph = plans.computeIfAbsent(degree,
            (d) -> Generators.byName("random").generate(n, d, planSeed));
        return measure(procsPerHost, degree, false, Neighbours.of(graph));
    }

    /** The cell for the full mesh. */
    public SweepRow fullMeshCell(final int procsPerHost)
    {
        return measure(procsPerHost, n - 1, true, Neighbours.fullMesh(n));
    }

    /**
     * The cells for a given plan on its own placement and for the full mesh on the same placement.
     *
     * @return the plan's row, then the full mesh's.
     */
    public List<SweepRow> planAndFullMesh(final Graph graph, final Placement placement)
    {
        if (graph.n() != n)
        {
            throw new IllegalArgumentException("the plan has n = " + graph.n() + " but the sweep runs n = " + n +
                "; pass --n " + graph.n());
        }
        final int degree = graph.regularDegree() > 0 ? graph.regularDegree() : graph.maxDegree();
        return List.of(measure(placement, degree, false, Neighbours.of(graph)),
            measure(placement, n - 1, true, Neighbours.fullMesh(n)));
    }

    private SweepRow measure(final int procsPerHost, final int degree, final boolean fullMesh, final Neighbours graph)
    {
        final int hosts = (n + procsPerHost - 1) / procsPerHost;
        final int racks = (hosts + HOSTS_PER_RACK - 1) / HOSTS_PER_RACK;
        return measure(Placement.contiguous(n, racks, HOSTS_PER_RACK, procsPerHost), degree, fullMesh, graph);
    }

    private SweepRow measure(
        final Placement placement, final int degree, final boolean fullMesh, final Neighbours graph)
    {
        final int procsPerHost = placement.procsPerHost();
        // Sample only hosts that hold processes: a partly filled last rack has empty hosts.
        final int[] occupied = IntStream.range(0, placement.hosts())
            .filter((h) -> placement.processCountOnHost(h) > 0).toArray();
        final int hosts = occupied.length;
        final MmAccessPattern pattern = new MmAccessPattern(
            fullMesh ? "full mesh" : "d=" + degree, graph, placement, rates);
        final int cells = Math.min(nicsPerCell, hosts);
        double qps = 0;
        double offered = 0;
        double miss = 0;
        double readMiss = 0;
        double capacity = 0;
        double predicted = 0;
        for (int i = 0; i < cells; i++)
        {
            final int nic = occupied[(int)((long)i * hosts / cells)];
            final NicPrediction prediction = NicPrediction.predict(pattern, nic, model, planSeed + nic,
                measuredReferences);
            qps += prediction.qps();
            offered += prediction.offeredOpsPerSec();
            miss += prediction.outcome().missRate();
            readMiss += prediction.outcome().missRate(OpType.READ);
            capacity += prediction.capacityOpsPerSec();
            predicted += prediction.predictedOpsPerSec();
        }
        return new SweepRow(procsPerHost, degree, fullMesh, qps / cells, offered / cells, miss / cells,
            readMiss / cells, capacity / cells, predicted / cells);
    }
}
