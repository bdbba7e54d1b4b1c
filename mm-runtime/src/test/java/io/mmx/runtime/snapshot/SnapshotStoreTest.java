package io.mmx.runtime.snapshot;

import io.mmx.runtime.example.kv.KeyValueCommand;
import io.mmx.runtime.example.kv.KeyValueStore;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Snapshots written in chunks, published atomically, verified on load and on transfer, a few kept. */
class SnapshotStoreTest
{
    @TempDir
    Path dir;

    private static long seed()
    {
        final long seed = Long.getLong("mmx.test.seed", System.nanoTime());
        System.out.println("SnapshotStoreTest seed " + seed + " (replay with -Dmmx.test.seed=" + seed + ")");
        return seed;
    }

    private static byte[] state(final Random random, final int bytes)
    {
        final byte[] state = new byte[bytes];
        random.nextBytes(state);
        return state;
    }

    // Written in pieces of random sizes, as a state machine's stream would.
    private static SnapshotStore.Snapshot write(final SnapshotStore store, final long index, final byte[] state,
        final Random random) throws IOException
    {
        try (SnapshotStore.Writer writer = store.begin(index))
        {
            int at = 0;
            while (at < state.length)
            {
                final int n = Math.min(state.length - at, 1 + random.nextInt(100_000));
                writer.write(state, at, n);
                at += n;
            }
            return writer.publish();
        }
    }

    private static byte[] read(final SnapshotStore store, final SnapshotStore.Snapshot snapshot) throws IOException
    {
        try (InputStream in = store.open(snapshot))
        {
            return in.readAllBytes();
        }
    }

    @Test
    void aStateOfManyChunksReadsBackExactlyAndTheNewestFewAreKept() throws Exception
    {
        final Random random = new Random(seed());
        final SnapshotStore store = new SnapshotStore(dir, 2);
        final byte[] first = state(random, 3 * SnapshotStore.CHUNK + 12_345);
        final byte[] second = state(random, SnapshotStore.CHUNK);
        final byte[] third = new byte[0];
        write(store, 10, first, random);
        final SnapshotStore.Snapshot s2 = write(store, 20, second, random);
        assertEquals(20, store.latest().orElseThrow().logIndex());
        assertArrayEquals(second, read(store, store.latest().orElseThrow()));
        assertArrayEquals(first, read(store, new SnapshotStore(dir, 2).at(10).orElseThrow()));
        write(store, 30, third, random);
        assertTrue(Files.notExists(store.fileOf(10)), "keep 2: the oldest is pruned");
        assertTrue(Files.exists(store.fileOf(20)));
        assertArrayEquals(third, read(store, store.latest().orElseThrow()));
        assertEquals(second.length, s2.bytes());
        try (var files = Files.list(dir))
        {
            assertEquals(2, files.count(), "no temporary file left behind");
        }
    }

    @Test
    void anUnpublishedSnapshotIsNeverSeenAndLeavesNothing() throws Exception
    {
        final Random random = new Random(seed());
        final SnapshotStore store = new SnapshotStore(dir, 3);
        write(store, 5, state(random, 1000), random);
        try (SnapshotStore.Writer writer = store.begin(9))
        {
            writer.write(state(random, 2 * SnapshotStore.CHUNK));
            assertEquals(5, store.latest().orElseThrow().logIndex(), "a snapshot being written is not visible");
        }
        assertEquals(5, store.latest().orElseThrow().logIndex());
        // A crash while writing leaves a temporary file: it is never taken for a snapshot.
        Files.write(dir.resolve(".snapshot-9.123.partial"), new byte[100]);
        assertEquals(5, store.latest().orElseThrow().logIndex());
        try (var files = Files.list(dir))
        {
            assertEquals(2, files.count());
        }
    }

    @Test
    void aDamagedSnapshotIsSkippedForTheOneBeforeNamingWhy() throws Exception
    {
        final long seed = seed();
        final Random random = new Random(seed);
        final SnapshotStore store = new SnapshotStore(dir, 5);
        final byte[] older = state(random, 100_000);
        write(store, 1, older, random);
        final SnapshotStore.Snapshot newer = write(store, 2, state(random, 2 * SnapshotStore.CHUNK + 7), random);
        final long size = Files.size(newer.file());
        final String[] damages = {"flip", "truncate", "append"};
        for (final String damage : damages)
        {
            final byte[] good = Files.readAllBytes(newer.file());
            final byte[] bad;
            switch (damage)
            {
                case "flip":
                {
                    bad = good.clone();
                    final int at = 20 + random.nextInt((int)size - 20);
                    bad[at] ^= (byte)(1 << random.nextInt(8));
                    break;
                }
                case "truncate":
                    bad = Arrays.copyOf(good, random.nextInt((int)size));
                    break;
                default:
                    bad = Arrays.copyOf(good, good.length + 1);
                    break;
            }
            Files.write(newer.file(), bad);
            final List<SnapshotStore.Rejected> rejected = new ArrayList<>();
            final Optional<SnapshotStore.Snapshot> latest = store.latest(rejected);
            assertEquals(1, latest.orElseThrow().logIndex(), damage + " (seed " + seed + ")");
            assertArrayEquals(older, read(store, latest.get()));
            assertEquals(1, rejected.size(), damage);
            assertTrue(rejected.get(0).reason().contains(newer.file().toString()), rejected.get(0).reason());
            assertThrows(CorruptSnapshotException.class, () -> read(store, newer), damage);
            Files.write(newer.file(), good);
        }
    }

