package io.mmx.planner.generate;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.graph.InvalidGraphException;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A mutable {@code d}-regular multigraph held as {@code d} neighbour slots per vertex
 * ({@code slot = vertex·d + i}), which random generation and incremental change repair into
 * a connected simple graph with degree-preserving edge switches.
 *
 * <p>Every edge occupies one slot at each endpoint (a self-loop two slots of one vertex). A
 * switch replaces edges {@code (a,b)} and {@code (c,e)} by {@code (a,c)} and {@code (b,e)};
 * it is applied only when both new edges are new, non-loops and allowed, so switching never
 * creates a defect and repair needs one pass, never a restart of the whole pairing.
 *
 * <p>Optional slot groups restrict which slots may be paired: edges form within a group only,
 * and a group may be marked to join vertices of different labels only (cross-rack edges).
 * Without groups every slot is in one unrestricted group. Primitive arrays only, so that
 * n = 1,000,000 costs a few tens of megabytes.
 */
public final class RegularSlotGraph
{
    /** Up to this degree a row is checked for repeats pairwise; above it with stamps. */
    private static final int PAIRWISE_SCAN_MAX_DEGREE = 24;
    /** Random partners tried per defect before the caller is told repair is stuck. */
    private static final int ATTEMPTS_PER_DEFECT = 20_000;
    /** Random edge pairs tried per component merge before the next round retries it. */
    private static final int ATTEMPTS_PER_MERGE = 20_000;
    /** Rounds of component merging; more than one is needed only when a merge cut a bridge. */
    private static final int CONNECT_ROUNDS = 64;

    private final int n;
    private final int d;
    private final int[] adj;
    private int[] labels;
    private int[] slotGroup;
    private boolean[] groupNeedsDistinctLabels;
    private int[] groupStarts;
    private int[] groupSlots;
    private boolean[] groupComplete;
    private int[] marks;
    private int stamp;
    private long switches;

    /**
     * Wraps {@code adjacency} (length {@code n·d}, not copied): slot {@code v·d + i} holds a
     * neighbour of {@code v}. The slots must describe a symmetric multigraph.
     */
    public RegularSlotGraph(final int n, final int d, final int[] adjacency)
    {
        if ((long)n * d != adjacency.length)
        {
            throw new IllegalArgumentException("adjacency has " + adjacency.length + " slots but n·d = " +
                ((long)n * d) + "; give d slots per vertex");
        }
        this.n = n;
        this.d = d;
        this.adj = adjacency;
    }

    /**
     * Restricts pairing and switching to slot groups.
     *
     * @param slotGroupOf            group of each slot, length {@code n·d}; each group's slot count must be even
     * @param needsDistinctLabels    per group: whether its edges must join vertices of different labels
     * @param vertexLabels           label of each vertex (a rack), used by the groups so marked
     */
    public void useGroups(final int[] slotGroupOf, final boolean[] needsDistinctLabels, final int[] vertexLabels)
    {
        final int groups = needsDistinctLabels.length;
        groupStarts = new int[groups + 1];
        for (final int g : slotGroupOf)
        {
            groupStarts[g + 1]++;
        }
        for (int g = 0; g < groups; g++)
        {
            if ((groupStarts[g + 1] & 1) != 0)
            {
                throw new IllegalArgumentException("slot group " + g + " has an odd number of slots (" +
                    groupStarts[g + 1] + ") and cannot be paired; give every group an even count");
            }
            groupStarts[g + 1] += groupStarts[g];
        }
        groupSlots = new int[slotGroupOf.length];
        final int[] fill = Arrays.copyOf(groupStarts, groups);
        for (int s = 0; s < slotGroupOf.length; s++)
        {
            groupSlots[fill[slotGroupOf[s]]++] = s;
        }
        slotGroup = slotGroupOf;
        groupNeedsDistinctLabels = needsDistinctLabels;
        labels = vertexLabels;
        groupComplete = new boolean[groups];
    }

