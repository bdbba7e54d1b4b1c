package io.mmx.perf.consensus;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The report's ratios and the runner's option checks. */
class ConsensusReportTest
{
    private static LoadResult row(final String system, final int members, final int inFlight, final long latencyNs,
        final long commits)
    {
        final Histogram h = new Histogram(LoadDriver.HIGHEST_TRACKABLE_NS, 3);
        h.recordValueWithCount(latencyNs, 100);
        return new LoadResult(system, members, inFlight, h, commits, 1.0, inFlight, 0, 0,
            commits * (latencyNs / 100.0) * 1e-6, 1); // CPU µs per commit: a hundredth of the latency in ns
    }

    @Test
    void ratiosAreToTheBaselineRowWithTheSameInFlightBound()
    {
        final List<LoadResult> rows = List.of(
            // Below 2048 ns HdrHistogram with 3 digits holds values exactly.
            row(ConsensusSystems.BASELINE, 3, 1, 500, 10_000),
            row(ConsensusSystems.BASELINE, 3, 16, 1_000, 40_000),
            row("other", 5, 16, 2_000, 80_000));

        final String md = ConsensusReport.markdown("header", rows, List.of("a note"));

        assertTrue(md.startsWith("## Consensus"), md);
        assertTrue(md.contains("| aeron-cluster | 3 | 1 | 0.5 | 0.5 | 0.5 | 0.5 | 0.5 | 10000 | 5.0 | 1.00 | 1.00 | 1.00 | 1.00 |"),
            md);
        assertTrue(md.contains("| other | 5 | 16 | 2.0 | 2.0 | 2.0 | 2.0 | 2.0 | 80000 | 20.0 | 2.00 | 2.00 | 2.00 | 2.00 |"), md);
        assertTrue(md.contains("\n- a note"), md);
    }

    @Test
    void withRoundsEachRatioIsTakenWithinItsRoundAndTheMedianShownWithItsRange()
    {
        // The rounds drift (the machine got faster): the median of the rates' ratio (12,000 / 20,000 = 0.60)
        // is not the median of the rounds' ratios (0.50, 0.60, 0.40), which is what the table must show.
        final List<LoadResult> rows = List.of(
            row(ConsensusSystems.BASELINE, 3, 256, 1_000, 10_000).inRound(1), row("other", 5, 256, 1_500, 5_000).inRound(1),
            row(ConsensusSystems.BASELINE, 3, 256, 1_000, 20_000).inRound(2), row("other", 5, 256, 1_800, 12_000).inRound(2),
            row(ConsensusSystems.BASELINE, 3, 256, 1_000, 40_000).inRound(3), row("other", 5, 256, 2_000, 16_000).inRound(3));

        final String md = ConsensusReport.markdown("header", rows, List.of());

        assertTrue(md.contains("| other | 5 | 256 | 3 of 3 | 1.8 | 1.8 | 12000 | 18.0 | 1.80 (1.50–2.00) | " +
            "1.80 (1.50–2.00) | 0.50 (0.40–0.60) | 1.80 (1.50–2.00) |"), md);
        assertTrue(md.contains("| aeron-cluster | 3 | 256 | 3 of 3 | 1.0 | 1.0 | 20000 | 10.0 | 1.00 (1.00–1.00) |"), md);
    }

    @Test
    void aRoundInWhichTheBaselineFailedGivesThatRowNoRatio()
    {
        final List<LoadResult> rows = List.of(
            row(ConsensusSystems.BASELINE, 3, 16, 1_000, 10_000).inRound(1), row("other", 5, 16, 2_000, 5_000).inRound(1),
            row("other", 5, 16, 2_000, 1_000).inRound(2));

        final String md = ConsensusReport.markdown("header", rows, List.of());

        assertTrue(md.contains("| other | 5 | 16 | 2 of 2 | 2.0 | 2.0 | 3000 | 20.0 | 2.00 | 2.00 | 0.50 | 2.00 |"), md);
    }

    @Test
    void withoutABaselineRowTheRatiosSayNotAvailable()
    {
        final String md = ConsensusReport.markdown("h", List.of(row("other", 5, 256, 1_000, 5)), List.of());

        assertTrue(md.contains("| 5 | 10.0 | n/a | n/a | n/a | n/a |"), md);
    }

    @Test
    void optionsDefaultToAShortRunAndRejectWhatTheMmxNodeCannotCarry()
    {
        final ConsensusBenchmark.Options defaults = ConsensusBenchmark.Options.parse(new String[0]);
        assertEquals(32, defaults.payloadBytes());
        assertNull(defaults.idle(), "each system runs its own idle strategy unless --idle names one");
        assertArrayEquals(new int[]{1, 16, 256}, defaults.inFlight());

        final ConsensusBenchmark.Options set = ConsensusBenchmark.Options.parse(new String[]{
            "--duration", "0.5", "--payload-bytes", "56", "--in-flight", "1, 4", "--idle", "yielding", "--out", "x"});
        assertEquals(0.5, set.durationS());
        assertArrayEquals(new int[]{1, 4}, set.inFlight());

        assertThrows(IllegalArgumentException.class,
            () -> ConsensusBenchmark.Options.parse(new String[]{"--payload-bytes", "57"}));
        assertThrows(IllegalArgumentException.class,
            () -> ConsensusBenchmark.Options.parse(new String[]{"--idle", "spin"}));
        assertThrows(IllegalArgumentException.class,
            () -> ConsensusBenchmark.Options.parse(new String[]{"--in-flight", "0"}));
        assertThrows(IllegalArgumentException.class,
            () -> ConsensusBenchmark.Options.parse(new String[]{"--duration"}));
        assertThrows(IllegalArgumentException.class,
            () -> ConsensusBenchmark.Options.parse(new String[]{"--threads", "2"}));
        assertEquals(1, defaults.rounds(), "one round unless asked");
        assertEquals(3, ConsensusBenchmark.Options.parse(new String[]{"--rounds", "3"}).rounds());
        final IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
            () -> ConsensusBenchmark.Options.parse(new String[]{"--rounds", "0"}));
        assertTrue(zero.getMessage().contains("--rounds must be 1..20"), zero.getMessage());
        assertThrows(IllegalArgumentException.class,
            () -> ConsensusBenchmark.Options.parse(new String[]{"--rounds", "21"}));
    }
}
