package io.mmx.perf.planner;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** The report's arithmetic: ratios to the same-run baseline and the pass/fail marks. */
class PlannerPerfTest
{
    @Test
    void reportsRatiosAgainstTheBaselineAndJudgesTargets()
    {
        final String md = PlannerPerf.report(
            Map.of("jgraphtGenerate", new double[] {20.0, 25.0}, "mmxGenerate", new double[] {2.0, 2.5},
                "mmxGenerateAndCertify", new double[] {350.0, 400.0}),
            "noise\nelapsed_ms=45000 peak_heap_bytes=2147483648 max_heap_bytes=4294967296 certified_f=1 attack_f=2 plan_bytes=1048576",
            1_000_000);
        assertTrue(md.contains("| mmx random regular | 2.000 | 2.500 | 0.1000 | 0.1000 | faster than baseline: yes |"), md);
        assertTrue(md.contains("< 300 ms: NO"), "400 ms misses the 300 ms target: " + md);
        assertTrue(md.contains("45.0 s (target < 60 s: yes)"), md);
        assertTrue(md.contains("2.00 GiB"), md);
    }
}
