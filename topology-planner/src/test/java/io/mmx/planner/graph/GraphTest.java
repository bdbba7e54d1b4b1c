package io.mmx.planner.graph;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class GraphTest
{
    private static Graph cycle(final int n)
    {
        final Graph.Builder b = Graph.builder(n);
        for (int i = 0; i < n; i++)
        {
            b.addEdge(i, (i + 1) % n);
        }
        return b.build();
    }

    @Test
    void cycleHasSortedSymmetricRows()
    {
        final Graph g = cycle(12);
        assertEquals(12, g.edgeCount());
        assertEquals(2, g.regularDegree());
        assertArrayEquals(new int[] {1, 11}, g.neighbours(0));
        assertTrue(g.hasEdge(11, 0));
        assertFalse(g.hasEdge(0, 2));
        assertTrue(g.isConnected());
        assertEquals(6, g.eccentricity(0));
    }

    @Test
    void closedNeighbourhoodCountsOverlapOnce()
    {
        final Graph g = cycle(12);
        final boolean[] s = new boolean[12];
        s[0] = true;
        s[1] = true;
        assertEquals(4, g.closedNeighbourhoodSize(s));
    }

    @Test
    void rejectsSelfLoopDuplicateAndRange()
    {
        assertThrows(InvalidGraphException.class, () -> Graph.builder(3).addEdge(1, 1));
        assertThrows(InvalidGraphException.class, () -> Graph.builder(3).addEdge(0, 3));
        final InvalidGraphException e = assertThrows(InvalidGraphException.class,
            () -> Graph.builder(3).addEdge(0, 1).addEdge(1, 0).build());
        assertTrue(e.getMessage().contains("(0, 1)"), e.getMessage());
    }

    @Test
    void emptyGraphHasComponentsPerVertex()
    {
        final Graph g = Graph.empty(5);
        assertEquals(5, g.componentCount());
        assertFalse(g.isConnected());
        assertEquals(0, g.regularDegree());
    }
}
