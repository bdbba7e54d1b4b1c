package io.mmx.planner.change;

import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GraphDiffTest
{
    private static Graph ring(final int n)
    {
        final Graph.Builder builder = Graph.builder(n);
        for (int v = 0; v < n; v++)
        {
            builder.addEdge(v, (v + 1) % n);
        }
        return builder.build();
    }

    @Test
    void findsAddedAndRemovedEdgesAndTheProcessesTheyTouch()
    {
        final Graph old = ring(6);
        final Graph neu = Graph.builder(6).addEdge(1, 2).addEdge(2, 3).addEdge(3, 4).addEdge(4, 5).addEdge(5, 0)
            .addEdge(0, 3).build();
        final GraphDiff diff = GraphDiff.between(old, neu);
        assertEquals("[(0, 3)]", diff.added().toString());
        assertEquals("[(0, 1)]", diff.removed().toString());
        assertEquals(3, diff.changedProcesses());
        assertEquals(1, diff.rewiredEdges());
        assertEquals(0, diff.addedProcesses());
        assertEquals(0, diff.removedProcesses());
    }

    @Test
    void identicalGraphsDiffToNothing()
    {
        final GraphDiff diff = GraphDiff.between(ring(7), ring(7));
        assertTrue(diff.added().isEmpty() && diff.removed().isEmpty());
        assertEquals(0, diff.changedProcesses());
    }

    @Test
    void relabellingIsFollowed()
    {
        // Path 0-1-2-3 becomes path 1-0-2-3 under the swap 0 <-> 1: the same links, renamed.
        final Graph old = Graph.builder(4).addEdge(0, 1).addEdge(1, 2).addEdge(2, 3).build();
        final Graph neu = Graph.builder(4).addEdge(1, 0).addEdge(0, 2).addEdge(2, 3).build();
        final GraphDiff diff = GraphDiff.between(old, neu, new int[] {1, 0, 2, 3});
        assertTrue(diff.added().isEmpty() && diff.removed().isEmpty(), diff.toString());
        assertEquals(0, diff.changedProcesses());
        // Without the relabelling the same pair of graphs differs.
        assertEquals(1, GraphDiff.between(old, neu).added().size());
    }

    @Test
    void growingAndShrinkingCountProcesses()
    {
        final Graph small = Graph.builder(3).addEdge(0, 1).addEdge(1, 2).build();
        final Graph large = Graph.builder(4).addEdge(0, 1).addEdge(1, 3).addEdge(3, 2).build();
        final GraphDiff grow = GraphDiff.between(small, large);
        assertEquals(1, grow.addedProcesses());
        assertEquals("[(1, 3), (2, 3)]", grow.added().toString());
        assertEquals("[(1, 2)]", grow.removed().toString());
        assertEquals(3, grow.changedProcesses());
        final GraphDiff shrink = GraphDiff.between(large, small);
        assertEquals(1, shrink.removedProcesses());
        assertEquals(0, shrink.rewiredEdges());
        assertEquals(2, shrink.removed().size());
    }

    @Test
    void rejectsABadRelabelling()
    {
        final Graph g = ring(4);
        assertThrows(IllegalArgumentException.class, () -> GraphDiff.between(g, g, new int[] {0, 1, 2}));
        final IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
            () -> GraphDiff.between(g, g, new int[] {0, 0, 2, 3}));
        assertTrue(twice.getMessage().contains("each new id names one process"), twice.getMessage());
    }
}
