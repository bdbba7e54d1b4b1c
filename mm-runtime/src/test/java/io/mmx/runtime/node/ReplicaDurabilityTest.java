package io.mmx.runtime.node;

import io.mmx.runtime.example.kv.KeyValueCommand;
import io.mmx.runtime.example.kv.KeyValueStore;
import io.mmx.runtime.snapshot.SnapshotStore;
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
            replayer((s, v) -> 0, new ArrayList<>()), Long.MAX_VALUE));
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
        final Path journalDir = dir.resolve(HostJournal.directoryName(new int[]{3}));
        try (var files = Files.list(processDir); var journal = Files.list(journalDir))
        {
            final List<String> names = files.map(f -> f.getFileName().toString()).sorted().toList();
            assertEquals(2, names.stream().filter(n -> n.endsWith(".snap")).count(), "two snapshots kept: " + names);
            final List<String> segments = journal.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".log"))
                .toList();
            assertTrue(segments.size() <= 2, "old journal segments deleted: " + segments);
        }
        // A kill in the middle of a journal write leaves a torn record: it is cut.
        final Path lastSegment;
        try (var files = Files.list(journalDir))
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
        }, noGaps), Long.MAX_VALUE);
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
            new ArrayList<>()), Long.MAX_VALUE));
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
        state.restore(new KeyValueStore(), new DuplicateFilter(64), replayer((s, v) -> 0, new ArrayList<>()),
            Long.MAX_VALUE);
        for (long slot = 0; slot < 10; slot++)
        {
            final long[] value = slotValue(random);
            state.beforeApply(slot, value);
            state.afterApply(apply(live, slot, value), live, filter);
        }
        state.close();
        // Slots 10.. go to a second segment, as after a snapshot; then the first segment is lost.
        final ReplicaDurability second = ReplicaDurability.open(dir, 0, BATCH, 1_000_000);
        second.restore(new KeyValueStore(), new DuplicateFilter(64), replayer((s, v) -> 0, new ArrayList<>()),
            Long.MAX_VALUE);
        for (long slot = 10; slot < 15; slot++)
        {
            second.beforeApply(slot, slotValue(random));
        }
        second.close();
        Files.delete(dir.resolve(HostJournal.directoryName(new int[]{0})).resolve(String.format("journal-%020d.log", 0)));
        final List<long[]> gaps = new ArrayList<>();
        final KeyValueStore restored = new KeyValueStore();
        final ReplicaDurability third = ReplicaDurability.open(dir, 0, BATCH, 1_000_000);
        assertEquals(14, third.restore(restored, new DuplicateFilter(64), replayer((s, v) -> apply(restored, s, v),
            gaps), Long.MAX_VALUE));
        assertEquals(1, gaps.size());
        assertEquals(0, gaps.get(0)[0]);
        assertEquals(10 * BATCH - 1, gaps.get(0)[1]);
        third.close();
    }

    @Test
    void coHostedReplicasJournalEachSlotOnceAndEachReplaysOnlyWhatItMayHold() throws Exception
    {
        final long seed = seed();
        final Random random = new Random(seed);
        final int[] ids = {4, 9};
        final long[][] values = new long[120][];
        for (int slot = 0; slot < values.length; slot++)
        {
            values[slot] = slotValue(random);
        }
        final KeyValueStore ahead = new KeyValueStore();
        final KeyValueStore behind = new KeyValueStore();
        try (HostJournal journal = HostJournal.open(dir, ids))
        {
            final ReplicaDurability first = ReplicaDurability.open(dir, 4, BATCH, 1_000_000, journal);
            final ReplicaDurability second = ReplicaDurability.open(dir, 9, BATCH, 1_000_000, journal);
            first.restore(new KeyValueStore(), new DuplicateFilter(64), replayer((s, v) -> 0, new ArrayList<>()),
                Long.MAX_VALUE);
            second.restore(new KeyValueStore(), new DuplicateFilter(64), replayer((s, v) -> 0, new ArrayList<>()),
                Long.MAX_VALUE);
            // Process 4 applies slots 0..119, process 9 lags at 0..59, interleaved as a node's duty cycles do.
            for (int slot = 0; slot < values.length; slot++)
            {
                first.beforeApply(slot, values[slot]);
                apply(ahead, slot, values[slot]);
                if (slot >= 10 && slot - 10 < 60)
                {
                    second.beforeApply(slot - 10, values[slot - 10]);
                    apply(behind, slot - 10, values[slot - 10]);
                }
            }
            first.flushJournal();
            // A snapshot install at slot 30 replays the journal only through the slots process 9 was given.
            final KeyValueStore installed = new KeyValueStore();
            final List<Long> replayed = new ArrayList<>();
            for (long slot = 0; slot <= 30; slot++)
            {
                apply(installed, slot, values[(int)slot]);
            }
            assertTrue(second.snapshotForTransfer(installed, new DuplicateFilter(64), 30) != null);
            final SnapshotStore.Snapshot at30 = second.store().latest(new ArrayList<>()).orElseThrow();
            assertEquals(59, second.install(at30, new KeyValueStore(), new DuplicateFilter(64), (at, plan) -> { },
                replayer((s, v) -> { replayed.add(s); return 0; }, new ArrayList<>())));
            assertEquals(31L, replayed.get(0));
            assertEquals(59L, replayed.get(replayed.size() - 1), "not the slots only process 4 applied");
            first.close();
            second.close();
        }
        // Each slot is in the node's journal once: its size is one replica's, not two.
        long journalBytes = 0;
        try (var files = Files.list(dir.resolve(HostJournal.directoryName(ids))))
        {
            for (final Path f : (Iterable<Path>)files::iterator)
            {
                journalBytes += f.getFileName().toString().endsWith(".log") ? Files.size(f) : 0;
            }
        }
        final long recordBytes = 1 + 4 + 8 + 8 * 2 * BATCH + 4;
        assertEquals(values.length * recordBytes, journalBytes, "seed " + seed);

        // After a restart both come back through slot 119: process 9 replays the slots process 4 journaled,
        // decided values, so it is further on; up to a bound (its era's end) and no further.
        try (HostJournal journal = HostJournal.open(dir, ids))
        {
            final ReplicaDurability first = ReplicaDurability.open(dir, 4, BATCH, 1_000_000, journal);
            final ReplicaDurability second = ReplicaDurability.open(dir, 9, BATCH, 1_000_000, journal);
            final KeyValueStore restoredFirst = new KeyValueStore();
            assertEquals(119, first.restore(restoredFirst, new DuplicateFilter(64),
                replayer((s, v) -> apply(restoredFirst, s, v), new ArrayList<>()), Long.MAX_VALUE));
            assertEquals(ahead.digest(), restoredFirst.digest(), "seed " + seed);
            final KeyValueStore restoredSecond = new KeyValueStore();
            final List<Long> slots = new ArrayList<>();
            // Process 9's snapshot at slot 30 (the install above) is where its replay starts.
            assertEquals(100, second.restore(restoredSecond, new DuplicateFilter(64),
                replayer((s, v) -> { slots.add(s); return 0; }, new ArrayList<>()), 100));
            assertEquals(31L, slots.get(0));
            assertEquals(70, slots.size(), "slots 31..100, seed " + seed);
            first.close();
            second.close();
        }
        assertTrue(behind.applied() < ahead.applied());
    }

    @Test
    void theNodeJournalKeepsWhatTheReplicaWithTheOldestSnapshotNeeds() throws Exception
    {
        final Random random = new Random(seed());
        final int[] ids = {0, 1};
        final Path journalDir = dir.resolve(HostJournal.directoryName(ids));
        try (HostJournal journal = HostJournal.open(dir, ids))
        {
            final ReplicaDurability first = ReplicaDurability.open(dir, 0, BATCH, 1_000_000, journal);
            final ReplicaDurability second = ReplicaDurability.open(dir, 1, BATCH, 1_000_000, journal);
            final KeyValueStore a = new KeyValueStore();
            final KeyValueStore b = new KeyValueStore();
            final DuplicateFilter filter = new DuplicateFilter(64);
            first.restore(new KeyValueStore(), filter, replayer((s, v) -> 0, new ArrayList<>()), Long.MAX_VALUE);
            second.restore(new KeyValueStore(), filter, replayer((s, v) -> 0, new ArrayList<>()), Long.MAX_VALUE);
            final long slotBytes = 1 + 4 + 8 + 8 * 2 * BATCH + 4;
            final long slotsPerSegment = HostJournal.SEGMENT_BYTES / slotBytes + 1;
            long slot = 0;
            // Three rounds of a segment's worth, each ending in snapshots of process 0 only (two kept).
            for (int round = 0; round < 3; round++)
            {
                for (long end = slot + slotsPerSegment; slot < end; slot++)
                {
                    final long[] value = slotValue(random);
                    first.beforeApply(slot, value);
                    apply(a, slot, value);
                    second.beforeApply(slot, value);
                    apply(b, slot, value);
                }
                assertTrue(first.snapshot(a, filter));
            }
            assertTrue(Files.exists(journalDir.resolve(String.format("journal-%020d.log", 0))),
                "process 1 has no snapshot: every segment kept");
            assertTrue(second.snapshot(b, filter));
            assertTrue(second.snapshot(b, filter));
            // Both keep two snapshots, the older at the end of round 2: the segment of round 1 is gone.
            try (var files = Files.list(journalDir))
            {
                final List<String> segments = files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".log")).sorted().toList();
                assertTrue(!segments.contains(String.format("journal-%020d.log", 0)), segments.toString());
                assertTrue(segments.size() >= 2, segments.toString());
            }
            first.close();
            second.close();
        }
    }

    /**
     * A snapshot records where a plan change ended the era when that is at or before its slot, so a
     * replica that installs it past the change learns the end it never applied (before its journal
     * is replayed); a snapshot from before the change says nothing of it.
     */
    @Test
    void aSnapshotPastAPlanChangeTellsTheInstallerWhereTheEraEnded() throws Exception
    {
        final long[] end = {-1, 0};
        try (ReplicaDurability peer = ReplicaDurability.open(dir.resolve("peer"), 1, BATCH, 1_000_000);
            ReplicaDurability installer = ReplicaDurability.open(dir.resolve("installer"), 2, BATCH, 1_000_000))
        {
            peer.eraMark(new ReplicaDurability.EraMark()
            {
                @Override
                public long eraEndedAt()
                {
                    return end[0];
                }

                @Override
                public long nextPlanId()
                {
                    return end[1];
                }
            });
            final List<long[]> told = new ArrayList<>();
            end[0] = 12;
            end[1] = 0xABCDL;
            assertTrue(peer.snapshotForTransfer(new KeyValueStore(), new DuplicateFilter(64), 11) != null);
            final SnapshotStore.Snapshot before = peer.store().latest(new ArrayList<>()).orElseThrow();
            installer.install(before, new KeyValueStore(), new DuplicateFilter(64),
                (at, plan) -> told.add(new long[] {at, plan}), replayer((x, v) -> 0, new ArrayList<>()));
            assertTrue(told.isEmpty(), "a snapshot at slot 11 is from before the change at 12");
            assertTrue(peer.snapshotForTransfer(new KeyValueStore(), new DuplicateFilter(64), 12) != null);
            final SnapshotStore.Snapshot at = peer.store().latest(new ArrayList<>()).orElseThrow();
            installer.install(at, new KeyValueStore(), new DuplicateFilter(64),
                (slot, plan) -> told.add(new long[] {slot, plan}), replayer((x, v) -> 0, new ArrayList<>()));
            assertEquals(1, told.size());
            assertEquals(12, told.get(0)[0]);
            assertEquals(0xABCDL, told.get(0)[1]);
        }
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
