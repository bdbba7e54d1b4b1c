package io.mmx.planner.tolerance;

import io.mmx.planner.analysis.TestGraphs;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.spectral.Lanczos;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.*;

class FailureDomainToleranceTest
{
    @Test
    void boundsBracketTheBruteForceWorstCase()
    {
        for (long seed = 1; seed <= 4; seed++)
        {
            final int n = 20;
            final Graph g = TestGraphs.randomRegular(n, 4, seed);
            final int[] domainOf = new int[n];
            Arrays.setAll(domainOf, p -> p / 4); // 5 hosts of 4 processes
            System.out.println("FailureDomainToleranceTest n=20 d=4 graphSeed=" + seed);
            final FailureDomainReport report = new FailureDomainTolerance(seed, 500, 3, 100, new ExactTolerance(40, 10_000))
                .analyze(g, domainOf, new Lanczos(seed).estimate(g));
            assertEquals(5, report.domainCount());
            for (final DomainFailureLevel level : report.levels())
            {
                final int truth = bruteForceWorst(g, domainOf, level.failedDomains());
                final String context = "seed " + seed + " " + level + " truth " + truth;
                assertTrue(level.exhaustive(), context);
                assertEquals(truth, level.exactFurtherCrashes().orElseThrow(), context);
                assertTrue(level.certifiedFurtherCrashes() <= truth, context);
                assertTrue(truth <= level.attackFurtherCrashes(), context);
                assertAttackWitnessBlocks(g, domainOf, level);
            }
            assertEquals(n - 1 - BruteForce.maxBlockedSetSize(g, n / 2),
                report.levels().get(0).exactFurtherCrashes().orElseThrow());
        }
    }

    @Test
    void certifiedSideWithoutExactIsSound()
    {
        final int n = 24;
        final Graph g = TestGraphs.randomRegular(n, 6, 77);
        final int[] domainOf = new int[n];
        Arrays.setAll(domainOf, p -> 10 * (p % 6)); // 6 racks with sparse labels
        System.out.println("FailureDomainToleranceTest n=24 d=6 graphSeed=77 (no exact)");
        final FailureDomainReport report = new FailureDomainTolerance(3, 300, 2, 100, null)
            .analyze(g, domainOf, new Lanczos(3).estimate(g));
        for (final DomainFailureLevel level : report.levels())
        {
            final int truth = bruteForceWorst(g, domainOf, level.failedDomains());
            assertTrue(level.certifiedFurtherCrashes() <= truth && truth <= level.attackFurtherCrashes(),
                level + " truth " + truth);
            assertTrue(level.exactFurtherCrashes().isEmpty());
            assertAttackWitnessBlocks(g, domainOf, level);
        }
    }

    @Test
    void heuristicModeSaysSo()
    {
        final int n = 64;
        final Graph g = TestGraphs.randomRegular(n, 4, 5);
        final int[] domainOf = new int[n];
        Arrays.setAll(domainOf, p -> p / 2); // 32 hosts
        final FailureDomainReport report = new FailureDomainTolerance(5, 300, 2, 10, null).analyze(g, domainOf, null);
        final DomainFailureLevel two = report.levels().get(2);
        assertFalse(two.exhaustive());
        assertTrue(two.method().startsWith("heuristic"));
        assertTrue(two.certifiedFurtherCrashes() <= two.attackFurtherCrashes());
        assertAttackWitnessBlocks(g, domainOf, two);
    }

    @Test
    void rejectsMismatchedLabels()
    {
        final FailureDomainTolerance tolerance = new FailureDomainTolerance(1, 10, 1, 10, null);
        assertThrows(IllegalArgumentException.class, () -> tolerance.analyze(TestGraphs.cycle(5), new int[4], null));
        assertThrows(IllegalArgumentException.class, () -> tolerance.analyze(TestGraphs.cycle(3), new int[] {0, -1, 0}, null));
    }

    /** The attack's domains and witness really block: survivors' closed neighbourhood minus lost regions. */
    private static void assertAttackWitnessBlocks(final Graph g, final int[] domainOf, final DomainFailureLevel level)
    {
        final boolean[] lost = new boolean[g.n()];
        int survivors = g.n();
        for (int p = 0; p < g.n(); p++)
        {
            for (final int d : level.attackDomains())
            {
                if (domainOf[p] == d)
                {
                    lost[p] = true;
                    survivors--;
                }
            }
        }
        final boolean[] reached = new boolean[g.n()];
        int count = 0;
        for (final int p : level.attackWitness())
        {
            assertFalse(lost[p]);
            for (final int q : closed(g, p))
            {
                if (!lost[q] && !reached[q])
                {
                    reached[q] = true;
                    count++;
                }
            }
        }
        assertTrue(count <= g.n() / 2);
        assertEquals(survivors - 1 - level.attackWitness().length, level.attackFurtherCrashes());
    }

    private static int[] closed(final Graph g, final int p)
    {
        final int[] open = g.neighbours(p);
        final int[] closed = Arrays.copyOf(open, open.length + 1);
        closed[open.length] = p;
        return closed;
    }

    /** Worst case over every set of r domains of (survivors - 1 - s*) on the survivor graph. */
    private static int bruteForceWorst(final Graph g, final int[] domainOf, final int r)
    {
        final int[] labels = Arrays.stream(domainOf).distinct().sorted().toArray();
        int worst = Integer.MAX_VALUE;
        for (int mask = 0; mask < 1 << labels.length; mask++)
        {
            if (Integer.bitCount(mask) != r)
            {
                continue;
            }
            final int m = mask;
            final int[] survivors = java.util.stream.IntStream.range(0, g.n())
                .filter(p -> (m & (1 << Arrays.binarySearch(labels, domainOf[p]))) == 0).toArray();
            final int tolerance = survivors.length <= g.n() / 2 ? -1 : survivors.length - 1 -
                BruteForce.maxBlockedSetSize(FailureDomainTolerance.induced(g, survivors), g.n() / 2);
            worst = Math.min(worst, tolerance);
        }
        return worst;
    }
}
