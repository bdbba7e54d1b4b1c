package io.mmx.rdma.fabric;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.region.ClusterKey;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static io.mmx.rdma.fabric.FabricTestSupport.OP_TIMEOUT_NS;
import static io.mmx.rdma.fabric.FabricTestSupport.await;
import static io.mmx.rdma.fabric.FabricTestSupport.readOk;
import static io.mmx.rdma.fabric.FabricTestSupport.status;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The semantics every backend must share: one test class, one subclass per backend. A backend
 * that passes this suite can replace another under the protocol core.
 *
 * <p>The plan: process 0 is linked to 1..4; 4 is also linked to 5. So 5 is not a neighbour of 0.
 */
public abstract class MemoryFabricConformanceTest
{
    protected static final int N = 6;
    protected static final long DATA_BYTES = 4096;
    protected static final Graph PLAN = Graph.fromEdges(N, new int[]{0, 0, 0, 0, 4}, new int[]{1, 2, 3, 4, 5});
    protected static final PlanDigest DIGEST = PlanDigest.ofGraph(PLAN);
    protected static final ClusterKey KEY = ClusterKey.ofPassphrase("conformance-cluster-key-0123456789");
    protected static final ClusterKey WRONG_KEY = ClusterKey.ofPassphrase("some-other-cluster-key-0123456789");

    private final List<MemoryFabric> opened = new ArrayList<>();

    /** Creates the region of {@code owner} as the owner would, with the plan's digest and the right key. */
    protected abstract void createRegion(int owner, long dataBytes);

    /** Opens the fabric of process {@code self} under {@code plan}, {@code digest} and {@code key}. */
    protected abstract MemoryFabric openFabric(int self, Graph plan, PlanDigest digest, ClusterKey key,
        int maxOutstanding);

    /** Sets the backend up (e.g. starts a daemon). */
    protected void setUpBackend() throws Exception
    {
    }

    /** Tears the backend down and removes what it created. */
    protected void tearDownBackend() throws Exception
    {
    }

    @BeforeEach
    void setUp() throws Exception
    {
        setUpBackend();
        for (int q = 0; q < N; q++)
        {
            createRegion(q, DATA_BYTES);
        }
    }

    @AfterEach
    void tearDown() throws Exception
    {
        opened.forEach(MemoryFabric::close);
        tearDownBackend();
    }

    protected MemoryFabric fabric(final int self)
    {
        return fabric(self, PLAN, DIGEST, KEY, PlanMemoryFabric.DEFAULT_MAX_OUTSTANDING);
    }

    protected MemoryFabric fabric(
        final int self, final Graph plan, final PlanDigest digest, final ClusterKey key, final int maxOutstanding)
    {
        final MemoryFabric fabric = openFabric(self, plan, digest, key, maxOutstanding);
        opened.add(fabric);
        return fabric;
    }

    @Test
    void wordOperationsHaveRdmaSemantics()
    {
        final MemoryFabric owner = fabric(0);
        final MemoryFabric peer = fabric(3);

        assertEquals(0, readOk(peer, 0, 64), "a new region reads as zeros");
        assertEquals(OpStatus.OK, status(owner, owner.write(0, 64, 41, OP_TIMEOUT_NS)));
        assertEquals(41, readOk(peer, 0, 64));

        final FabricTestSupport.Completion hit = await(peer, peer.compareAndSwap(0, 64, 41, 42, OP_TIMEOUT_NS));
        assertEquals(OpStatus.OK, hit.status());
        assertEquals(41, hit.value(), "CAS completes with the previous word");
        final FabricTestSupport.Completion miss = await(owner, owner.compareAndSwap(0, 64, 41, 99, OP_TIMEOUT_NS));
        assertEquals(OpStatus.OK, miss.status(), "a failed comparison is not an error");
        assertEquals(42, miss.value(), "a failed CAS reports the word it saw");
        assertEquals(42, readOk(owner, 0, 64), "a failed CAS writes nothing");

        final FabricTestSupport.Completion add = await(peer, peer.fetchAndAdd(0, 64, -50, OP_TIMEOUT_NS));
        assertEquals(42, add.value());
        assertEquals(-8, readOk(owner, 0, 64));

        assertEquals(OpStatus.OK, status(owner, owner.write(0, DATA_BYTES - 8, Long.MIN_VALUE, OP_TIMEOUT_NS)));
        assertEquals(Long.MIN_VALUE, readOk(peer, 0, DATA_BYTES - 8), "the last word of the region is usable");
        assertEquals(Long.MIN_VALUE, await(peer, peer.fetchAndAdd(0, DATA_BYTES - 8, -1, OP_TIMEOUT_NS)).value());
        assertEquals(Long.MAX_VALUE, readOk(peer, 0, DATA_BYTES - 8), "fetch-and-add wraps");
    }

