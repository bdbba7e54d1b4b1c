package io.mmx.planner.change;

import io.mmx.planner.graph.Graph;

/**
 * The outcome of growing or shrinking a plan graph: the new graph, the relabelling that says
 * which old process is which new one, and the diff ops apply (edges to tear down in old ids,
 * edges to connect in new ids).
 */
public final class ChangeResult
{
    private final Graph graph;
    private final int[] relabelling;
    private final GraphDiff diff;

    ChangeResult(final Graph graph, final int[] relabelling, final GraphDiff diff)
    {
        this.graph = graph;
        this.relabelling = relabelling;
        this.diff = diff;
    }

    /** The new graph: connected, simple and regular with the old degree. */
    public Graph graph()
    {
        return graph;
    }

    /**
     * A copy of the relabelling: entry {@code v} is old process v's new id, or -1 if it was
     * removed. The identity for growth; after shrinking, the highest surviving ids have moved
     * into the holes the removed processes left.
     */
    public int[] relabelling()
    {
        return relabelling.clone();
    }

    /** New id of old process {@code oldId}, or -1 if it was removed. */
    public int newIdOf(final int oldId)
    {
        return relabelling[oldId];
    }

    /** Old processes whose id changed (moved into a hole), not counting removed ones. */
    public int movedProcesses()
    {
        int moved = 0;
        for (int v = 0; v < relabelling.length; v++)
        {
            moved += relabelling[v] >= 0 && relabelling[v] != v ? 1 : 0;
        }
        return moved;
    }

    /** The edges added and removed. */
    public GraphDiff diff()
    {
        return diff;
    }

    /** Edges of the new graph not in the old one, in new ids. */
    public EdgeList addedEdges()
    {
        return diff.added();
    }

    /** Edges of the old graph not in the new one, in old ids. */
    public EdgeList removedEdges()
    {
        return diff.removed();
    }

    @Override
    public String toString()
    {
        return "ChangeResult(" + graph + ", moved=" + movedProcesses() + ", " + diff + ")";
    }
}
