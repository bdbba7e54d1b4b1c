package io.mmx.planner.plan;

import io.mmx.planner.analysis.AnalysisOptions;
import io.mmx.planner.change.ChangeResult;
import io.mmx.planner.change.EdgeList;
import io.mmx.planner.change.GraphChange;
import io.mmx.planner.change.GraphDiff;
import io.mmx.planner.placement.Placement;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Locale;

/**
 * Grow, shrink and diff at the level of plans: the graph change plus what follows for the
 * placement and the analysis, and the report a person reads before deploying the change.
 */
public final class PlanChanges
{
    /** Diffs list individual edges up to this many; above it only counts. */
    private static final int LISTED_EDGES = 24;

    private PlanChanges()
    {
    }

    /**
     * A changed plan and the graph change that made it.
     *
     * @param plan   the new plan, sealed
     * @param change the graph change: relabelling and edge diff
     */
    public record Change(Plan plan, ChangeResult change)
    {
    }

    /**
     * Adds {@code added} processes. New processes take the free slots of the existing placement
     * in host order, or the placement {@code layout} describes when given.
     */
    public static Change grow(final Plan before, final int added, final long seed, final PlacementLayout layout,
        final AnalysisOptions options, final ProgressListener progress)
    {
        if (added < 1)
        {
            throw new IllegalArgumentException("--add " + added + " adds nothing; give a count >= 1");
        }
        progress.stage("rewiring: " + added + " new processes splice into existing edges");
        final ChangeResult change = GraphChange.grow(before.graph(), added, seed);
        final int n = change.graph().n();
        final Placement placement = layout != null ?
            Placement.contiguous(n, layout.racks(), layout.hostsPerRack(), layout.procsPerHost()) :
            before.placement() == null ? null : extend(before.placement(), n);
        return sealed(before, change, seed, placement, options, progress);
    }

    /** Removes the given processes; survivors keep their hosts under their new ids. */
    public static Change shrink(final Plan before, final int[] removed, final long seed,
        final AnalysisOptions options, final ProgressListener progress)
    {
        progress.stage("rewiring: " + removed.length + " processes leave, their neighbours re-pair");
        return shrunk(before, GraphChange.shrink(before.graph(), removed, seed), seed, options, progress);
    }

    /** Removes the {@code count} highest ids: no survivor changes id. */
    public static Change shrink(final Plan before, final int count, final long seed, final AnalysisOptions options,
        final ProgressListener progress)
    {
        progress.stage("rewiring: " + count + " processes leave, their neighbours re-pair");
        return shrunk(before, GraphChange.shrink(before.graph(), count, seed), seed, options, progress);
    }

    private static Change shrunk(final Plan before, final ChangeResult change, final long seed,
        final AnalysisOptions options, final ProgressListener progress)
    {
        Placement placement = null;
        if (before.placement() != null)
        {
            final int n = change.graph().n();
            final int[] rack = new int[n];
            final int[] host = new int[n];
            for (int old = 0; old < before.n(); old++)
            {
                final int id = change.newIdOf(old);
                if (id >= 0)
                {
                    rack[id] = before.placement().rackOf(old);
                    host[id] = before.placement().hostOf(old);
                }
            }
            final Placement p = before.placement();
            placement = Placement.explicit(p.racks(), p.hostsPerRack(), p.procsPerHost(), rack, host);
        }
        return sealed(before, change, seed, placement, options, progress);
    }

    private static Change sealed(final Plan before, final ChangeResult change, final long seed,
        final Placement placement, final AnalysisOptions options, final ProgressListener progress)
    {
        final var analysis = Planner.analyze(change.graph(), placement, options, progress);
        final Plan plan = Plan.sealed(change.graph(), before.degree(), Planner.EDITED, seed, placement, analysis);
        return new Change(plan, change);
    }

    /** The old placement with new processes in the first free host slots, in host order. */
    static Placement extend(final Placement old, final int n)
    {
        final int hosts = old.hosts();
        final long capacity = (long)hosts * old.procsPerHost();
        if (n > capacity)
        {
            throw new IllegalArgumentException("the plan's placement has room for " + capacity + " processes (" +
                old.racks() + " racks × " + old.hostsPerRack() + " hosts × " + old.procsPerHost() + ") but the grown " +
                "plan has " + n + "; give --racks, --hosts-per-rack and --procs-per-host for the larger cluster");
        }
        final int[] rack = Arrays.copyOf(old.rackLabels(), n);
        final int[] host = Arrays.copyOf(old.hostLabels(), n);
        final int[] used = new int[hosts];
        for (int h = 0; h < hosts; h++)
        {
            used[h] = old.processCountOnHost(h);
        }
        int h = 0;
        for (int p = old.processes(); p < n; p++)
        {
            while (used[h] >= old.procsPerHost())
            {
                h++;
            }
            used[h]++;
            host[p] = h;
            rack[p] = h / old.hostsPerRack();
        }
        return Placement.explicit(old.racks(), old.hostsPerRack(), old.procsPerHost(), rack, host);
    }

