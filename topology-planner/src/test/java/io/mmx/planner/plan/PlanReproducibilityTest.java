package io.mmx.planner.plan;

import io.mmx.planner.analysis.AnalysisOptions;
import io.mmx.planner.generate.RandomRegularGenerator;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A plan follows from its seed and settings alone: the same seed under different thread timing
 * (two extra threads competing for the cores while the two-worker attack runs the second time)
 * gives the same graph, placement, analysis and content hash. The attack's own results may differ; the hash leaves
 * them out.
 */
class PlanReproducibilityTest
{
    @Test
    void theSameSeedGivesTheSamePlanWhateverTheThreadTiming() throws InterruptedException
    {
        final long seed = 20_261_124L;
        System.out.println("PlanReproducibilityTest seed=" + seed);
        // n = 600 >= 512 runs the parallel attack; racks and hosts add the failure-domain attacks.
        final Plan first = Planner.plan(request(seed), ProgressListener.NONE);
        final AtomicBoolean stop = new AtomicBoolean();
        final List<Thread> spinners = new ArrayList<>();
        for (int i = 0; i < 2; i++)
        {
            final Thread spinner = new Thread(() ->
            {
                long x = 0;
                while (!stop.get())
                {
                    x += Long.numberOfTrailingZeros(x + 1);
                }
            }, "spinner-" + i);
            spinner.setDaemon(true);
            spinner.start();
            spinners.add(spinner);
        }
        final Plan second;
        try
        {
            second = Planner.plan(request(seed), ProgressListener.NONE);
        }
        finally
        {
            stop.set(true);
            for (final Thread spinner : spinners)
            {
                spinner.join();
            }
        }
        assertEquals(first.graph(), second.graph(), "the graph must follow from the seed alone");
        assertEquals(first.seed(), second.seed());
        assertEquals(PlanDigest.withoutTimeBudgeted(first.analysis()).toPrettyString(),
            PlanDigest.withoutTimeBudgeted(second.analysis()).toPrettyString());
        assertEquals(first.contentHash(), second.contentHash(),
            "the content hash must not depend on the attack budget or thread timing");
    }

    private static PlanRequest request(final long seed)
    {
        final long attackBudgetMillis = 200;
        return new PlanRequest(600, 8, seed, RandomRegularGenerator.NAME, new PlacementLayout(2, 5, 60), null,
            AnalysisOptions.defaults().withSeed(seed).withAttackBudgetMillis(attackBudgetMillis));
    }
}
