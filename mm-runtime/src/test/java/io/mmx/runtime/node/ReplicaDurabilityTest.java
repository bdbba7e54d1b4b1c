package io.mmx.runtime.node;

import io.mmx.runtime.example.kv.KeyValueCommand;
import io.mmx.runtime.example.kv.KeyValueStore;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A replica's state on disk: after a million commands, snapshots and a journal bring a new state
 * machine back to exactly the state of the one that stopped, however it stopped.
 */
class ReplicaDurabilityTest
{
    private static final int BATCH = 8;

    @TempDir
    Path dir;

    private static long seed()
    {
        final long seed = Long.getLong("mmx.test.seed", System.nanoTime());
        System.out.println("ReplicaDurabilityTest seed " + seed + " (replay with -Dmmx.test.seed=" + seed + ")");
        return seed;
    }

    /** A slot's value here: per command, a key number and a value (the durability layer never looks inside). */
    private static long[] slotValue(final Random random)
    {
        final long[] value = new long[2 * BATCH];
        for (int i = 0; i < BATCH; i++)
        {
            value[2 * i] = random.nextInt(50_000);
            value[2 * i + 1] = random.nextLong();
        }
        return value;
    }

    /** A replayer that applies with {@code apply} and records gaps in {@code gaps}. */
    private static ReplicaDurability.Replayer replayer(final java.util.function.ToIntBiFunction<Long, long[]> apply,
        final List<long[]> gaps)
    {
        return new ReplicaDurability.Replayer()
        {
            @Override
            public int apply(final long slot, final long[] value)
            {
                return apply.applyAsInt(slot, value);
            }

            @Override
            public void gap(final long fromIndex, final long toIndex)
            {
                gaps.add(new long[]{fromIndex, toIndex});
            }
        };
    }

    private static int apply(final KeyValueStore store, final long slot, final long[] value)
    {
        final UnsafeBuffer command = new UnsafeBuffer(new byte[64]);
        for (int i = 0; i < BATCH; i++)
        {
            final int length = KeyValueCommand.encode(command, KeyValueCommand.PUT, "k" + value[2 * i],
                value[2 * i + 1], 0);
            store.apply(slot * BATCH + i, 0, command, 0, length);
        }
        return BATCH;
    }

    @Test
    void aMillionCommandsComeBackExactlyAfterAStopWithoutSnapshotAndATornJournal() throws Exception
    {
        final long seed = seed();
        final Random random = new Random(seed);
        final KeyValueStore live = new KeyValueStore();
        final DuplicateFilter filter = new DuplicateFilter(64);
        final ReplicaDurability state = ReplicaDurability.open(dir, 3, BATCH, 300_000);
        assertEquals(-1, state.restore(new KeyValueStore(), new DuplicateFilter(64),
            replayer((s, v) -> 0, new ArrayList<>())));
        final long slots = 1_000_000 / BATCH + 1_001;
        for (long slot = 0; slot < slots; slot++)
        {
            final long[] value = slotValue(random);
            filter.firstCopy(1, 7, slot); // the filter's state goes into every snapshot
            state.beforeApply(slot, value);
            state.afterApply(apply(live, slot, value), live, filter);
        }
        // Stopped without a final snapshot (a kill): the journal holds every slot since the last one.
        state.close();
        final Path processDir = dir.resolve("process-3");
        try (var files = Files.list(processDir))
        {
            final List<String> names = files.map(f -> f.getFileName().toString()).sorted().toList();
            assertEquals(2, names.stream().filter(n -> n.endsWith(".snap")).count(), "two snapshots kept: " + names);
            assertTrue(names.stream().filter(n -> n.endsWith(".log")).count() <= 2, "old journal segments deleted: " +
                names);
        }
        // A kill in the middle of a journal write leaves a torn record: it is cut.
        final Path lastSegment;
        try (var files = Files.list(processDir))
        {
            lastSegment = files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted()
                .reduce((a, b) -> b).orElseThrow();
        }
        Files.write(lastSegment, new byte[]{1, 16, 0, 0, 0, 9}, StandardOpenOption.APPEND);

        final KeyValueStore restored = new KeyValueStore();
        final DuplicateFilter restoredFilter = new DuplicateFilter(64);
        final ReplicaDurability again = ReplicaDurability.open(dir, 3, BATCH, 300_000);
        // Replay goes through the same path as a live slot: the filter sees each command again.
        final List<long[]> noGaps = new ArrayList<>();
        final long through = again.restore(restored, restoredFilter, replayer((s, v) ->
        {
            restoredFilter.firstCopy(1, 7, s);
            return apply(restored, s, v);
        }, noGaps));
        assertTrue(noGaps.isEmpty(), "a torn record is not a gap");
        assertEquals(slots - 1, through, "seed " + seed);
        assertEquals(live.digest(), restored.digest(), "seed " + seed);
        assertEquals(live.applied(), restored.applied());
        // The filter came back too: the commands it saw are duplicates, the next one is not.
        assertEquals(false, restoredFilter.firstCopy(1, 7, slots - 1));
        assertEquals(false, restoredFilter.firstCopy(1, 7, 0), "from the snapshot");
        assertEquals(true, restoredFilter.firstCopy(1, 7, slots));

        // It goes on from there, and a clean stop's snapshot needs no journal at all.
        final long[] value = slotValue(random);
        again.beforeApply(slots, value);
        again.afterApply(apply(restored, slots, value), restored, restoredFilter);
        assertTrue(again.snapshot(restored, restoredFilter));
        again.close();
        final KeyValueStore third = new KeyValueStore();
        final ReplicaDurability reopened = ReplicaDurability.open(dir, 3, BATCH, 300_000);
        assertEquals(slots, reopened.restore(third, new DuplicateFilter(64), replayer((s, v) -> apply(third, s, v),
            new ArrayList<>())));
        assertEquals(restored.digest(), third.digest());
        reopened.close();
    }

