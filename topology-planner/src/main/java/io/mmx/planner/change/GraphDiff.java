package io.mmx.planner.change;

import io.mmx.planner.graph.Graph;

import java.util.Arrays;

/**
 * What changed from one plan graph to the next, as ops must apply it: edges to tear down,
 * edges to connect, and how many processes see a different neighbour set.
 *
 * <p>Ids: {@link #removed()} is in the old graph's ids, {@link #added()} in the new graph's.
 * A relabelling (old id → new id, -1 for a removed process) says which process is which; old
 * ids without one are the processes of the new graph with the same id, and new ids that no
 * old id maps to are added processes.
 */
public final class GraphDiff
{
    private final EdgeList added;
    private final EdgeList removed;
    private final int changedProcesses;
    private final int removedProcesses;
    private final int addedProcesses;
    private final int rewiredEdges;

    private GraphDiff(
        final EdgeList added,
        final EdgeList removed,
        final int changedProcesses,
        final int removedProcesses,
        final int addedProcesses,
        final int rewiredEdges)
    {
        this.added = added;
        this.removed = removed;
        this.changedProcesses = changedProcesses;
        this.removedProcesses = removedProcesses;
        this.addedProcesses = addedProcesses;
        this.rewiredEdges = rewiredEdges;
    }

    /** The diff when process ids keep their meaning: old id v is new id v while both exist. */
    public static GraphDiff between(final Graph old, final Graph neu)
    {
        final int[] identity = new int[old.n()];
        for (int v = 0; v < identity.length; v++)
        {
            identity[v] = v < neu.n() ? v : -1;
        }
        return between(old, neu, identity);
    }

    /**
     * The diff under {@code relabelling} (length {@code old.n()}, old id → new id, -1 for a
     * removed process; no two old ids may map to one new id).
     *
     * @throws IllegalArgumentException if the relabelling has the wrong length, leaves the
     *                                  new id range or maps two processes to one id.
     */
    public static GraphDiff between(final Graph old, final Graph neu, final int[] relabelling)
    {
        final int[] inverse = inverse(relabelling, old.n(), neu.n());
        final boolean[] changed = new boolean[neu.n()];

        long[] buffer = new long[16];
        int size = 0;
        int rewired = 0;
        int removedProcesses = 0;
        for (int u = 0; u < old.n(); u++)
        {
            final int mu = relabelling[u];
            removedProcesses += mu < 0 ? 1 : 0;
            for (int i = 0, degree = old.degree(u); i < degree; i++)
            {
                final int v = old.neighbour(u, i);
                final int mv = relabelling[v];
                if (u < v && (mu < 0 || mv < 0 || !neu.hasEdge(mu, mv)))
                {
                    buffer = ensure(buffer, size);
                    buffer[size++] = EdgeList.pack(u, v);
                    if (mu >= 0 && mv >= 0)
                    {
                        rewired++;
                        changed[mu] = true;
                        changed[mv] = true;
                    }
                    else if (mu >= 0)
                    {
                        changed[mu] = true;
                    }
                    else if (mv >= 0)
                    {
                        changed[mv] = true;
                    }
                }
            }
        }
        final EdgeList removed = EdgeList.ofPacked(buffer, size);

        size = 0;
        int addedProcesses = 0;
        for (int u = 0; u < neu.n(); u++)
        {
            final int ou = inverse[u];
            if (ou < 0)
            {
                addedProcesses++;
                changed[u] = true;
            }
            for (int i = 0, degree = neu.degree(u); i < degree; i++)
            {
                final int v = neu.neighbour(u, i);
                final int ov = inverse[v];
                if (u < v && (ou < 0 || ov < 0 || !old.hasEdge(ou, ov)))
                {
                    buffer = ensure(buffer, size);
                    buffer[size++] = EdgeList.pack(u, v);
                    changed[u] = true;
                    changed[v] = true;
                }
            }
        }
        final EdgeList added = EdgeList.ofPacked(buffer, size);

        int changedCount = 0;
        for (final boolean c : changed)
        {
            changedCount += c ? 1 : 0;
        }
        return new GraphDiff(added, removed, changedCount, removedProcesses, addedProcesses, rewired);
    }

    private static int[] inverse(final int[] relabelling, final int oldN, final int newN)
    {
        if (relabelling.length != oldN)
        {
            throw new IllegalArgumentException("the relabelling covers " + relabelling.length +
                " processes but the old graph has " + oldN + "; give one new id (or -1) per old process");
        }
        final int[] inverse = new int[newN];
        Arrays.fill(inverse, -1);
        for (int v = 0; v < oldN; v++)
        {
            final int w = relabelling[v];
            if (w < -1 || w >= newN)
            {
                throw new IllegalArgumentException("the relabelling maps process " + v + " to " + w +
                    ", outside 0.." + (newN - 1) + "; use -1 for a removed process");
            }
            if (w >= 0)
            {
                if (inverse[w] >= 0)
                {
                    throw new IllegalArgumentException("the relabelling maps processes " + inverse[w] + " and " + v +
                        " both to " + w + "; each new id names one process");
                }
                inverse[w] = v;
            }
        }
        return inverse;
    }

    private static long[] ensure(final long[] buffer, final int size)
    {
        return size < buffer.length ? buffer : Arrays.copyOf(buffer, 2 * buffer.length);
    }

    /** Edges of the new graph that the old one lacks, in new ids: links to connect. */
    public EdgeList added()
    {
        return added;
    }

    /** Edges of the old graph that the new one lacks, in old ids: links to tear down. */
    public EdgeList removed()
    {
        return removed;
    }

    /**
     * Processes of the new graph whose neighbour set changed (compared through the
     * relabelling), added processes included; they must reconnect some links.
     */
    public int changedProcesses()
    {
        return changedProcesses;
    }

    /** Old processes with no new id. */
    public int removedProcesses()
    {
        return removedProcesses;
    }

    /** New processes with no old id. */
    public int addedProcesses()
    {
        return addedProcesses;
    }

    /**
     * Removed edges whose endpoints both survive: the existing links the change rewired, as
     * opposed to links that went away with a removed process.
     */
    public int rewiredEdges()
    {
        return rewiredEdges;
    }

    @Override
    public String toString()
    {
        return "GraphDiff(added=" + added.size() + ", removed=" + removed.size() + ", rewired=" + rewiredEdges +
            ", changedProcesses=" + changedProcesses + ", addedProcesses=" + addedProcesses +
            ", removedProcesses=" + removedProcesses + ")";
    }
}