    @Test
    void bulkTransfersRoundTrip()
    {
        final MemoryFabric owner = fabric(0);
        final MemoryFabric peer = fabric(1);
        final byte[] bytes = new byte[1000];
        for (int i = 0; i < bytes.length; i++)
        {
            bytes[i] = (byte)(i * 31 + 7);
        }
        final UnsafeBuffer src = new UnsafeBuffer(new byte[bytes.length + 5]);
        src.putBytes(5, bytes);
        final FabricTestSupport.Completion written = await(peer, peer.writeBulk(0, 13, src, 5, bytes.length, OP_TIMEOUT_NS));
        assertEquals(OpStatus.OK, written.status());
        assertEquals(bytes.length, written.value());

        final UnsafeBuffer dst = new UnsafeBuffer(new byte[bytes.length + 3]);
        final FabricTestSupport.Completion read = await(owner, owner.readBulk(0, 13, dst, 3, bytes.length, OP_TIMEOUT_NS));
        assertEquals(OpStatus.OK, read.status());
        final byte[] back = new byte[bytes.length];
        dst.getBytes(3, back);
        assertArrayEquals(bytes, back);

        final UnsafeBuffer max = new UnsafeBuffer(new byte[MemoryFabric.MAX_BULK_BYTES]);
        assertEquals(OpStatus.OK, status(peer, peer.readBulk(0, 0, max, 0, (int)DATA_BYTES, OP_TIMEOUT_NS)));
    }

    @Test
    void addressErrorsAreRefusedAndWriteNothing()
    {
        final MemoryFabric peer = fabric(2);
        final UnsafeBuffer buf = new UnsafeBuffer(new byte[MemoryFabric.MAX_BULK_BYTES + 8]);
        buf.setMemory(0, buf.capacity(), (byte)0x5A);

        assertEquals(OpStatus.MISALIGNED, status(peer, peer.write(0, 4, 1, OP_TIMEOUT_NS)));
        assertEquals(OpStatus.MISALIGNED, status(peer, peer.compareAndSwap(0, 9, 0, 1, OP_TIMEOUT_NS)));
        assertEquals(OpStatus.MISALIGNED, status(peer, peer.fetchAndAdd(0, 15, 1, OP_TIMEOUT_NS)));
        assertEquals(OpStatus.OUT_OF_BOUNDS, status(peer, peer.write(0, DATA_BYTES, 1, OP_TIMEOUT_NS)));
        assertEquals(OpStatus.OUT_OF_BOUNDS, status(peer, peer.read(0, -8, OP_TIMEOUT_NS)));
        assertEquals(OpStatus.OUT_OF_BOUNDS, status(peer, peer.fetchAndAdd(0, 1L << 40, 1, OP_TIMEOUT_NS)));
        assertEquals(OpStatus.OUT_OF_BOUNDS, status(peer, peer.writeBulk(0, DATA_BYTES - 10, buf, 0, 11, OP_TIMEOUT_NS)));
        assertEquals(OpStatus.OUT_OF_BOUNDS, status(peer, peer.writeBulk(0, -1, buf, 0, 8, OP_TIMEOUT_NS)));
        assertEquals(OpStatus.BAD_LENGTH, status(peer, peer.writeBulk(0, 0, buf, 0, 0, OP_TIMEOUT_NS)));
        assertEquals(OpStatus.BAD_LENGTH,
            status(peer, peer.writeBulk(0, 0, buf, 0, MemoryFabric.MAX_BULK_BYTES + 1, OP_TIMEOUT_NS)));
        assertEquals(OpStatus.BAD_LENGTH, status(peer, peer.readBulk(0, 0, buf, buf.capacity() - 4, 8, OP_TIMEOUT_NS)));

        assertRegionZero(fabric(0), 0);
        assertTrue(peer.counters().get(OpStatus.MISALIGNED) >= 3, peer.counters().toString());
        assertTrue(peer.counters().get(OpStatus.OUT_OF_BOUNDS) >= 5, peer.counters().toString());
    }