    /**
     * Joins every two vertices with slots in {@code group} and leaves the group out of random
     * pairing from now on. A complete target is the one graph switching reaches slowest (few
     * switches are valid near it), so it is built directly.
     *
     * @throws IllegalArgumentException unless each of the group's m vertices has m − 1 of its slots.
     */
    public void completeGroup(final int group)
    {
        final int from = groupStarts[group];
        final int to = groupStarts[group + 1];
        final int[] members = new int[to - from];
        final int[] slotsOf = new int[to - from];
        int m = 0;
        for (int i = from; i < to; i++)
        {
            final int v = groupSlots[i] / d;
            if (m == 0 || members[m - 1] != v)
            {
                members[m++] = v;
            }
            slotsOf[m - 1]++;
        }
        for (int i = 0; i < m; i++)
        {
            if (slotsOf[i] != m - 1)
            {
                throw new IllegalArgumentException("vertex " + members[i] + " has " + slotsOf[i] + " slots in group " +
                    group + " but a complete graph on its " + m + " vertices needs " + (m - 1) + " each");
            }
        }
        // Group slots are in slot order and a vertex's slots share its row, so they are consecutive.
        for (int i = 0; i < m; i++)
        {
            for (int k = 0; k < m - 1; k++)
            {
                adj[groupSlots[from + i * (m - 1) + k]] = members[k < i ? k : k + 1];
            }
        }
        groupComplete[group] = true;
    }

    /** Pairs slots uniformly at random within their groups (except complete ones), discarding those edges. */
    public void pairAtRandom(final SplittableRandom random)
    {
        if (slotGroup == null)
        {
            final int[] order = new int[adj.length];
            for (int s = 0; s < order.length; s++)
            {
                order[s] = s;
            }
            pairShuffled(order, 0, order.length, random);
        }
        else
        {
            final int[] order = groupSlots.clone();
            for (int g = 0; g + 1 < groupStarts.length; g++)
            {
                if (!groupComplete[g])
                {
                    pairShuffled(order, groupStarts[g], groupStarts[g + 1], random);
                }
            }
        }
    }

    private void pairShuffled(final int[] order, final int from, final int to, final SplittableRandom random)
    {
        for (int i = to - 1; i > from; i--)
        {
            final int j = from + random.nextInt(i - from + 1);
            final int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int i = from; i + 1 < to; i += 2)
        {
            final int s = order[i];
            final int t = order[i + 1];
            adj[s] = t / d;
            adj[t] = s / d;
        }
    }

