package io.mmx.perf.consensus.aeroncluster;

import io.mmx.aeron.transport.TransportContext;
import io.mmx.perf.consensus.LoadDriver;
import io.mmx.perf.consensus.LoadResult;
import io.mmx.perf.consensus.LogSettings;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Smoke test of the baseline: a real 3-member Aeron Cluster on loopback acknowledges every command once,
 * every member applies every command, the load driver measures it, and closing it stops every thread it
 * started and removes its directories.
 */
class AeronClusterLogTest
{
    private static final int COMMANDS = 300;
    /** Each wait's bound: several times what it takes on a 2-core machine loaded by two busy threads. */
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(60);

    @Test
    // Only a last resort above the test's own bounded waits: a timeout interrupts the thread while Aeron
    // starts, and closing a half-started cluster then crashed its archive's thread (a busy CI machine).
    @Timeout(300)
    void threeMembersAcknowledgeEveryCommandOnceAndShutDownClean(@TempDir final Path workDir) throws Exception
    {
        final Set<Thread> threadsBefore = Thread.getAllStackTraces().keySet();
        final AeronClusterLog log = new AeronClusterLog(
            3, new LogSettings(workDir, "backoff", 32, DEADLINE_NS));
        final Path driversDir;
        try
        {
            log.start();
            driversDir = log.driversDir();
            assertTrue(Files.isDirectory(driversDir));

            final BitSet acked = new BitSet();
            final int[] duplicates = {0};
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[32]);
            final IdleStrategy idle = TransportContext.idleStrategy("backoff");
            int submitted = 0;
            final long deadlineNs = System.nanoTime() + DEADLINE_NS;
            while (acked.cardinality() < COMMANDS)
            {
                assertTrue(System.nanoTime() - deadlineNs < 0,
                    () -> "acknowledged " + acked.cardinality() + " of " + COMMANDS + "; " + log.diagnostics());
                payload.putLong(0, submitted + 1L, ByteOrder.LITTLE_ENDIAN);
                int work = 0;
                if (submitted < COMMANDS && log.submit(submitted + 1L, payload, 0, 32))
                {
                    submitted++;
                    work++;
                }
                work += log.poll(commandId ->
                {
                    duplicates[0] += acked.get((int)commandId) ? 1 : 0;
                    acked.set((int)commandId);
                });
                idle.idle(work); // the cluster needs both cores more than this loop does
            }
            assertEquals(COMMANDS, acked.cardinality());
            assertEquals(1, acked.nextSetBit(0), "ids 1..300 exactly");
            assertEquals(0, duplicates[0]);
            // Followers apply the committed log too: replication really happened on every member.
            awaitUntil(() -> Arrays.stream(log.appliedPerMember()).allMatch(applied -> applied == COMMANDS),
                () -> "applied per member " + Arrays.toString(log.appliedPerMember()) + ", expected " + COMMANDS);

            // Commands in flight across an election may never be answered (this baseline does not send
            // them again): a run that crossed one runs again, at most twice more. A run's drain waits
            // 30 s without progress, three times Aeron Cluster's leader heartbeat timeout.
            LoadResult result;
            int attempt = 1;
            while (true)
            {
                final long termBefore = log.leadershipTermId();
                result = new LoadDriver(32, 0, TimeUnit.MILLISECONDS.toNanos(500), TimeUnit.SECONDS.toNanos(30),
                    "backoff").run(log, 16);
                if (log.leadershipTermId() == termBefore || attempt == 3)
                {
                    break;
                }
                System.out.println("load run " + attempt + " crossed an election (term " + termBefore + " -> " +
                    log.leadershipTermId() + "): " + result + "; running it again");
                attempt++;
            }
            final String seen = result + "; " + log.diagnostics();
            assertTrue(result.commits() > 0 && result.latencyNs().getTotalCount() > 0, seen);
            assertEquals(0, result.lost(), seen);
            assertEquals(0, result.unexpected(), seen);
            awaitUntil(() -> Arrays.stream(log.appliedPerMember()).distinct().count() == 1,
                () -> "members disagree on the log length: " + Arrays.toString(log.appliedPerMember()));
            assertTrue(log.appliedPerMember()[0] >= COMMANDS + result.commits());
            assertTrue(log.errors().isEmpty(), log.diagnostics());
        }
        finally
        {
            log.close();
        }

        assertFalse(Files.exists(driversDir), "driver directories removed");
        try (Stream<Path> left = Files.list(workDir))
        {
            assertEquals(0, left.count(), "archive and cluster directories removed");
        }
        final Set<Thread> started = Thread.getAllStackTraces().keySet().stream()
            .filter(t -> !threadsBefore.contains(t)).collect(Collectors.toSet());
        awaitUntil(() -> started.stream().noneMatch(Thread::isAlive),
            () -> "threads still running after close: " + started.stream().filter(Thread::isAlive)
                .map(Thread::getName).collect(Collectors.joining(", ")));
    }

    private static void awaitUntil(final BooleanSupplier condition, final Supplier<String> describe)
    {
        final long deadlineNs = System.nanoTime() + DEADLINE_NS;
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() - deadlineNs < 0, describe);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }
}
