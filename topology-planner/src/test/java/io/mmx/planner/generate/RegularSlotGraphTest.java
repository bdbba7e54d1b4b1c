package io.mmx.planner.generate;

import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RegularSlotGraphTest
{
    @Test
    void repairsLoopsAndRepeatsWithoutChangingDegrees()
    {
        // 2-regular on 6 vertices: a loop at 0, a double edge 1=2, and the triangle 3-4-5.
        final int[] adj = {0, 0, 2, 2, 1, 1, 4, 5, 3, 5, 3, 4};
        final RegularSlotGraph slots = new RegularSlotGraph(6, 2, adj);
        final SplittableRandom random = new SplittableRandom(1);
        assertTrue(slots.removeDefects(random));
        assertTrue(slots.connect(random));
        final Graph cycle = slots.toGraph();
        assertEquals(2, cycle.regularDegree());
        assertTrue(cycle.isConnected(), "a connected 2-regular graph on 6 vertices is C6");
        assertTrue(slots.switches() >= 2);
    }

    @Test
    void addOnlyRepairKeepsEveryEdgeOfThePairing()
    {
        // 3-regular multigraph on 8 vertices: a loop at 0, double edges 1=2 and 6=7.
        final int[] adj = {0, 0, 1, 0, 2, 2, 1, 1, 3, 2, 4, 5, 3, 5, 6, 3, 4, 7, 4, 7, 7, 5, 6, 6};
        final int[][] kept = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {3, 5}, {4, 5}, {4, 6}, {5, 7}, {6, 7}};
        for (long seed = 1; seed <= 20; seed++)
        {
            final RegularSlotGraph slots = new RegularSlotGraph(8, 3, adj.clone());
            assertTrue(slots.repairByAddingEdges(new SplittableRandom(seed), 16), "seed " + seed);
            final Graph g = slots.toGraph();
            assertEquals(3, g.regularDegree(), "seed " + seed);
            for (final int[] e : kept)
            {
                assertTrue(g.hasEdge(e[0], e[1]), "seed " + seed + ": edge " + Arrays.toString(e) + " was removed");
            }
            assertEquals(0, slots.switches(), "no switch may run");
        }
    }

    @Test
    void addOnlyRepairReportsAShapeItCannotMend()
    {
        // One double edge 0=1 and nothing else wrong: the two freed slots sit on adjacent vertices,
        // so adding edges alone cannot restore degree 3.
        final int[] adj = {1, 1, 2, 0, 0, 3, 0, 4, 5, 1, 4, 5, 2, 3, 5, 2, 3, 4};
        final RegularSlotGraph slots = new RegularSlotGraph(6, 3, adj);
        assertTrue(!slots.repairByAddingEdges(new SplittableRandom(3), 16));
    }

    @Test
    void joinsComponentsBySwitching()
    {
        // Two disjoint K4s become one connected 3-regular graph on 8 vertices.
        final int[] adj = {1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2, 5, 6, 7, 4, 6, 7, 4, 5, 7, 4, 5, 6};
        final RegularSlotGraph slots = new RegularSlotGraph(8, 3, adj);
        assertTrue(slots.connect(new SplittableRandom(2)));
        final Graph joined = slots.toGraph();
        assertEquals(3, joined.regularDegree());
        assertTrue(joined.isConnected());
    }

    @Test
    void completeGroupJoinsAllMembersAndCrossGroupJoinsDifferentLabels()
    {
        // Vertices 0..3 on label 0, 4..7 on label 1; slots 0-2 of each vertex in-label, slot 3 cross.
        final int n = 8;
        final int d = 4;
        final int[] group = new int[n * d];
        final int[] labels = new int[n];
        for (int v = 0; v < n; v++)
        {
            labels[v] = v / 4;
            for (int i = 0; i < d; i++)
            {
                group[v * d + i] = i < 3 ? labels[v] : 2;
            }
        }
        final RegularSlotGraph slots = new RegularSlotGraph(n, d, new int[n * d]);
        slots.useGroups(group, new boolean[] {false, false, true}, labels);
        slots.completeGroup(0);
        slots.completeGroup(1);
        final SplittableRandom random = new SplittableRandom(3);
        slots.pairAtRandom(random);
        assertTrue(slots.removeDefects(random));
        final Graph graph = slots.toGraph();
        assertArrayEquals(new int[] {1, 2, 3}, Arrays.copyOf(graph.neighbours(0), 3));
        assertArrayEquals(new int[] {5, 6, 7}, Arrays.copyOfRange(graph.neighbours(4), 1, 4));
        for (int v = 0; v < n; v++)
        {
            // Sorted rows: label 0's cross neighbour comes last, label 1's first.
            final int crossNeighbour = graph.neighbours(v)[v < 4 ? 3 : 0];
            assertTrue(labels[crossNeighbour] != labels[v], "vertex " + v + " crosses to " + crossNeighbour);
        }
    }

    @Test
    void rejectsGroupsThatCannotBePaired()
    {
        final RegularSlotGraph slots = new RegularSlotGraph(3, 2, new int[6]);
        final IllegalArgumentException odd = assertThrows(IllegalArgumentException.class,
            () -> slots.useGroups(new int[] {0, 1, 0, 0, 1, 1}, new boolean[2], new int[3]));
        assertTrue(odd.getMessage().contains("odd number of slots"), odd.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new RegularSlotGraph(3, 2, new int[5]));
    }
}