    @Test
    void aLostJournalSegmentIsAGapNeverASilentSkip() throws Exception
    {
        final Random random = new Random(seed());
        final KeyValueStore live = new KeyValueStore();
        final DuplicateFilter filter = new DuplicateFilter(64);
        final ReplicaDurability state = ReplicaDurability.open(dir, 0, BATCH, 1_000_000);
        state.restore(new KeyValueStore(), new DuplicateFilter(64), replayer((s, v) -> 0, new ArrayList<>()));
        for (long slot = 0; slot < 10; slot++)
        {
            final long[] value = slotValue(random);
            state.beforeApply(slot, value);
            state.afterApply(apply(live, slot, value), live, filter);
        }
        state.close();
        // Slots 10.. go to a second segment, as after a snapshot; then the first segment is lost.
        final ReplicaDurability second = ReplicaDurability.open(dir, 0, BATCH, 1_000_000);
        second.restore(new KeyValueStore(), new DuplicateFilter(64), replayer((s, v) -> 0, new ArrayList<>()));
        for (long slot = 10; slot < 15; slot++)
        {
            second.beforeApply(slot, slotValue(random));
        }
        second.close();
        Files.delete(dir.resolve("process-0").resolve(String.format("journal-%020d.log", 0)));
        final List<long[]> gaps = new ArrayList<>();
        final KeyValueStore restored = new KeyValueStore();
        final ReplicaDurability third = ReplicaDurability.open(dir, 0, BATCH, 1_000_000);
        assertEquals(14, third.restore(restored, new DuplicateFilter(64), replayer((s, v) -> apply(restored, s, v),
            gaps)));
        assertEquals(1, gaps.size());
        assertEquals(0, gaps.get(0)[0]);
        assertEquals(10 * BATCH - 1, gaps.get(0)[1]);
        third.close();
    }

    @Test
    void twoNodesCannotShareOneProcessState()
    {
        final ReplicaDurability first = ReplicaDurability.open(dir, 5, BATCH, 1000);
        try
        {
            final IllegalStateException ex = assertThrows(IllegalStateException.class,
                () -> ReplicaDurability.open(dir, 5, BATCH, 1000));
            assertTrue(ex.getMessage().contains("in use by another node") && ex.getMessage().contains("--state-dir"),
                ex.getMessage());
        }
        finally
        {
            first.close();
        }
        ReplicaDurability.open(dir, 5, BATCH, 1000).close();
    }

    @Test
    void theDuplicateFilterSurvivesItsSnapshot() throws Exception
    {
        final Random random = new Random(seed());
        final DuplicateFilter filter = new DuplicateFilter(16);
        for (int i = 0; i < 5000; i++)
        {
            filter.firstCopy(random.nextInt(20), random.nextInt(3), random.nextInt(100_000));
        }
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        filter.writeTo(new DataOutputStream(bytes));
        final DuplicateFilter copy = new DuplicateFilter(16);
        copy.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        for (int i = 0; i < 20_000; i++)
        {
            final int origin = random.nextInt(20);
            final int incarnation = random.nextInt(3);
            final long counter = random.nextInt(120_000);
            assertEquals(filter.firstCopy(origin, incarnation, counter), copy.firstCopy(origin, incarnation, counter),
                "origin " + origin + " incarnation " + incarnation + " counter " + counter);
        }
    }
}
