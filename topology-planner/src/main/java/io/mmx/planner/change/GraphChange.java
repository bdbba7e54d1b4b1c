package io.mmx.planner.change;

import io.mmx.planner.generate.GenerationRequest;
import io.mmx.planner.generate.RegularSlotGraph;
import io.mmx.planner.graph.Graph;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Adds or removes processes from a connected d-regular plan graph while rewiring few of the
 * existing links, so a running cluster changes only a handful of RDMA connections. Results
 * stay connected, simple and d-regular; all randomness comes from the given seed.
 */
public final class GraphChange
{
    /** Random edge picks per added process before concluding the graph is too small. */
    private static final int ATTEMPTS_PER_PROCESS = 1_000_000;
    /** Fresh pairings of the freed stubs tried by shrink before giving up. */
    private static final int MAX_PAIRINGS = 256;

    private GraphChange()
    {
    }

    /**
     * Adds processes {@code n .. n+added-1}. Each new process w takes d/2 random existing edges
     * {@code (u, v)} with all endpoints distinct, and replaces each by {@code (u, w)} and
     * {@code (v, w)}: every old process keeps its degree and exactly d/2 old edges are
     * rewired per added process. For odd d processes come in pairs joined to each other, each
     * taking (d − 1)/2 edges. Paths are only lengthened, so connectivity is kept.
     *
     * @throws IllegalArgumentException if the graph is not regular, its degree is below 2,
     *                                  or d is odd and {@code added} is odd.
     */
    public static ChangeResult grow(final Graph graph, final int added, final long seed)
    {
        final int d = regularDegree(graph, "grow");
        if (added < 0)
        {
            throw new IllegalArgumentException("cannot add " + added + " processes; give a count >= 0 (use shrink " +
                "to remove processes)");
        }
        if ((d & 1) != 0 && (added & 1) != 0)
        {
            throw new IllegalArgumentException("degree " + d + " is odd, so processes can only be added two at a " +
                "time (n·degree must stay even), but " + added + " were asked for; add an even number");
        }
        final int n = graph.n();
        final long newN = (long)n + added;
        if (newN > Integer.MAX_VALUE || newN * d > GenerationRequest.MAX_ENDPOINTS)
        {
            throw new IllegalArgumentException("n = " + newN + " processes of degree " + d + " exceed the " +
                GenerationRequest.MAX_ENDPOINTS + " edge endpoints an in-memory plan can hold; add fewer");
        }
        // A d-regular CSR graph lays row v out at v·d, exactly the slot layout.
        final int[] adj = Arrays.copyOf(graph.targets(), (int)newN * d);
        final SplittableRandom random = new SplittableRandom(seed);
        final int[] endpoints = new int[d];
        for (int w = n; w < newN; w++)
        {
            if ((d & 1) == 0)
            {
                attach(adj, d, w, w, d / 2, -1, endpoints, random);
            }
            else
            {
                // Both of the pair take edges from processes below w, then join each other; w + 1
                // must not take an edge that w has just taken, or the pair's own edge would repeat.
                attach(adj, d, w, w, (d - 1) / 2, -1, endpoints, random);
                attach(adj, d, w + 1, w, (d - 1) / 2, w, endpoints, random);
                adj[w * d + d - 1] = w + 1;
                adj[(w + 1) * d + d - 1] = w;
                w++;
            }
        }
        final Graph grown = new RegularSlotGraph((int)newN, d, adj).toGraph();
        final int[] identity = new int[n];
        for (int v = 0; v < n; v++)
        {
            identity[v] = v;
        }
        return new ChangeResult(grown, identity, GraphDiff.between(graph, grown, identity));
    }

    /**
     * Connects new process {@code w} in place of {@code edges} random edges of rows
     * {@code 0..limit-1} whose endpoints are all distinct and differ from {@code avoid},
     * filling w's first slots.
     */
    private static void attach(
        final int[] adj,
        final int d,
        final int w,
        final int limit,
        final int edges,
        final int avoid,
        final int[] endpoints,
        final SplittableRandom random)
    {
        final int slots = limit * d;
        int chosen = 0;
        for (int attempt = 0; chosen < 2 * edges; attempt++)
        {
            if (attempt == ATTEMPTS_PER_PROCESS)
            {
                throw new IllegalStateException("found no " + edges + " disjoint edges to give process " + w +
                    " among " + limit + " processes; the graph is too small for degree " + d);
            }
            final int slot = random.nextInt(slots);
            final int u = slot / d;
            final int v = adj[slot];
            if (u == avoid || v == avoid || contains(endpoints, chosen, u) || contains(endpoints, chosen, v))
            {
                if (attempt % 256 == 255)
                {
                    // Early picks can block a small graph; start this process's picks afresh.
                    chosen = 0;
                }
                continue;
            }
            endpoints[chosen++] = u;
            endpoints[chosen++] = v;
        }
        for (int i = 0; i < chosen; i += 2)
        {
            final int u = endpoints[i];
            final int v = endpoints[i + 1];
            replace(adj, d, u, v, w);
            replace(adj, d, v, u, w);
            adj[w * d + i] = u;
            adj[w * d + i + 1] = v;
        }
    }

    /**
     * Removes the highest {@code count} ids, so no surviving process changes id.
     *
     * @see #shrink(Graph, int[], long)
     */
    public static ChangeResult shrink(final Graph graph, final int count, final long seed)
    {
        if (count < 0 || count >= graph.n())
        {
            throw new IllegalArgumentException("cannot remove " + count + " of " + graph.n() + " processes; give a " +
                "count from 0 to " + (graph.n() - 1));
        }
        final int[] removed = new int[count];
        for (int i = 0; i < count; i++)
        {
            removed[i] = graph.n() - count + i;
        }
        return shrink(graph, removed, seed);
    }

