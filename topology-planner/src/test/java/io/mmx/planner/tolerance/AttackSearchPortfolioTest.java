package io.mmx.planner.tolerance;

import io.mmx.planner.analysis.TestGraphs;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.spectral.Lanczos;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The two-worker attack (n >= 512): witnesses stay valid; the incremental swap bookkeeping matches a recount. */
class AttackSearchPortfolioTest
{
    @Test
    void parallelWorkersReturnAValidWitness()
    {
        for (long seed = 1; seed <= 3; seed++)
        {
            System.out.println("AttackSearchPortfolioTest n=1024 d=8 graphSeed=" + seed);
            final Graph g = TestGraphs.randomRegular(1024, 8, seed);
            final AttackResult attack = new AttackSearch(seed, 150).search(g, 512, new Lanczos(seed).run(g).lambda2Vector());
            ToleranceSoundnessTest.assertValidWitness(g, attack, 512);
            // Any 8-regular graph on 1024 vertices has a blocked set of 512/9 = 56 (one vertex per 9 covered).
            assertTrue(attack.witness().length >= 56, "seed " + seed + ": " + attack.witness().length);
        }
    }

    @Test
    void aCpuTimeBudgetIsSpentByEachWorker()
    {
        // Each worker runs until its own thread has used the budget, however loaded the machine.
        System.out.println("AttackSearchPortfolioTest CPU budget n=1024 d=8 graphSeed=4");
        final Graph g = TestGraphs.randomRegular(1024, 8, 4);
        final java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean)java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        final long cpuBefore = os.getProcessCpuTime();
        final AttackResult attack = new AttackSearch(4, 150).onThreadCpuTime().search(g, 512, null);
        final long cpuMillis = (os.getProcessCpuTime() - cpuBefore) / 1_000_000L;
        ToleranceSoundnessTest.assertValidWitness(g, attack, 512);
        assertTrue(threads.isCurrentThreadCpuTimeSupported());
        assertTrue(cpuMillis >= 2 * 150, "two workers of 150 ms CPU each, the process used " + cpuMillis + " ms");
    }

    @Test
    void swapBookkeepingMatchesARecount()
    {
        // Regular and irregular graphs: the packed counts and queue keys after thousands of swaps.
        final Graph[] graphs = {TestGraphs.randomRegular(600, 8, 11), TestGraphs.randomGnp(300, 0.03, 12),
            TestGraphs.randomRegular(200, 3, 13)};
        for (int i = 0; i < graphs.length; i++)
        {
            System.out.println("AttackSearchPortfolioTest bookkeeping " + graphs[i] + " seed " + (21 + i));
            assertTrue(AttackSearch.bookkeepingStaysConsistent(graphs[i], 21 + i, 6), graphs[i].toString());
        }
    }
}