    /**
     * Removes every self-loop, repeated edge and label violation by random switches, row by row.
     *
     * @return false if some defect found no valid switch partner (possible only for tiny or
     *         nearly complete graphs); the graph is then consistent but not yet simple.
     */
    public boolean removeDefects(final SplittableRandom random)
    {
        for (int u = 0; u < n; u++)
        {
            int slot;
            while ((slot = findDefect(u)) >= 0)
            {
                if (!switchAway(slot, random))
                {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Repairs the multigraph of a fresh ungrouped pairing into a simple {@code d}-regular graph by
     * adding edges only: each self-loop and every repeated copy of an edge is dropped (the simple
     * graph underneath keeps all of its edges, so every N[S] stays what the pairing gave), and the
     * freed slots are joined to one another by new edges between distinct, non-adjacent vertices.
     * Adding edges never shrinks a closed neighbourhood, which is what lets a first-moment count
     * over the pairing model bound the tolerance of the result.
     *
     * @param tries random greedy matchings of the freed slots tried before giving up.
     * @return false if no try joined every freed slot; the slots are then unchanged from the pairing
     *         with its defects dropped (-1 in freed slots), and the caller must pair afresh.
     */
    public boolean repairByAddingEdges(final SplittableRandom random, final int tries)
    {
        if (slotGroup != null)
        {
            throw new IllegalStateException("add-only repair is for ungrouped pairings");
        }
        int freed = 0;
        for (int u = 0; u < n; u++)
        {
            int slot;
            while ((slot = findDefectSkippingFree(u)) >= 0)
            {
                // A loop frees both of its slots at u; a repeat frees one copy at each end.
                final int v = adj[slot];
                adj[slot] = -1;
                adj[slotHolding(v, u, -1)] = -1;
                freed += 2;
            }
        }
        if (freed == 0)
        {
            return true;
        }
        final int[] free = new int[freed];
        int k = 0;
        for (int s = 0; s < adj.length; s++)
        {
            if (adj[s] < 0)
            {
                free[k++] = s;
            }
        }
        for (int attempt = 0; attempt < tries; attempt++)
        {
            if (matchFreeSlots(free, random))
            {
                return true;
            }
            for (final int s : free)
            {
                adj[s] = -1;
            }
        }
        return false;
    }

    /** Starts a fresh set of vertex marks: {@code marks[v] == stamp} means marked. */
    private void nextStamp()
    {
        if (marks == null || stamp == Integer.MAX_VALUE)
        {
            marks = new int[n];
            stamp = 0;
        }
        stamp++;
    }

    /** The first loop slot or repeated copy of row {@code u}, ignoring freed (-1) slots; or -1. */
    private int findDefectSkippingFree(final int u)
    {
        final int base = u * d;
        nextStamp();
        for (int i = 0; i < d; i++)
        {
            final int v = adj[base + i];
            if (v < 0)
            {
                continue;
            }
            if (v == u || marks[v] == stamp)
            {
                return base + i;
            }
            marks[v] = stamp;
        }
        return -1;
    }

    /** One random greedy perfect matching of the free slots into new simple edges; false if it got stuck. */
    private boolean matchFreeSlots(final int[] free, final SplittableRandom random)
    {
        final int size = free.length;
        for (int i = size - 1; i > 0; i--)
        {
            final int j = random.nextInt(i + 1);
            final int t = free[i];
            free[i] = free[j];
            free[j] = t;
        }
        for (int i = 0; i < size; i++)
        {
            final int s = free[i];
            if (adj[s] >= 0)
            {
                continue;
            }
            final int u = s / d;
            final int offset = random.nextInt(size);
            int partner = -1;
            for (int step = 0; step < size && partner < 0; step++)
            {
                final int t = free[(offset + step) % size];
                final int v = t / d;
                if (adj[t] < 0 && t != s && v != u && !hasEdge(u, v))
                {
                    partner = t;
                }
            }
            if (partner < 0)
            {
                return false;
            }
            adj[s] = partner / d;
            adj[partner] = u;
        }
        return true;
    }

    /** True if the slots describe a connected graph. */
    public boolean isConnected()
    {
        return components(new int[n]) <= 1;
    }

    /**
     * Joins the components of a simple graph by switching an edge of one component with an
     * edge of another: the two new edges cross between them, so they are always new.
     *
     * @return false if the graph is still disconnected after bounded attempts.
     */
    public boolean connect(final SplittableRandom random)
    {
        final int[] component = new int[n];
        for (int round = 0; round < CONNECT_ROUNDS; round++)
        {
            final int components = components(component);
            if (components <= 1)
            {
                return true;
            }
            final int[] starts = new int[components + 1];
            for (final int c : component)
            {
                starts[c + 1]++;
            }
            for (int c = 0; c < components; c++)
            {
                starts[c + 1] += starts[c];
            }
            final int[] members = new int[n];
            final int[] fill = Arrays.copyOf(starts, components);
            for (int v = 0; v < n; v++)
            {
                members[fill[component[v]]++] = v;
            }
            final int[] root = new int[components];
            for (int c = 0; c < components; c++)
            {
                root[c] = c;
            }
            for (int c = 1; c < components; c++)
            {
                mergeOnce(c, component, starts, members, root, random);
            }
        }
        return components(component) <= 1;
    }

    private void mergeOnce(
        final int c,
        final int[] component,
        final int[] starts,
        final int[] members,
        final int[] root,
        final SplittableRandom random)
    {
        final int size = starts[c + 1] - starts[c];
        for (int attempt = 0; attempt < ATTEMPTS_PER_MERGE; attempt++)
        {
            final int v = members[starts[c] + random.nextInt(size)];
            final int slotA = v * d + random.nextInt(d);
            final int slotC = randomPartner(slotA, random);
            final int other = component[slotC / d];
            final int rootC = find(root, c);
            final int rootOther = find(root, other);
            if (rootC != rootOther && trySwitch(slotA, slotC))
            {
                root[rootC] = rootOther;
                return;
            }
        }
    }

    private static int find(final int[] root, final int c)
    {
        int r = c;
        while (root[r] != r)
        {
            r = root[r];
        }
        int x = c;
        while (root[x] != r)
        {
            final int next = root[x];
            root[x] = r;
            x = next;
        }
        return r;
    }

    /** Labels each vertex with its component; returns the number of components. */
    private int components(final int[] component)
    {
        Arrays.fill(component, -1);
        final int[] queue = new int[n];
        int count = 0;
        for (int s = 0; s < n; s++)
        {
            if (component[s] >= 0)
            {
                continue;
            }
            int head = 0;
            int tail = 0;
            queue[tail++] = s;
            component[s] = count;
            while (head < tail)
            {
                final int u = queue[head++];
                for (int i = u * d, end = i + d; i < end; i++)
                {
                    final int w = adj[i];
                    if (component[w] < 0)
                    {
                        component[w] = count;
                        queue[tail++] = w;
                    }
                }
            }
            count++;
        }
        return count;
    }

    private boolean switchAway(final int slot, final SplittableRandom random)
    {
        for (int attempt = 0; attempt < ATTEMPTS_PER_DEFECT; attempt++)
        {
            if (trySwitch(slot, randomPartner(slot, random)))
            {
                return true;
            }
        }
        return false;
    }

    private int randomPartner(final int slot, final SplittableRandom random)
    {
        if (slotGroup == null)
        {
            return random.nextInt(adj.length);
        }
        final int g = slotGroup[slot];
        return groupSlots[groupStarts[g] + random.nextInt(groupStarts[g + 1] - groupStarts[g])];
    }

    /**
     * Replaces edge {@code (a,b)} at {@code slotA} and edge {@code (c,e)} at {@code slotC} by
     * {@code (a,c)} and {@code (b,e)} if both are new, non-loop and allowed by the groups.
     */
    private boolean trySwitch(final int slotA, final int slotC)
    {
        final int a = slotA / d;
        final int b = adj[slotA];
        final int c = slotC / d;
        final int e = adj[slotC];
        // a == e or b == c would recreate the partner edge; c == e would turn a loop into a repeat.
        if (a == c || b == e || c == e || a == e || b == c)
        {
            return false;
        }
        if (slotGroup != null && groupNeedsDistinctLabels[slotGroup[slotA]] &&
            (labels[a] == labels[c] || labels[b] == labels[e]))
        {
            return false;
        }
        if (hasEdge(a, c) || hasEdge(b, e))
        {
            return false;
        }
        final int slotB = slotHolding(b, a, slotA);
        final int slotE = slotHolding(e, c, slotC);
        adj[slotA] = c;
        adj[slotB] = e;
        adj[slotC] = a;
        adj[slotE] = b;
        switches++;
        return true;
    }

    /** A slot of {@code row} holding {@code value}, other than {@code except}, in the group of {@code except}. */
    private int slotHolding(final int row, final int value, final int except)
    {
        final int group = slotGroup == null ? 0 : slotGroup[except];
        for (int s = row * d, end = s + d; s < end; s++)
        {
            if (adj[s] == value && s != except && (slotGroup == null || slotGroup[s] == group))
            {
                return s;
            }
        }
        throw new IllegalStateException("slot graph is not symmetric: " + value + " lists " + row +
            " but " + row + " does not list " + value);
    }

    /** True if {@code u} lists {@code v} in some slot. */
    public boolean hasEdge(final int u, final int v)
    {
        for (int s = u * d, end = s + d; s < end; s++)
        {
            if (adj[s] == v)
            {
                return true;
            }
        }
        return false;
    }

    /** The first defective slot of row {@code u} (loop, repeat or label violation), or -1. */
    private int findDefect(final int u)
    {
        final int base = u * d;
        if (d <= PAIRWISE_SCAN_MAX_DEGREE)
        {
            for (int i = 0; i < d; i++)
            {
                final int v = adj[base + i];
                if (v == u || violatesLabels(base + i, u, v))
                {
                    return base + i;
                }
                for (int j = 0; j < i; j++)
                {
                    if (adj[base + j] == v)
                    {
                        return base + i;
                    }
                }
            }
            return -1;
        }
        nextStamp();
        for (int i = 0; i < d; i++)
        {
            final int v = adj[base + i];
            if (v == u || marks[v] == stamp || violatesLabels(base + i, u, v))
            {
                return base + i;
            }
            marks[v] = stamp;
        }
        return -1;
    }

    private boolean violatesLabels(final int slot, final int u, final int v)
    {
        return slotGroup != null && groupNeedsDistinctLabels[slotGroup[slot]] && labels[u] == labels[v];
    }

    /** Switches applied so far (repairs and merges). */
    public long switches()
    {
        return switches;
    }

    /** Vertices. */
    public int n()
    {
        return n;
    }

    /** The degree every vertex gets. */
    public int degree()
    {
        return d;
    }

    /**
     * The simple graph these slots describe.
     *
     * @throws InvalidGraphException if defects remain.
     */
    public Graph toGraph()
    {
        final int m = adj.length / 2;
        final int[] us = new int[m];
        final int[] vs = new int[m];
        int k = 0;
        for (int u = 0; u < n; u++)
        {
            for (int s = u * d, end = s + d; s < end; s++)
            {
                final int v = adj[s];
                if (u < v)
                {
                    us[k] = u;
                    vs[k] = v;
                    k++;
                }
                else if (u == v)
                {
                    throw new InvalidGraphException("self-loop at " + u + " left in the slot graph: call " +
                        "removeDefects first");
                }
            }
        }
        // Without loops every edge has exactly one slot at its smaller endpoint, so k == m.
        return Graph.fromEdges(n, us, vs);
    }
}