    @Test
    void nonNeighboursAreRefusedCountedAndWriteNothing()
    {
        final MemoryFabric stranger = fabric(5);
        assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, status(stranger, stranger.write(0, 0, 7, OP_TIMEOUT_NS)));
        assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR,
            status(stranger, stranger.compareAndSwap(0, 0, 0, 7, OP_TIMEOUT_NS)));
        assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, status(stranger, stranger.fetchAndAdd(0, 0, 7, OP_TIMEOUT_NS)));
        assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, status(stranger, stranger.read(0, 0, OP_TIMEOUT_NS)));
        assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, status(stranger, stranger.read(N + 3, 0, OP_TIMEOUT_NS)),
            "an id outside the plan is refused the same way");
        assertEquals(5, stranger.counters().get(OpStatus.REFUSED_NOT_NEIGHBOUR));
        assertRegionZero(fabric(0), 0);
        assertEquals(OpStatus.OK, status(stranger, stranger.write(4, 0, 7, OP_TIMEOUT_NS)), "5 may use 4's region");
    }

    @Test
    void wrongClusterKeyIsRefusedAndWritesNothing()
    {
        final MemoryFabric intruder = fabric(1, PLAN, DIGEST, WRONG_KEY, 16);
        assertEquals(OpStatus.BAD_CLUSTER_KEY, status(intruder, intruder.write(0, 0, 7, OP_TIMEOUT_NS)));
        assertEquals(OpStatus.BAD_CLUSTER_KEY, status(intruder, intruder.compareAndSwap(0, 0, 0, 7, OP_TIMEOUT_NS)));
        assertEquals(OpStatus.BAD_CLUSTER_KEY, status(intruder, intruder.read(0, 0, OP_TIMEOUT_NS)));
        assertTrue(intruder.counters().get(OpStatus.BAD_CLUSTER_KEY) >= 3);
        assertRegionZero(fabric(0), 0);
    }

    @Test
    void regionOfAnotherPlanIsRefused()
    {
        final MemoryFabric stale = fabric(1, PLAN, PlanDigest.of64(0xDEADBEEFL), KEY, 16);
        assertEquals(OpStatus.REGION_MISMATCH, status(stale, stale.write(0, 0, 7, OP_TIMEOUT_NS)));
        assertRegionZero(fabric(0), 0);
    }

    @Test
    void missingRegionIsLostUntilCreated()
    {
        final Graph plan = Graph.fromEdges(N + 1, new int[]{0}, new int[]{N});
        final PlanDigest digest = PlanDigest.ofGraph(plan);
        final MemoryFabric early = fabric(0, plan, digest, KEY, 16);
        assertEquals(OpStatus.REGION_LOST, status(early, early.read(N, 0, OP_TIMEOUT_NS)));
        createRegionForPlan(N, DATA_BYTES, digest);
        assertEquals(0, readOk(early, N, 0), "a neighbour that starts late is found on the next operation");
    }

    /** Creates a region under another plan digest; backends override when regions carry the digest elsewhere. */
    protected abstract void createRegionForPlan(int owner, long dataBytes, PlanDigest digest);

    @Test
    void submissionsBeyondTheBoundAreBackPressured()
    {
        final MemoryFabric peer = fabric(1, PLAN, DIGEST, KEY, 4);
        final long[] ids = new long[4];
        for (int i = 0; i < ids.length; i++)
        {
            ids[i] = peer.fetchAndAdd(0, 8, 1, OP_TIMEOUT_NS);
            assertTrue(ids[i] > 0);
        }
        final long rejected = peer.fetchAndAdd(0, 8, 1, OP_TIMEOUT_NS);
        assertEquals(OpStatus.BACK_PRESSURED, MemoryFabric.rejection(rejected));
        for (final long id : ids)
        {
            assertEquals(OpStatus.OK, status(peer, id));
        }
        assertEquals(0, peer.outstanding());
        assertEquals(4, readOk(peer, 0, 8), "the rejected submission did nothing");
    }

    @Test
    void regionOutlivesItsOwnersFabric()
    {
        final MemoryFabric owner = fabric(0);
        assertEquals(OpStatus.OK, status(owner, owner.write(0, 128, 77, OP_TIMEOUT_NS)));
        owner.close();
        assertEquals(OpStatus.CLOSED, MemoryFabric.rejection(owner.read(0, 128, OP_TIMEOUT_NS)));
        final MemoryFabric peer = fabric(2);
        assertEquals(77, readOk(peer, 0, 128));
        assertEquals(77, readOk(fabric(0), 0, 128), "a restarted owner finds its state");
    }

    @Test
    void fetchAndAddIsLinearizableUnderConcurrency() throws Exception
    {
        final int[] processes = {0, 1, 2, 3, 4};
        final int perProcess = 2_000;
        final long[][] returned = runConcurrently(processes, (fabric, p) ->
        {
            final long[] values = new long[perProcess];
            for (int i = 0; i < perProcess; i++)
            {
                final FabricTestSupport.Completion c = await(fabric, fabric.fetchAndAdd(0, 256, 1, OP_TIMEOUT_NS));
                assertEquals(OpStatus.OK, c.status());
                values[i] = c.value();
            }
            return values;
        });
        final long total = (long)processes.length * perProcess;
        final long[] all = Arrays.stream(returned).flatMapToLong(Arrays::stream).sorted().toArray();
        for (int i = 0; i < all.length; i++)
        {
            assertEquals(i, all[i], "fetch-and-add results must be exactly 0.." + (total - 1) + ", each once");
        }
        for (final long[] perThread : returned)
        {
            for (int i = 1; i < perThread.length; i++)
            {
                assertTrue(perThread[i] > perThread[i - 1], "one process's sequential adds must see increasing values");
            }
        }
        assertEquals(total, readOk(fabric(0), 0, 256));
    }

    @Test
    void compareAndSwapIsLinearizableUnderConcurrency() throws Exception
    {
        final int[] processes = {0, 1, 2, 3, 4};
        final int perProcess = 500;
        final long[][] observed = runConcurrently(processes, (fabric, p) ->
        {
            // Each success increments the counter from the value it observed; record that value.
            final long[] wins = new long[perProcess];
            int won = 0;
            long guess = 0;
            while (won < perProcess)
            {
                final FabricTestSupport.Completion c =
                    await(fabric, fabric.compareAndSwap(0, 512, guess, guess + 1, OP_TIMEOUT_NS));
                assertEquals(OpStatus.OK, c.status());
                if (c.value() == guess)
                {
                    wins[won++] = guess;
                    guess++;
                }
                else
                {
                    assertTrue(c.value() > guess, "the counter never goes backwards");
                    guess = c.value();
                }
            }
            return wins;
        });
        final long total = (long)processes.length * perProcess;
        final long[] all = Arrays.stream(observed).flatMapToLong(Arrays::stream).sorted().toArray();
        for (int i = 0; i < all.length; i++)
        {
            assertEquals(i, all[i], "every successful CAS must have observed a distinct value 0.." + (total - 1));
        }
        assertEquals(total, readOk(fabric(0), 0, 512), "no increment lost or duplicated");
    }

    /** Work one process does in a concurrency test. */
    @FunctionalInterface
    protected interface ProcessWork
    {
        long[] run(MemoryFabric fabric, int process);
    }

    protected long[][] runConcurrently(final int[] processes, final ProcessWork work) throws Exception
    {
        final long[][] results = new long[processes.length][];
        final MemoryFabric[] fabrics = new MemoryFabric[processes.length];
        for (int i = 0; i < processes.length; i++)
        {
            fabrics[i] = fabric(processes[i]);
        }
        final CountDownLatch start = new CountDownLatch(1);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread[] threads = new Thread[processes.length];
        for (int i = 0; i < processes.length; i++)
        {
            final int index = i;
            threads[i] = new Thread(() ->
            {
                try
                {
                    start.await();
                    results[index] = work.run(fabrics[index], processes[index]);
                }
                catch (final Throwable t)
                {
                    failure.compareAndSet(null, t);
                }
            }, "process-" + processes[i]);
            threads[i].start();
        }
        start.countDown();
        for (final Thread t : threads)
        {
            t.join(60_000);
            assertTrue(!t.isAlive(), "worker " + t.getName() + " did not finish within 60 s");
        }
        if (failure.get() != null)
        {
            throw new AssertionError("a worker failed", failure.get());
        }
        return results;
    }

    private static void assertRegionZero(final MemoryFabric reader, final int owner)
    {
        final UnsafeBuffer all = new UnsafeBuffer(new byte[(int)DATA_BYTES]);
        assertEquals(OpStatus.OK, status(reader, reader.readBulk(owner, 0, all, 0, (int)DATA_BYTES, OP_TIMEOUT_NS)));
        for (int i = 0; i < DATA_BYTES; i += 8)
        {
            assertEquals(0, all.getLong(i), "region of process " + owner + " was written at offset " + i);
        }
    }
}
