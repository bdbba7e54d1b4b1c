package io.mmx.perf.planner;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The attack report's arithmetic: ratios to the same-run baseline and the target mark. */
class AttackBenchmarkTest
{
    @Test
    void reportsRatiosAndJudgesTheTarget()
    {
        assertEquals(658, AttackBenchmark.TARGET, "1% below 664, rounded up");
        final String md = AttackBenchmark.report(List.of(
            new AttackBenchmark.Row(1, 1, new AttackBenchmark.Measured(650, 10_000, 19_500, 3.0),
                new AttackBenchmark.Measured(663, 10_000, 19_000, 3.5)),
            new AttackBenchmark.Row(2, 1, new AttackBenchmark.Measured(660, 10_000, 9_000, 8.0),
                new AttackBenchmark.Measured(657, 10_000, 8_000, 8.5))), 4096, 8, 10_000, false, 2.5, 2);
        assertTrue(md.contains("| 1 | 1 | 650 | 19.5 | 663 | 19.0 | 1.0200 | yes | 3.5 |"), md);
        assertTrue(md.contains("| 2 | 1 | 660 | 9.0 | 657 | 8.0 | 0.9955 | NO | 8.5 |"), md);
        assertTrue(md.contains("target met in 1 of 2 searches"), md);
        assertTrue(md.contains("10.0 s wall-clock budget"), md);
        final String cpu = AttackBenchmark.report(List.of(), 4096, 8, 10_000, true, 2.5, 2);
        assertTrue(cpu.startsWith("# Planner attack: witness at a CPU-time budget"), cpu);
        assertTrue(cpu.contains("10.0 s CPU-time (each worker thread's own, as on idle cores) budget"), cpu);
    }
}