    /** Prints what a deployment of {@code after} over {@code before} changes. */
    public static void printDiff(final Plan before, final Plan after, final GraphDiff diff, final PrintWriter out)
    {
        out.printf(Locale.ROOT, "processes  %d -> %d (%d added, %d removed)%n", before.n(), after.n(),
            diff.addedProcesses(), diff.removedProcesses());
        out.printf(Locale.ROOT, "edges      %d -> %d: %d to tear down, %d to connect%n", before.graph().edgeCount(),
            after.graph().edgeCount(), diff.removed().size(), diff.added().size());
        out.printf(Locale.ROOT, "rewired    %d processes change their RDMA links%n", diff.changedProcesses());
        if (diff.removed().size() + diff.added().size() <= LISTED_EDGES)
        {
            printEdges(out, "-", diff.removed());
            printEdges(out, "+", diff.added());
        }
        final PlanAnalysis t0 = before.analysisResults();
        final PlanAnalysis t1 = after.analysisResults();
        out.printf(Locale.ROOT, "tolerance  certified f %d -> %d, attack f %d -> %d (of n = %d -> %d)%n",
            t0.certifiedF(), t1.certifiedF(), t0.attackF(), t1.attackF(), before.n(), after.n());
        out.printf(Locale.ROOT, "hash       %s -> %s%n", before.contentHash(), after.contentHash());
        out.flush();
    }

    /**
     * Whether the processes {@code live} (ids of {@code plan}) reach a quorum of its acceptors:
     * their closed neighbourhood, the acceptors they can run, counts more than half of n. A plan
     * change begins a new era on the new plan, which decides nothing unless the processes up
     * when it starts pass this (docs/protocol.md §8b).
     *
     * @param live    the live processes (a set: an id listed twice counts once), the new ones
     *                already started included
     * @param reach   |N[S]| in the plan's graph
     * @param n       the plan's processes
     * @param quorum  acceptors a quorum needs: n / 2 + 1
     */
    public record LiveQuorum(int live, int reach, int n, int quorum)
    {
        /** True if the live processes reach a quorum. */
        public boolean holds()
        {
            return reach >= quorum;
        }

        /** One line naming every number. */
        public String describe()
        {
            return String.format(Locale.ROOT, "%d live processes reach |N[S]| = %d of n = %d acceptors; a quorum needs %d: %s",
                live, reach, n, quorum, holds() ? "the plan can decide" :
                "the plan could decide nothing (start " + (quorum - reach) + " more of its processes, or keep more of the " +
                "live ones in it)");
        }
    }

    /** {@link LiveQuorum} of {@code live} in {@code plan}; an id outside the plan is refused, named. */
    public static LiveQuorum liveQuorum(final Plan plan, final int[] live)
    {
        final int n = plan.n();
        final boolean[] in = new boolean[n];
        int count = 0;
        for (final int id : live)
        {
            if (id < 0 || id >= n)
            {
                throw new IllegalArgumentException("live process " + id + " is not in the plan (ids 0-" + (n - 1) +
                    "): give the ids the processes have in the plan checked");
            }
            if (!in[id])
            {
                in[id] = true;
                count++;
            }
        }
        return new LiveQuorum(count, plan.graph().closedNeighbourhoodSize(in), n, n / 2 + 1);
    }

    /** The diff of two plan files, ids taken as equal where both have them. */
    public static void printDiff(final Plan before, final Plan after, final PrintWriter out)
    {
        printDiff(before, after, GraphDiff.between(before.graph(), after.graph()), out);
    }

    /** Prints the ids that changed, old -> new, for the operator to follow. */
    public static void printRelabelling(final ChangeResult change, final PrintWriter out)
    {
        final int[] relabelling = change.relabelling();
        final StringBuilder moved = new StringBuilder();
        for (int old = 0; old < relabelling.length; old++)
        {
            if (relabelling[old] >= 0 && relabelling[old] != old)
            {
                moved.append(moved.length() == 0 ? "" : ", ").append(old).append(" -> ").append(relabelling[old]);
            }
        }
        if (moved.length() > 0)
        {
            out.println("renumbered " + change.movedProcesses() + " processes (old -> new id): " + moved);
        }
    }

    private static void printEdges(final PrintWriter out, final String sign, final EdgeList edges)
    {
        for (int i = 0; i < edges.size(); i++)
        {
            out.printf(Locale.ROOT, "           %s %d - %d%n", sign, edges.u(i), edges.v(i));
        }
    }
}
