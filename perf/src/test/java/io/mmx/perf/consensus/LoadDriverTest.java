package io.mmx.perf.consensus;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The load driver's accounting, against {@link ExecutorLog}, whose own counts are the reference. */
class LoadDriverTest
{
    private static final long WARMUP_NS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long DURATION_NS = TimeUnit.MILLISECONDS.toNanos(300);
    private static final long STALL_NS = TimeUnit.SECONDS.toNanos(5);

    private static LoadDriver driver()
    {
        return new LoadDriver(32, WARMUP_NS, DURATION_NS, STALL_NS, "yielding");
    }

    @Test
    void everySubmissionCommitsOnceAndTheBoundIsReachedButNeverPassed()
    {
        try (ExecutorLog log = new ExecutorLog())
        {
            final LoadResult result = driver().run(log, 16);

            assertEquals(16, log.maxOutstanding(), "the log saw the bound reached and never passed");
            assertEquals(16, result.maxOutstanding());
            assertEquals(0, log.outstanding(), "the drain waited for every command");
            assertEquals(log.submitted(), log.reportedCount());
            assertEquals(0, log.payloadMismatches(), "payload starts with the command id");
            assertEquals(0, result.lost());
            assertEquals(0, result.unexpected());
            assertTrue(result.commits() > 0 && result.commits() < log.submitted(),
                "window commits exclude warm-up: " + result.commits() + " of " + log.submitted());
            assertEquals(DURATION_NS / 1e9, result.seconds(), 1e-9);
            assertEquals(result.commits() / result.seconds(), result.commitsPerSecond(), 1e-6);
            assertPercentilesOrdered(result.latencyNs(), result.commits());
        }
    }

    @Test
    void oneInFlightIsStrictlySequential()
    {
        try (ExecutorLog log = new ExecutorLog())
        {
            final LoadResult result = driver().run(log, 1);

            assertEquals(1, log.maxOutstanding());
            assertEquals(1, result.maxOutstanding());
            assertEquals(log.submitted(), log.reportedCount());
            assertPercentilesOrdered(result.latencyNs(), result.commits());
        }
    }

    @Test
    void refusedSubmissionsAreOfferedAgainAndNotCounted()
    {
        try (ExecutorLog log = new ExecutorLog())
        {
            log.refuseEvery = 3;
            final LoadResult result = driver().run(log, 8);

            assertEquals(log.submitted(), log.reportedCount());
            assertEquals(0, log.payloadMismatches(), "a refused command keeps its id when offered again");
            assertEquals(0, result.lost());
            assertTrue(result.maxOutstanding() <= 8);
        }
    }

    @Test
    void repeatedCommitsAreUnexpectedNotExtraThroughput()
    {
        try (ExecutorLog log = new ExecutorLog())
        {
            log.duplicateEvery = 10;
            final LoadDriver driver = driver();
            final LoadResult first = driver.run(log, 4);
            final LoadResult second = driver.run(log, 4);

            assertTrue(first.unexpected() > 0);
            assertTrue(first.commits() <= log.reportedCount());
            assertEquals(0, second.lost(), "ids keep increasing across runs of one driver");
            assertEquals(log.submitted(), log.reportedCount());
        }
    }

    @Test
    void aLogThatCommitsNothingFailsNamingTheStall()
    {
        try (ExecutorLog log = new ExecutorLog())
        {
            log.commitNothing = true;
            final LoadDriver driver = new LoadDriver(16, 0, TimeUnit.SECONDS.toNanos(30),
                TimeUnit.MILLISECONDS.toNanos(100), "backoff");

            final IllegalStateException ex = assertThrows(IllegalStateException.class, () -> driver.run(log, 4));
            assertTrue(ex.getMessage().contains("committed nothing for 100 ms with 4 commands outstanding"),
                ex.getMessage());
        }
    }

    @Test
    void rejectsPayloadsOutsideEightToFiftySixBytesAndUnknownIdleStrategies()
    {
        assertThrows(IllegalArgumentException.class, () -> new LoadDriver(7, 0, 1, 1, "backoff"));
        assertThrows(IllegalArgumentException.class, () -> new LoadDriver(57, 0, 1, 1, "backoff"));
        assertThrows(IllegalArgumentException.class, () -> new LoadDriver(32, 0, 1, 1, "spinning"));
        assertThrows(IllegalArgumentException.class, () -> driver().run(new ExecutorLog(), 0));
    }

    static void assertPercentilesOrdered(final Histogram latencyNs, final long windowCommits)
    {
        assertTrue(latencyNs.getTotalCount() > 0, "latencies recorded");
        assertTrue(latencyNs.getTotalCount() <= windowCommits, "only commands committed in the window");
        final long p50 = latencyNs.getValueAtPercentile(50);
        final long p99 = latencyNs.getValueAtPercentile(99);
        final long p999 = latencyNs.getValueAtPercentile(99.9);
        assertTrue(p50 > 0 && p50 <= p99 && p99 <= p999 && p999 <= latencyNs.getMaxValue(),
            p50 + " " + p99 + " " + p999 + " " + latencyNs.getMaxValue());
    }
}