    /**
     * Removes the given processes. The neighbours they leave each have a free stub; those
     * stubs are paired at random with each other, and the rare self-loops, repeated edges or
     * split components are repaired by random switches, so edges between survivors are
     * rewired only by those repairs. Ids are then compacted: the surviving ids at or above
     * the new n move, in ascending order, into the holes below it, also ascending; the
     * result's relabelling records it.
     *
     * @throws IllegalArgumentException if an id is out of range or repeated, too few processes
     *                                  would remain for the degree, or d is odd and an odd
     *                                  number of processes is removed.
     */
    public static ChangeResult shrink(final Graph graph, final int[] removed, final long seed)
    {
        final int d = regularDegree(graph, "shrink");
        final int n = graph.n();
        final boolean[] gone = new boolean[n];
        for (final int v : removed)
        {
            if (v < 0 || v >= n)
            {
                throw new IllegalArgumentException("cannot remove process " + v + ": ids run from 0 to " + (n - 1) +
                    "; list existing processes");
            }
            if (gone[v])
            {
                throw new IllegalArgumentException("process " + v + " is listed twice for removal; list each once");
            }
            gone[v] = true;
        }
        final int newN = n - removed.length;
        if (newN < d + 1)
        {
            throw new IllegalArgumentException("removing " + removed.length + " of " + n + " processes leaves " +
                newN + ", too few for degree " + d + " (needs at least " + (d + 1) + "); remove fewer processes " +
                "or plan a new graph with a lower degree");
        }
        if (((long)newN * d & 1) != 0)
        {
            throw new IllegalArgumentException("degree " + d + " is odd, so an odd number of processes cannot be " +
                "removed (n·degree must stay even), but " + removed.length + " were asked for; remove an even " +
                "number");
        }
        final int[] relabelling = compactIds(gone, newN);

        final int[] adj = new int[newN * d];
        final int[] freeSlots = new int[newN * d];
        int free = 0;
        for (int u = 0; u < n; u++)
        {
            final int nu = relabelling[u];
            if (nu < 0)
            {
                continue;
            }
            for (int i = 0; i < d; i++)
            {
                final int mv = relabelling[graph.neighbour(u, i)];
                if (mv >= 0)
                {
                    adj[nu * d + i] = mv;
                }
                else
                {
                    freeSlots[free++] = nu * d + i;
                }
            }
        }

        final SplittableRandom random = new SplittableRandom(seed);
        final int[] base = adj.clone();
        for (int pairing = 0; pairing < MAX_PAIRINGS; pairing++)
        {
            System.arraycopy(base, 0, adj, 0, adj.length);
            pairFreeSlots(adj, d, freeSlots, free, random);
            final RegularSlotGraph slots = new RegularSlotGraph(newN, d, adj);
            if (slots.removeDefects(random) && slots.connect(random))
            {
                final Graph shrunk = slots.toGraph();
                return new ChangeResult(shrunk, relabelling, GraphDiff.between(graph, shrunk, relabelling));
            }
        }
        throw new IllegalStateException("could not re-pair the " + free + " links freed by removing " +
            removed.length + " processes into a connected simple " + d + "-regular graph on " + newN +
            " processes (seed " + seed + "); try another seed or remove fewer processes");
    }

    /** Old id → new id: survivors below newN keep theirs, higher survivors fill the holes in order. */
    private static int[] compactIds(final boolean[] gone, final int newN)
    {
        final int n = gone.length;
        final int[] relabelling = new int[n];
        int hole = 0;
        for (int v = 0; v < n; v++)
        {
            if (gone[v])
            {
                relabelling[v] = -1;
            }
            else if (v < newN)
            {
                relabelling[v] = v;
            }
            else
            {
                while (!gone[hole])
                {
                    hole++;
                }
                relabelling[v] = hole++;
            }
        }
        return relabelling;
    }

    private static void pairFreeSlots(
        final int[] adj, final int d, final int[] freeSlots, final int free, final SplittableRandom random)
    {
        for (int i = free - 1; i > 0; i--)
        {
            final int j = random.nextInt(i + 1);
            final int t = freeSlots[i];
            freeSlots[i] = freeSlots[j];
            freeSlots[j] = t;
        }
        for (int i = 0; i + 1 < free; i += 2)
        {
            adj[freeSlots[i]] = freeSlots[i + 1] / d;
            adj[freeSlots[i + 1]] = freeSlots[i] / d;
        }
    }

    private static int regularDegree(final Graph graph, final String operation)
    {
        final int d = graph.regularDegree();
        if (d < 0)
        {
            throw new IllegalArgumentException("cannot " + operation + " a graph whose degrees range from " +
                graph.minDegree() + " to " + graph.maxDegree() + ": changes keep a regular graph regular; plan a " +
                "new regular graph instead");
        }
        if (d < 2)
        {
            throw new IllegalArgumentException("cannot " + operation + " a " + d + "-regular graph and keep it " +
                "connected; plan a graph of degree 3 or more");
        }
        return d;
    }

    private static boolean contains(final int[] values, final int size, final int value)
    {
        for (int i = 0; i < size; i++)
        {
            if (values[i] == value)
            {
                return true;
            }
        }
        return false;
    }

    private static void replace(final int[] adj, final int d, final int row, final int from, final int to)
    {
        for (int s = row * d, end = s + d; s < end; s++)
        {
            if (adj[s] == from)
            {
                adj[s] = to;
                return;
            }
        }
        throw new IllegalStateException("process " + row + " has no edge to " + from + " to rewire");
    }
}
