package io.mmx.planner.plan;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Whether live processes reach a quorum of a plan's acceptors, counted on a ring of 8 (quorum 5). */
class LiveQuorumTest
{
    private static Plan ring(final int n)
    {
        final Graph.Builder builder = Graph.builder(n);
        for (int i = 0; i < n; i++)
        {
            builder.addEdge(i, (i + 1) % n);
        }
        return Plan.sealed(builder.build(), 2, "circulant", 7, null, JsonNodeFactory.instance.objectNode());
    }

    @Test
    void theClosedNeighbourhoodOfTheLiveProcessesIsCountedAgainstAMajority()
    {
        final Plan plan = ring(8);
        final PlanChanges.LiveQuorum two = PlanChanges.liveQuorum(plan, new int[] {0, 4});
        assertEquals(new PlanChanges.LiveQuorum(2, 6, 8, 5), two, "N[{0, 4}] = {7, 0, 1, 3, 4, 5}");
        assertTrue(two.holds());
        final PlanChanges.LiveQuorum exactly = PlanChanges.liveQuorum(plan, new int[] {0, 2});
        assertEquals(5, exactly.reach(), "N[{0, 2}] = {7, 0, 1, 2, 3}");
        assertTrue(exactly.holds(), "5 of 8 acceptors are a quorum");
        final PlanChanges.LiveQuorum adjacent = PlanChanges.liveQuorum(plan, new int[] {0, 1, 1});
        assertEquals(new PlanChanges.LiveQuorum(2, 4, 8, 5), adjacent, "N[{0, 1}] = {7, 0, 1, 2}; 1 listed twice counts once");
        assertFalse(adjacent.holds());
        assertTrue(adjacent.describe().contains("|N[S]| = 4 of n = 8 acceptors; a quorum needs 5"), adjacent.describe());
        assertTrue(adjacent.describe().contains("start 1 more"), adjacent.describe());
    }

    @Test
    void anIdOutsideThePlanIsRefusedByName()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> PlanChanges.liveQuorum(ring(8), new int[] {3, 8}));
        assertTrue(e.getMessage().contains("live process 8 is not in the plan (ids 0-7)"), e.getMessage());
    }

    @Test
    void idListsParseAsRangesAndRefuseWhatIsNotOne()
    {
        assertArrayEquals(new int[] {0, 1, 2, 3, 8, 10, 11}, ProcessIds.parse("0-3, 8,10-11"));
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProcessIds.parse("0-3,5-2"));
        assertTrue(e.getMessage().contains("'5-2' is not an id or a range"), e.getMessage());
    }
}
