package io.mmx.runtime.example.kv;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class KeyValueStoreTest
{
    private final KeyValueStore store = new KeyValueStore();
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[KeyValueCommand.MAX_LENGTH]);
    private long index;

    private long apply(final byte op, final String key, final long value, final long expected)
    {
        final int length = KeyValueCommand.encode(buffer, op, key, value, expected);
        return store.apply(index++, 0, buffer, 0, length);
    }

    @Test
    void putGetCasDelete()
    {
        assertEquals(KeyValueCommand.ABSENT, apply(KeyValueCommand.GET, "k", 0, 0));
        assertEquals(KeyValueCommand.ABSENT, apply(KeyValueCommand.PUT, "k", 5, 0));
        assertEquals(5L, apply(KeyValueCommand.PUT, "k", 6, 0));
        assertEquals(KeyValueCommand.CAS_FAILED, apply(KeyValueCommand.CAS, "k", 7, 5));
        assertEquals(KeyValueCommand.CAS_OK, apply(KeyValueCommand.CAS, "k", 7, 6));
        assertEquals(7L, apply(KeyValueCommand.GET, "k", 0, 0));
        assertEquals(KeyValueCommand.CAS_OK, apply(KeyValueCommand.CAS, "new", 1, KeyValueCommand.ABSENT));
        assertEquals(7L, apply(KeyValueCommand.DELETE, "k", 0, 0));
        assertNull(store.valueOf("k"));
        assertEquals(8, store.applied());
    }

    @Test
    void malformedCommandsAreNoOpsOnEveryReplica()
    {
        final int length = KeyValueCommand.encode(buffer, KeyValueCommand.PUT, "k", 1, 0);
        assertEquals(KeyValueCommand.ABSENT, store.apply(0, 0, buffer, 0, length - 1));
        buffer.putByte(0, (byte)99);
        assertEquals(KeyValueCommand.ABSENT, store.apply(1, 0, buffer, 0, length));
        assertEquals(2, store.malformed());
        assertNull(store.valueOf("k"));
        assertThrows(IllegalArgumentException.class, () -> KeyValueCommand.encode(buffer, KeyValueCommand.PUT,
            "a-key-longer-than-14", 1, 0));
    }

    @Test
    void appliedLogKeepsEveryEntryAndDropsATornLine(@TempDir final Path dir) throws Exception
    {
        final Path file = dir.resolve("p.log");
        try (AppliedLog log = new AppliedLog(file))
        {
            final KeyValueStore logged = new KeyValueStore(log);
            final int length = KeyValueCommand.encode(buffer, KeyValueCommand.PUT, "k", 1, 0);
            logged.apply(4, 2, buffer, 0, length);
            logged.onGap(5, 7);
            logged.apply(8, 2, buffer, 0, length);
        }
        java.nio.file.Files.writeString(file, "9 2 0102", java.nio.file.StandardOpenOption.APPEND);
        assertEquals(2, AppliedLog.entries(file).size());
        assertEquals(java.util.Set.of(4L, 8L), AppliedLog.byIndex(file).keySet());
    }

    @Test
    void aGapLearntAfterLaterCommandsIsStillRecordedAndTheLogReopensAfterItsHighestIndex(@TempDir final Path dir)
        throws Exception
    {
        final Path file = dir.resolve("late-gap.log");
        final int length = KeyValueCommand.encode(buffer, KeyValueCommand.PUT, "k", 1, 0);
        try (AppliedLog log = new AppliedLog(file))
        {
            final KeyValueStore logged = new KeyValueStore(log);
            logged.apply(2, 2, buffer, 0, length);
            logged.apply(10, 2, buffer, 0, length); // a restarted replica applies a new slot first
            logged.onGap(3, 9);                     // then learns what its restored state lacks
        }
        final java.util.List<String> lines = java.nio.file.Files.readAllLines(file);
        assertEquals("gap 3 9", lines.get(lines.size() - 1), lines.toString());
        try (AppliedLog log = new AppliedLog(file))
        {
            final KeyValueStore logged = new KeyValueStore(log);
            logged.apply(10, 2, buffer, 0, length); // already written: not again
            logged.apply(11, 2, buffer, 0, length);
        }
        assertEquals(java.util.Set.of(2L, 10L, 11L), AppliedLog.byIndex(file).keySet());
        assertEquals(3, AppliedLog.entries(file).size());
    }

    @Test
    void aSnapshotLoadedIsOneLineForTheIndexesNoLineNamedAndTheLogReopensAfterIt(@TempDir final Path dir)
        throws Exception
    {
        final Path file = dir.resolve("snapshot.log");
        final int length = KeyValueCommand.encode(buffer, KeyValueCommand.PUT, "k", 1, 0);
        try (AppliedLog log = new AppliedLog(file))
        {
            final KeyValueStore logged = new KeyValueStore(log);
            logged.apply(2, 2, buffer, 0, length);
            logged.onGap(3, 7);
            logged.onSnapshotLoaded(23);  // a peer's snapshot: it holds 8-23, which no line named yet
            logged.apply(24, 2, buffer, 0, length);
        }
        assertEquals(java.util.List.of("gap 3 7", "snapshot 8 23"), java.nio.file.Files.readAllLines(file).stream()
            .filter(l -> !Character.isDigit(l.charAt(0))).toList());
        try (AppliedLog log = new AppliedLog(file))
        {
            final KeyValueStore logged = new KeyValueStore(log);
            logged.onSnapshotLoaded(23);  // the restart loads that snapshot from its own disk: nothing new
            logged.apply(24, 2, buffer, 0, length);
            logged.apply(25, 2, buffer, 0, length);
        }
        assertEquals(java.util.Set.of(2L, 24L, 25L), AppliedLog.byIndex(file).keySet());
        assertEquals(java.util.List.of(3L, 7L, 8L, 23L), AppliedLog.accounted(file).stream()
            .flatMap(r -> java.util.stream.Stream.of(r[0], r[1])).toList());
    }
}
