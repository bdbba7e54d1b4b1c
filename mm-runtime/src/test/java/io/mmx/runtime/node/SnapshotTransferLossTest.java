package io.mmx.runtime.node;

import io.mmx.planner.plan.Plan;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A snapshot transfer over the real transport (two nodes in one JVM, n = 5, Aeron UDP on
 * loopback) while the sender's chunks are dropped and damaged: the receiver refuses every damaged
 * chunk, resumes from the first chunk it lacks, and ends with its peers' state digest.
 */
class SnapshotTransferLossTest
{
    private static final long SEED = Long.getLong("mmx.transfer.seed", 1);
    private static final int STATE_BYTES = 1 << 20;

    @TempDir
    Path dir;

    private final List<MmxNode> nodes = new ArrayList<>();

    @AfterEach
    void close()
    {
        nodes.forEach(MmxNode::close);
    }

    @Test
    void aTransferLosingAndDamagingChunksResumesAndEndsWithThePeersDigest() throws Exception
    {
        System.out.println("SnapshotTransferLossTest seed " + SEED + " (replay: -Dmmx.transfer.seed=" + SEED + ")");
        final SplittableRandom random = new SplittableRandom(SEED);
        final AtomicLong dropped = new AtomicLong();
        final AtomicLong damaged = new AtomicLong();
        // Called on the sending node's agent thread only: one sequence of draws per run. The first chunk
        // sent to each receiver is damaged for certain: it is the one chunk sure to arrive in order at a
        // fresh receiver, so its refusal is certain too (a random damaged chunk may land behind a lost one,
        // or in a transfer already superseded under load, and be ignored rather than refused).
        final java.util.Set<Integer> damagedFirst = new java.util.HashSet<>();
        final SnapshotTransfer.Faults faults = (from, to, sequence) ->
        {
            if (sequence == 0 && damagedFirst.add(to))
            {
                damaged.incrementAndGet();
                return SnapshotTransfer.Faults.CORRUPT;
            }
            final double r = random.nextDouble();
            if (r < 0.10)
            {
                dropped.incrementAndGet();
                return SnapshotTransfer.Faults.DROP;
            }
            if (r < 0.15)
            {
                damaged.incrementAndGet();
                return SnapshotTransfer.Faults.CORRUPT;
            }
            return SnapshotTransfer.Faults.DELIVER;
        };
        final Plan plan = NodeTestSupport.plan(5, 2, 7);
        final List<Integer> ports = NodeTestSupport.freePorts(2);
        final String directory = "0-2@127.0.0.1:" + ports.get(0) + ";3-4@127.0.0.1:" + ports.get(1);
        final MmxNode a = launch(plan, directory, faults, 0, 1, 2);
        MmxNode b = launch(plan, directory, SnapshotTransfer.Faults.NONE, 3, 4);
        NodeTestSupport.await(() -> nodes.stream().flatMap(n -> n.status().stream())
            .anyMatch(ProcessStatus::leads), 60_000, "a leader");
        b.close();
        nodes.remove(b);
        // Move the log on past what any region's decided log holds, so 3-4 need a snapshot.
        final int reach = new NodeContext().plan(plan).core().decidedCapacity();
        long counter = 0;
        while (a.status().get(0).commitIndex() < 2L * reach + 40)
        {
            final List<CompletableFuture<Long>> window = new ArrayList<>();
            for (int i = 0; i < 16; i++)
            {
                window.add(a.submit(longBytes(++counter)));
            }
            for (final CompletableFuture<Long> f : window)
            {
                f.get(30, TimeUnit.SECONDS);
            }
        }
        b = launch(plan, directory, SnapshotTransfer.Faults.NONE, 3, 4);
        final MmxNode restarted = b;
        // A restarted follower learns of what it missed from the next decisions: keep a trickle going.
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!(restarted.replica(3).transfer().transfersCompleted() >= 1 &&
            restarted.replica(4).transfer().transfersCompleted() >= 1))
        {
            assertTrue(System.nanoTime() < deadline, "3-4 installed no snapshot within 120 s");
            a.submit(longBytes(++counter)).get(30, TimeUnit.SECONDS);
            java.util.concurrent.locks.LockSupport.parkNanos(5_000_000);
        }
        a.submit(longBytes(++counter)).get(30, TimeUnit.SECONDS);
        NodeTestSupport.await(() ->
        {
            final List<ProcessStatus> all = nodes.stream().flatMap(n -> n.status().stream()).toList();
            return all.size() == 5 && all.stream().allMatch(s -> s.stateDigest() != null &&
                s.stateDigest().equals(all.get(0).stateDigest()) && s.appliedIndex() == all.get(0).appliedIndex());
        }, 120_000, "every replica at one index with one digest after the transfers");
        long refused = 0;
        long resumes = 0;
        for (final int p : new int[]{3, 4})
        {
            final SnapshotTransfer t = restarted.replica(p).transfer();
            assertTrue(t.transfersCompleted() >= 1, "process " + p + " installed no snapshot");
            refused += t.chunksRefused();
            resumes += t.resumesAsked();
        }
        System.out.println("chunks dropped " + dropped.get() + ", damaged " + damaged.get() + "; refused at the " +
            "receivers " + refused + ", resumes asked " + resumes + "; snapshot " + STATE_BYTES + " bytes of state");
        assertTrue(dropped.get() > 0 && damaged.get() > 0, "the run injected no fault of some kind (seed " + SEED + ")");
        assertTrue(refused > 0, "damaged chunks arrived but none was refused");
        assertTrue(resumes > 0, "chunks were lost but no transfer resumed");
    }

    private MmxNode launch(final Plan plan, final String directory, final SnapshotTransfer.Faults faults,
        final int... ids)
    {
        final MmxNode node = MmxNode.launch(new NodeContext().plan(plan).hosted(ids).directory(directory)
            .clusterKey(NodeTestSupport.KEY).shmDirectory(dir.resolve("regions"))
            .aeronDirectory(dir.resolve("aeron-" + ids[0]).toString()).stateDirectory(dir.resolve("state"))
            .maxCommandBytes(8).transferFaults(faults), id -> new BlobState(), NodeListener.NO_OP);
        nodes.add(node);
        return node;
    }

    private static byte[] longBytes(final long v)
    {
        final byte[] b = new byte[8];
        for (int i = 0; i < 8; i++)
        {
            b[i] = (byte)(v >>> (8 * i));
        }
        return b;
    }

    /** A state of 1 MiB (many chunks), each command mixing its value into 8 bytes of it. */
    private static final class BlobState implements StateMachine
    {
        private final long[] words = new long[STATE_BYTES / 8];

        BlobState()
        {
            final SplittableRandom fill = new SplittableRandom(42);
            for (int i = 0; i < words.length; i++)
            {
                words[i] = fill.nextLong();
            }
        }

        @Override
        public long apply(final long logIndex, final int origin, final DirectBuffer buffer, final int offset,
            final int length)
        {
            final long v = buffer.getLong(offset, java.nio.ByteOrder.LITTLE_ENDIAN);
            final int at = (int)Math.floorMod(v * 0x9E3779B97F4A7C15L, (long)words.length);
            words[at] = words[at] * 31 + v;
            return v;
        }

        @Override
        public OptionalLong stateDigest()
        {
            long h = 1;
            for (final long w : words)
            {
                h = h * 0x100000001B3L ^ w;
            }
            return OptionalLong.of(h);
        }

        @Override
        public boolean snapshots()
        {
            return true;
        }

        @Override
        public void takeSnapshot(final OutputStream out) throws IOException
        {
            final java.io.DataOutputStream data = new java.io.DataOutputStream(out);
            for (final long w : words)
            {
                data.writeLong(w);
            }
            data.flush();
        }

        @Override
        public void loadSnapshot(final InputStream in) throws IOException
        {
            final DataInputStream data = new DataInputStream(in);
            for (int i = 0; i < words.length; i++)
            {
                words[i] = data.readLong();
            }
        }
    }
}
