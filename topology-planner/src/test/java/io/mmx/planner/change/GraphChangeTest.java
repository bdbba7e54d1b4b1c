package io.mmx.planner.change;

import io.mmx.planner.generate.GraphChecks;
import io.mmx.planner.generate.RandomRegularGenerator;
import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GraphChangeTest
{
    private static final long BASE_SEED = 0xC4A_4E5L;
    private static final RandomRegularGenerator RANDOM = new RandomRegularGenerator();

    private static void assertRejected(final Runnable change, final String... phrases)
    {
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class, change::run);
        for (final String phrase : phrases)
        {
            assertTrue(error.getMessage().contains(phrase), () -> "'" + phrase + "' in: " + error.getMessage());
        }
    }

    /** Every old edge between survivors is either kept (through the relabelling) or listed as removed. */
    private static void assertDiffExplainsChange(final Graph old, final ChangeResult result, final String context)
    {
        final Graph neu = result.graph();
        old.forEachEdge((u, v) ->
        {
            final int nu = result.newIdOf(u);
            final int nv = result.newIdOf(v);
            final boolean kept = nu >= 0 && nv >= 0 && neu.hasEdge(nu, nv);
            assertEquals(!kept, result.removedEdges().contains(u, v), () -> "edge " + u + "-" + v + ", " + context);
        });
        final int[] oldIdOf = new int[neu.n()];
        Arrays.fill(oldIdOf, -1);
        for (int v = 0; v < old.n(); v++)
        {
            if (result.newIdOf(v) >= 0)
            {
                oldIdOf[result.newIdOf(v)] = v;
            }
        }
        neu.forEachEdge((u, v) ->
        {
            final boolean existed = oldIdOf[u] >= 0 && oldIdOf[v] >= 0 && old.hasEdge(oldIdOf[u], oldIdOf[v]);
            assertEquals(!existed, result.addedEdges().contains(u, v), () -> "edge " + u + "-" + v + ", " + context);
        });
    }

    @Test
    void growingByOneRewiresExactlyHalfTheDegree()
    {
        final Graph old = RANDOM.generate(4096, 8, BASE_SEED);
        final ChangeResult result = GraphChange.grow(old, 1, BASE_SEED);
        GraphChecks.assertConnectedRegular(result.graph(), 4097, 8, "grow by 1, seed " + BASE_SEED);
        assertEquals(4, result.removedEdges().size());
        assertEquals(4, result.diff().rewiredEdges());
        assertEquals(8, result.addedEdges().size());
        assertEquals(9, result.diff().changedProcesses());
        assertEquals(1, result.diff().addedProcesses());
        assertEquals(0, result.movedProcesses());
        assertDiffExplainsChange(old, result, "grow by 1, seed " + BASE_SEED);
    }

    @Test
    void growingKeepsRegularConnectedGraphsAcrossSeeds()
    {
        System.out.println("GraphChangeTest base seed " + BASE_SEED);
        final SplittableRandom seeds = new SplittableRandom(BASE_SEED);
        final int[][] shapes = {{5, 4}, {7, 6}, {20, 4}, {100, 3}, {64, 5}, {500, 8}};
        for (final int[] shape : shapes)
        {
            for (int i = 0; i < 20; i++)
            {
                final long seed = seeds.nextLong();
                final int added = 2 * (1 + i % 5);
                final String context = "n=" + shape[0] + " d=" + shape[1] + " +" + added + " seed=" + seed;
                final Graph old = RANDOM.generate(shape[0], shape[1], seed);
                final ChangeResult result = GraphChange.grow(old, added, seed);
                GraphChecks.assertConnectedRegular(result.graph(), shape[0] + added, shape[1], context);
                assertTrue(result.removedEdges().size() <= added * (shape[1] / 2), context);
                assertDiffExplainsChange(old, result, context);
            }
        }
    }

    @Test
    void growingIsDeterministic()
    {
        final Graph old = RANDOM.generate(300, 6, 1);
        assertEquals(GraphChange.grow(old, 10, 5).graph(), GraphChange.grow(old, 10, 5).graph());
        assertFalse(GraphChange.grow(old, 10, 5).graph().equals(GraphChange.grow(old, 10, 6).graph()));
    }

    @Test
    void growingRejectsWhatCannotStayRegular()
    {
        final Graph cubic = RANDOM.generate(20, 3, 1);
        assertRejected(() -> GraphChange.grow(cubic, 1, 1), "degree 3 is odd", "add an even number");
        assertRejected(() -> GraphChange.grow(cubic, -1, 1), "use shrink");
        final Graph irregular = Graph.builder(3).addEdge(0, 1).addEdge(1, 2).build();
        assertRejected(() -> GraphChange.grow(irregular, 1, 1), "degrees range from 1 to 2", "plan a new");
    }

    @Test
    void shrinkingTheHighestIdsMovesNobody()
    {
        final Graph old = RANDOM.generate(4096, 8, BASE_SEED);
        final ChangeResult result = GraphChange.shrink(old, 3, BASE_SEED);
        final String context = "shrink by 3, seed " + BASE_SEED;
        GraphChecks.assertConnectedRegular(result.graph(), 4093, 8, context);
        assertEquals(0, result.movedProcesses());
        assertEquals(3, result.diff().removedProcesses());
        assertEquals(-1, result.newIdOf(4095));
        // 24 links die with the processes (fewer if they were neighbours); survivors' links stay put.
        assertTrue(result.diff().rewiredEdges() <= 2, context + ": " + result.diff());
        assertDiffExplainsChange(old, result, context);
    }

    @Test
    void shrinkingMovesTheHighestSurvivorsIntoTheHoles()
    {
        final Graph old = RANDOM.generate(100, 6, 3);
        final ChangeResult result = GraphChange.shrink(old, new int[] {17, 0, 98, 5}, 3);
        GraphChecks.assertConnectedRegular(result.graph(), 96, 6, "shrink {17,0,98,5} seed 3");
        final int[] relabelling = result.relabelling();
        assertEquals(-1, relabelling[0]);
        assertEquals(-1, relabelling[98]);
        assertEquals(0, relabelling[96]);
        assertEquals(5, relabelling[97]);
        assertEquals(17, relabelling[99]);
        assertEquals(50, relabelling[50]);
        assertEquals(3, result.movedProcesses());
        assertDiffExplainsChange(old, result, "shrink {17,0,98,5} seed 3");
    }

    @Test
    void shrinkingKeepsRegularConnectedGraphsAcrossSeeds()
    {
        System.out.println("GraphChangeTest base seed " + BASE_SEED);
        final SplittableRandom seeds = new SplittableRandom(BASE_SEED + 1);
        final int[][] shapes = {{12, 4}, {30, 2}, {40, 3}, {64, 6}, {500, 8}};
        for (final int[] shape : shapes)
        {
            for (int i = 0; i < 20; i++)
            {
                final long seed = seeds.nextLong();
                final int n = shape[0];
                final int d = shape[1];
                final SplittableRandom pick = new SplittableRandom(seed);
                final int count = Math.min(n - d - 1, 2 * (1 + pick.nextInt(n / 4)));
                final int[] removed = pick.ints(0, n).distinct().limit(count).toArray();
                final String context = "n=" + n + " d=" + d + " remove " + count + " seed=" + seed;
                final Graph old = RANDOM.generate(n, d, seed);
                final ChangeResult result = GraphChange.shrink(old, removed, seed);
                GraphChecks.assertConnectedRegular(result.graph(), n - count, d, context);
                assertDiffExplainsChange(old, result, context);
            }
        }
    }

    @Test
    void shrinkIsDeterministic()
    {
        final Graph old = RANDOM.generate(300, 6, 1);
        final int[] removed = {3, 30, 300 - 1};
        assertArrayEquals(GraphChange.shrink(old, removed, 4).graph().targets(),
            GraphChange.shrink(old, removed, 4).graph().targets());
    }

    @Test
    void shrinkingRejectsBadRequestsNamingTheFix()
    {
        final Graph old = RANDOM.generate(20, 3, 1);
        assertRejected(() -> GraphChange.shrink(old, new int[] {1, 1}, 1), "listed twice", "list each once");
        assertRejected(() -> GraphChange.shrink(old, new int[] {20}, 1), "cannot remove process 20");
        assertRejected(() -> GraphChange.shrink(old, new int[] {1}, 1), "degree 3 is odd", "remove an even number");
        assertRejected(() -> GraphChange.shrink(old, 18, 1), "too few for degree 3", "remove fewer");
        assertRejected(() -> GraphChange.shrink(old, 20, 1), "give a count from 0 to 19");
    }

    @Test
    void growThenShrinkReturnsToTheSameSize()
    {
        final Graph old = RANDOM.generate(1000, 8, 11);
        final ChangeResult grown = GraphChange.grow(old, 50, 11);
        final ChangeResult shrunk = GraphChange.shrink(grown.graph(), 50, 12);
        GraphChecks.assertConnectedRegular(shrunk.graph(), 1000, 8, "grow 50 then shrink 50, seed 11/12");
    }
}
