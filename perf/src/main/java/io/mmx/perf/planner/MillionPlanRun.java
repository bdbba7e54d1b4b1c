package io.mmx.perf.planner;

import io.mmx.planner.analysis.AnalysisOptions;
import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanAnalysis;
import io.mmx.planner.plan.PlanFile;
import io.mmx.planner.plan.PlanRequest;
import io.mmx.planner.plan.Planner;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * One {@code topo plan --n N --degree D} as the CLI runs it, plan file included, in a JVM that
 * {@link PlannerPerf} starts with the heap cap under test. Prints one line:
 * {@code elapsed_ms=... peak_heap_bytes=... max_heap_bytes=... certified_f=... attack_f=...}.
 */
public final class MillionPlanRun
{
    private MillionPlanRun()
    {
    }

    /** Runs the measurement the class comment describes, with {@code args} as its options. */
    public static void main(final String[] args) throws Exception
    {
        final int n = Integer.parseInt(args[0]);
        final int degree = Integer.parseInt(args[1]);
        final long attackBudgetMillis = Long.parseLong(args[2]);
        final Path out = Files.createTempFile("mmx-plan-" + n, ".json");
        try
        {
            final long start = System.nanoTime();
            final Plan plan = Planner.plan(new PlanRequest(n, degree, 1, "random", null, null,
                AnalysisOptions.defaults().withAttackBudgetMillis(attackBudgetMillis)), stage -> { });
            PlanFile.write(plan, out);
            final long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
            long peak = 0;
            for (final MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans())
            {
                if (pool.getType() == MemoryType.HEAP)
                {
                    peak += pool.getPeakUsage().getUsed();
                }
            }
            final PlanAnalysis results = plan.analysisResults();
            System.out.printf(Locale.ROOT, "elapsed_ms=%d peak_heap_bytes=%d max_heap_bytes=%d certified_f=%d attack_f=%d " +
                "plan_bytes=%d%n", elapsedMillis, peak, Runtime.getRuntime().maxMemory(),
                results.certifiedF(), results.attackF(), Files.size(out));
        }
        finally
        {
            Files.deleteIfExists(out);
        }
    }
}
