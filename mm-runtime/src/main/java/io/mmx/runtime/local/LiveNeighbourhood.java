package io.mmx.runtime.local;

import io.mmx.planner.graph.Graph;

/**
 * The m&amp;m liveness condition for a local cluster whose JVMs die whole: with live set S, consensus
 * needs |N[S]| &gt; n/2, the closed neighbourhood reaching a majority of acceptors.
 */
public final class LiveNeighbourhood
{
    private LiveNeighbourhood()
    {
    }

    /** |N[S]| where S is every process of a JVM marked alive. */
    public static int closedNeighbourhood(final Graph graph, final ClusterLayout layout, final boolean[] jvmAlive)
    {
        final boolean[] live = new boolean[graph.n()];
        for (int p = 0; p < live.length; p++)
        {
            live[p] = jvmAlive[layout.jvmOf(p)];
        }
        return graph.closedNeighbourhoodSize(live);
    }

    /** Processes hosted by live JVMs. */
    public static int live(final ClusterLayout layout, final boolean[] jvmAlive)
    {
        int live = 0;
        for (int j = 0; j < layout.jvms(); j++)
        {
            live += jvmAlive[j] ? layout.lastId(j) - layout.firstId(j) + 1 : 0;
        }
        return live;
    }

    /** Acceptors a quorum needs. */
    public static int quorum(final int n)
    {
        return n / 2 + 1;
    }

    /**
     * A JVM among {@code candidates} whose death keeps |N[S]| at a quorum or more, preferring
     * {@code preferred} (e.g. the leader's JVM), else the one that keeps |N[S]| largest; -1 if none.
     */
    public static int nextSafeKill(final Graph graph, final ClusterLayout layout, final boolean[] jvmAlive,
        final boolean[] candidates, final int preferred)
    {
        int best = -1;
        int bestCover = -1;
        for (int j = 0; j < layout.jvms(); j++)
        {
            if (!candidates[j] || !jvmAlive[j])
            {
                continue;
            }
            jvmAlive[j] = false;
            final int cover = closedNeighbourhood(graph, layout, jvmAlive);
            jvmAlive[j] = true;
            if (cover >= quorum(graph.n()))
            {
                if (j == preferred)
                {
                    return j;
                }
                if (cover > bestCover)
                {
                    best = j;
                    bestCover = cover;
                }
            }
        }
        return best;
    }
}