    @Test
    void aTransferChecksEveryChunkAndTheWholeAndResumesAfterALostChunk() throws Exception
    {
        final long seed = seed();
        final Random random = new Random(seed);
        final SnapshotStore sender = new SnapshotStore(dir.resolve("a"), 2);
        final SnapshotStore receiver = new SnapshotStore(dir.resolve("b"), 2);
        final byte[] state = state(random, 5 * SnapshotStore.CHUNK + 99);
        final SnapshotStore.Snapshot sent = write(sender, 77, state, random);
        final List<byte[]> records = new ArrayList<>();
        sender.chunks(sent, (sequence, record, length) -> records.add(Arrays.copyOf(record, length)));
        assertEquals(6, records.size());

        try (SnapshotStore.Receiver in = receiver.receive(77))
        {
            // Chunk 2 is lost: 3 and 4 arrive out of sequence and are ignored; the sender resends from 2.
            assertTrue(in.accept(0, records.get(0), 0, records.get(0).length));
            assertTrue(in.accept(1, records.get(1), 0, records.get(1).length));
            assertFalse(in.accept(3, records.get(3), 0, records.get(3).length));
            assertFalse(in.accept(4, records.get(4), 0, records.get(4).length));
            assertEquals(2, in.nextSequence());
            // A chunk damaged on the way is refused; its resend is taken.
            final byte[] damaged = records.get(2).clone();
            damaged[8 + random.nextInt(damaged.length - 8)] ^= 1;
            assertThrows(CorruptSnapshotException.class, () -> in.accept(2, damaged, 0, damaged.length));
            for (int s = in.nextSequence(); s < records.size(); s++)
            {
                assertTrue(in.accept(s, records.get(s), 0, records.get(s).length));
            }
            assertTrue(receiver.latest().isEmpty(), "nothing visible before publish");
            final SnapshotStore.Snapshot installed = in.publish(sent.bytes(), sent.sha256());
            assertEquals(sent.sha256Hex(), installed.sha256Hex());
        }
        assertArrayEquals(state, read(receiver, receiver.latest().orElseThrow()));

        // A transfer whose whole differs from what the sender announced is not installed.
        try (SnapshotStore.Receiver in = receiver.receive(78))
        {
            for (int s = 0; s < records.size() - 1; s++)
            {
                in.accept(s, records.get(s), 0, records.get(s).length);
            }
            assertThrows(CorruptSnapshotException.class, () -> in.publish(sent.bytes(), sent.sha256()));
        }
        assertEquals(77, receiver.latest().orElseThrow().logIndex());
    }

    @Test
    void theKeyValueStoreSnapshotsLoadsAndDigestsItsState() throws Exception
    {
        final Random random = new Random(seed());
        final KeyValueStore a = new KeyValueStore();
        final KeyValueStore b = new KeyValueStore();
        final UnsafeBuffer command = new UnsafeBuffer(new byte[64]);
        for (int i = 0; i < 2000; i++)
        {
            final int length = KeyValueCommand.encode(command, KeyValueCommand.PUT, "key-" + random.nextInt(500), random.nextLong(), 0);
            a.apply(i, 0, command, 0, length);
            b.apply(i, 0, command, 0, length);
        }
        assertEquals(a.digest(), b.digest(), "replicas that applied the same commands");
        final SnapshotStore store = new SnapshotStore(dir, 2);
        try (SnapshotStore.Writer writer = store.begin(1999))
        {
            a.takeSnapshot(writer);
            writer.publish();
        }
        final KeyValueStore restored = new KeyValueStore();
        try (InputStream in = store.open(store.latest().orElseThrow()))
        {
            restored.loadSnapshot(in);
        }
        assertEquals(a.digest(), restored.digest());
        assertEquals(a.applied(), restored.applied());
        final int length = KeyValueCommand.encode(command, KeyValueCommand.PUT, "key-x", 1, 0);
        a.apply(2000, 0, command, 0, length);
        assertFalse(a.digest().equals(restored.digest()), "the digest follows the state");
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        a.takeSnapshot(bytes);
        final byte[] truncated = Arrays.copyOf(bytes.toByteArray(), bytes.size() - 3);
        assertThrows(IOException.class, () -> new KeyValueStore().loadSnapshot(new java.io.ByteArrayInputStream(truncated)));
    }
}
