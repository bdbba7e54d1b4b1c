package io.mmx.planner.generate;

import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RandomRegularGeneratorTest
{
    private static final long BASE_SEED = 0x5EED_2026L;
    private final GraphGenerator generator = new RandomRegularGenerator();

    @Test
    void sameSeedSameGraphDifferentSeedDifferentGraph()
    {
        final Graph a = generator.generate(4096, 8, 42);
        assertEquals(a, generator.generate(4096, 8, 42));
        assertNotEquals(a, generator.generate(4096, 8, 43));
    }

    @Test
    void connectedRegularOverManySeeds()
    {
        System.out.println("RandomRegularGeneratorTest base seed " + BASE_SEED);
        final SplittableRandom seeds = new SplittableRandom(BASE_SEED);
        final int[][] shapes = {{64, 3}, {100, 4}, {256, 8}, {1000, 2}, {512, 16}, {300, 31}, {50, 40}, {4096, 8}};
        for (final int[] shape : shapes)
        {
            for (int i = 0; i < 20; i++)
            {
                final long seed = seeds.nextLong();
                final Graph graph = generator.generate(shape[0], shape[1], seed);
                GraphChecks.assertConnectedRegular(graph, shape[0], shape[1],
                    "n=" + shape[0] + " d=" + shape[1] + " seed=" + seed);
            }
        }
    }

    @Test
    void everySmallShapeWorks()
    {
        System.out.println("RandomRegularGeneratorTest base seed " + BASE_SEED);
        final SplittableRandom seeds = new SplittableRandom(BASE_SEED + 1);
        for (int n = 2; n <= 16; n++)
        {
            for (int d = 1; d < n; d++)
            {
                if ((n * d) % 2 != 0 || (d == 1 && n > 2))
                {
                    continue;
                }
                for (int i = 0; i < 10; i++)
                {
                    final long seed = seeds.nextLong();
                    GraphChecks.assertConnectedRegular(generator.generate(n, d, seed), n, d,
                        "n=" + n + " d=" + d + " seed=" + seed);
                }
            }
        }
    }

    @Test
    void sparseShapesComeFromThePairingPathOthersSayHow()
    {
        System.out.println("RandomRegularGeneratorTest base seed " + BASE_SEED);
        final RandomRegularGenerator random = new RandomRegularGenerator();
        final SplittableRandom seeds = new SplittableRandom(BASE_SEED + 2);
        final int[][] shapes = {{4096, 8}, {1000, 3}, {100, 4}, {256, 16}, {30, 7}};
        for (final int[] shape : shapes)
        {
            for (int i = 0; i < 5; i++)
            {
                final long seed = seeds.nextLong();
                final RandomRegularGenerator.Drawn drawn = random.draw(shape[0], shape[1], seed);
                final String context = "n=" + shape[0] + " d=" + shape[1] + " seed=" + seed;
                assertEquals(RandomRegularGenerator.Method.PAIRING_WITH_ADDED_EDGES, drawn.method(), context);
                GraphChecks.assertConnectedRegular(drawn.graph(), shape[0], shape[1], context);
                assertEquals(drawn.graph(), generator.generate(shape[0], shape[1], seed), context);
            }
        }
        assertEquals(RandomRegularGenerator.Method.SWITCHES, random.draw(1000, 2, 5).method());
        assertEquals(RandomRegularGenerator.Method.COMPLEMENT, random.draw(20, 10, 5).method());
    }

    @Test
    void denseDegreeUsesComplementAndStaysRandom()
    {
        final Graph complete = generator.generate(12, 11, 7);
        GraphChecks.assertConnectedRegular(complete, 12, 11, "complete K12");
        final Graph dense = generator.generate(200, 150, 7);
        GraphChecks.assertConnectedRegular(dense, 200, 150, "n=200 d=150 seed=7");
        assertNotEquals(dense, generator.generate(200, 150, 8));
    }

    @Test
    void isAGoodExpanderUnlikeACirculant()
    {
        final long seed = BASE_SEED;
        final double random = GraphChecks.secondEigenvalueEstimate(generator.generate(4096, 8, seed), 200, seed);
        final double ramanujan = 2 * Math.sqrt(7);
        assertTrue(random < ramanujan + 0.3, () -> "λ estimate " + random + " near 2√7 = " + ramanujan +
            ", seed " + seed);
        final double circulant =
            GraphChecks.secondEigenvalueEstimate(new CirculantGenerator().generate(4096, 8, seed), 200, seed);
        assertTrue(circulant > 7.5, () -> "circulant λ estimate " + circulant);
    }

    @Test
    void millionProcessesInSeconds()
    {
        final long start = System.nanoTime();
        final Graph graph = generator.generate(1_000_000, 8, BASE_SEED);
        final long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        System.out.println("random n=1000000 d=8 generated in " + elapsedMs + " ms (seed " + BASE_SEED + ")");
        GraphChecks.assertConnectedRegular(graph, 1_000_000, 8, "n=1e6 d=8 seed=" + BASE_SEED);
    }
}
