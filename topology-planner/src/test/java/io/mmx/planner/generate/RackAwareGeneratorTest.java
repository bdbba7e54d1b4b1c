package io.mmx.planner.generate;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.placement.Placement;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RackAwareGeneratorTest
{
    private static final long BASE_SEED = 0xACE_0F_1ACEL;

    private static int maxCrossRackEdges(final Graph graph, final Placement placement)
    {
        int max = 0;
        for (int p = 0; p < graph.n(); p++)
        {
            int cross = 0;
            for (final int q : graph.neighbours(p))
            {
                cross += placement.rackOf(p) != placement.rackOf(q) ? 1 : 0;
            }
            max = Math.max(max, cross);
        }
        return max;
    }

    @Test
    void capsCrossRackEdgesAndStaysAConnectedRegularExpander()
    {
        System.out.println("RackAwareGeneratorTest base seed " + BASE_SEED);
        final SplittableRandom seeds = new SplittableRandom(BASE_SEED);
        final Placement placement = Placement.contiguous(512, 8, 4, 16);
        final RackAwareGenerator generator = new RackAwareGenerator(placement, 0.5);
        for (int i = 0; i < 20; i++)
        {
            final long seed = seeds.nextLong();
            final Graph graph = generator.generate(512, 8, seed);
            GraphChecks.assertConnectedRegular(graph, 512, 8, "rack-aware 8x4x16 cap 0.5 seed=" + seed);
            assertTrue(maxCrossRackEdges(graph, placement) <= 4, "cap of 4 cross-rack edges, seed=" + seed);
        }
        final double lambda = GraphChecks.secondEigenvalueEstimate(generator.generate(512, 8, BASE_SEED), 200, 1);
        assertTrue(lambda < 6.0, () -> "λ estimate " + lambda + " for seed " + BASE_SEED);
    }

    @Test
    void handlesPartialRacksOddDegreeAndParity()
    {
        System.out.println("RackAwareGeneratorTest base seed " + BASE_SEED);
        final SplittableRandom seeds = new SplittableRandom(BASE_SEED + 1);
        // 330 processes: racks of 100, 100, 100 and 30; odd degree makes some in-rack totals odd.
        final Placement placement = Placement.contiguous(330, 4, 10, 10);
        for (final double cap : new double[] {0.2, 0.4, 1.0})
        {
            final RackAwareGenerator generator = new RackAwareGenerator(placement, cap);
            for (int i = 0; i < 10; i++)
            {
                final long seed = seeds.nextLong();
                final Graph graph = generator.generate(330, 5, seed);
                GraphChecks.assertConnectedRegular(graph, 330, 5, "cap " + cap + " seed=" + seed);
                assertTrue(maxCrossRackEdges(graph, placement) <= generator.crossRackEdgesPerProcess(5),
                    "cap " + cap + " seed=" + seed);
            }
        }
    }

    @Test
    void isDeterministicFromTheSeed()
    {
        final RackAwareGenerator generator = new RackAwareGenerator(Placement.contiguous(256, 4, 4, 16), 0.375);
        assertEquals(3, generator.crossRackEdgesPerProcess(8));
        final Graph graph = generator.generate(256, 8, 9);
        assertEquals(graph, generator.generate(256, 8, 9));
        assertNotEquals(graph, generator.generate(256, 8, 10));
        assertEquals("rack-aware", generator.name());
    }

    @Test
    void oneRackIsAPlainRandomGraph()
    {
        final Placement placement = Placement.contiguous(64, 1, 4, 16);
        final Graph graph = new RackAwareGenerator(placement, 0.0).generate(64, 6, 3);
        GraphChecks.assertConnectedRegular(graph, 64, 6, "one rack seed=3");
    }

    @Test
    void rejectsImpossibleRequestsNamingTheFix()
    {
        final Placement placement = Placement.contiguous(64, 4, 2, 8);
        final IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
            () -> new RackAwareGenerator(placement, 0.1).generate(64, 8, 1));
        assertTrue(zero.getMessage().contains("raise the cap to at least 1/8"), zero.getMessage());

        final IllegalArgumentException small = assertThrows(IllegalArgumentException.class,
            () -> new RackAwareGenerator(placement, 0.125).generate(64, 20, 1));
        assertTrue(small.getMessage().contains("raise the cross-rack cap"), small.getMessage());

        final IllegalArgumentException count = assertThrows(IllegalArgumentException.class,
            () -> new RackAwareGenerator(placement, 0.5).generate(60, 8, 1));
        assertTrue(count.getMessage().contains("make the placement for n processes"), count.getMessage());

        final IllegalArgumentException range = assertThrows(IllegalArgumentException.class,
            () -> new RackAwareGenerator(placement, 1.5));
        assertTrue(range.getMessage().contains("[0, 1]"), range.getMessage());

        final Placement lopsided = Placement.explicit(2, 1, 100, fill(60, 0, 10, 1), fill(60, 0, 10, 1));
        final IllegalArgumentException uneven = assertThrows(IllegalArgumentException.class,
            () -> new RackAwareGenerator(lopsided, 0.5).generate(70, 4, 1));
        assertTrue(uneven.getMessage().contains("spread the processes more evenly"), uneven.getMessage());
    }

    private static int[] fill(final int firstCount, final int firstValue, final int secondCount, final int secondValue)
    {
        final int[] values = new int[firstCount + secondCount];
        Arrays.fill(values, 0, firstCount, firstValue);
        Arrays.fill(values, firstCount, values.length, secondValue);
        return values;
    }
}
