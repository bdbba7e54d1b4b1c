package io.mmx.perf.fabric;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.memd.MemdLinkFactory;
import io.mmx.rdma.memd.MemdRegionLink;
import io.mmx.rdma.memd.MemoryDaemon;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.shm.ShmRegionStore;
import org.HdrHistogram.Histogram;
import org.agrona.IoUtil;
import org.agrona.concurrent.SystemNanoClock;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Ops/s and latency percentiles of compare-and-swap and 8-byte read through the memory fabric
 * (shm, memd over loopback), against a plain in-JVM {@link AtomicLong} in the same run, reported
 * as ratios. Process 1 operates on the region of its plan neighbour 0, as an m&amp;m executor would.
 *
 * <p>Each case runs a throughput pass (no per-operation timing) and a latency pass (each
 * operation timed with {@code System.nanoTime()}, whose own cost of about 20 ns is included).
 * Depth 1 means one operation in flight (latency-bound); depth 16 keeps 16 in flight.
 *
 * <pre>
 *   --duration-ms N   length of each pass (default 1000)
 *   --warmup-ms N     warm-up before each case (default 1000)
 *   --shm-dir PATH    parent directory for shm regions (default /dev/shm)
 * </pre>
 */
public final class FabricBenchmark
{
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(5);
    private static final Graph PLAN = Graph.fromEdges(2, new int[]{0}, new int[]{1});
    private static final PlanDigest DIGEST = PlanDigest.ofGraph(PLAN);
    private static final ClusterKey KEY = ClusterKey.ofPassphrase("mmx-fabric-benchmark-key-0123456789");
    private static final int OWNER = 0;
    private static final int SELF = 1;
    private static final long WORD = 64;

    private FabricBenchmark()
    {
    }

    /** One operation kind measured on one backend. */
    interface Case
    {
        /** Runs operations for {@code durationNs}; records latencies if {@code histogram} is non-null. */
        long run(long durationNs, Histogram histogram);
    }

    /**
     * One row of the report.
     *
     * @param backend    baseline, shm or memd.
     * @param op         cas or read.
     * @param depth      operations in flight.
     * @param opsPerSec  from the throughput pass.
     * @param histogram  latencies in ns from the latency pass.
     */
    record Row(String backend, String op, int depth, double opsPerSec, Histogram histogram)
    {
    }

    /**
     * Runs the benchmark; prints the table to {@code out}.
     *
     * @return the rows, for tests.
     */
    public static List<Row> run(final String[] args, final PrintStream out) throws Exception
    {
        long durationMs = 1000;
        long warmupMs = 1000;
        Path shmParent = Path.of("/dev/shm");
        for (int i = 0; i + 1 < args.length; i += 2)
        {
            switch (args[i])
            {
                case "--duration-ms":
                    durationMs = Long.parseLong(args[i + 1]);
                    break;
                case "--warmup-ms":
                    warmupMs = Long.parseLong(args[i + 1]);
                    break;
                case "--shm-dir":
                    shmParent = Path.of(args[i + 1]);
                    break;
                default:
                    throw new IllegalArgumentException("unknown option " + args[i] +
                        ": use --duration-ms, --warmup-ms or --shm-dir");
            }
        }
        if (!Files.isDirectory(shmParent))
        {
            shmParent = Path.of(System.getProperty("java.io.tmpdir"));
        }
        final long durationNs = TimeUnit.MILLISECONDS.toNanos(durationMs);
        final long warmupNs = TimeUnit.MILLISECONDS.toNanos(warmupMs);
        final List<Row> rows = new ArrayList<>();

        final AtomicLong atomic = new AtomicLong();
        rows.add(measure("baseline", "cas", 1, baselineCas(atomic), durationNs, warmupNs));
        rows.add(measure("baseline", "read", 1, baselineRead(atomic), durationNs, warmupNs));

        final Path shmDir = Files.createTempDirectory(shmParent, "mmx-bench-");
        try
        {
            final ShmRegionStore store = new ShmRegionStore(shmDir);
            store.createOrOpen(OWNER, 4096, DIGEST, KEY).close();
            store.createOrOpen(SELF, 4096, DIGEST, KEY).close();
            try (PlanMemoryFabric shm = new PlanMemoryFabric(
                ConnectionManager.open(PLAN, SELF, store.linkFactory(DIGEST, KEY)), SystemNanoClock.INSTANCE))
            {
                rows.add(measure("shm", "cas", 1, fabricCas(shm, 1), durationNs, warmupNs));
                rows.add(measure("shm", "read", 1, fabricRead(shm, 1), durationNs, warmupNs));
            }
        }
        finally
        {
            IoUtil.delete(shmDir.toFile(), true);
        }

        try (MemoryDaemon daemon = MemoryDaemon.start(new MemoryDaemon.Context()
            .listen(new InetSocketAddress("127.0.0.1", 0)).clusterKey(KEY).plan(PLAN)))
        {
            final InetSocketAddress address = daemon.boundAddress();
            for (final int q : new int[]{OWNER, SELF})
            {
                final OpStatus created = MemdRegionLink.createRegion(address, KEY, q, 4096, DIGEST, TIMEOUT_NS);
                if (created != OpStatus.OK)
                {
                    throw new IllegalStateException("memd refused to create region " + q + ": " + created);
                }
            }
            try (PlanMemoryFabric memd = new PlanMemoryFabric(ConnectionManager.open(PLAN, SELF,
                new MemdLinkFactory((owner) -> address, KEY, DIGEST, 2_000)), SystemNanoClock.INSTANCE))
            {
                // Warm the daemon's and the client's code paths on every case first: on a loaded
                // machine the JIT needs more than one case's warm-up before the first measurement.
                final Case[] cases = {fabricCas(memd, 1), fabricRead(memd, 1), fabricCas(memd, 16), fabricRead(memd, 16)};
                for (final Case c : cases)
                {
                    c.run(warmupNs, null);
                }
                rows.add(measure("memd", "cas", 1, cases[0], durationNs, warmupNs));
                rows.add(measure("memd", "read", 1, cases[1], durationNs, warmupNs));
                rows.add(measure("memd", "cas", 16, cases[2], durationNs, warmupNs));
                rows.add(measure("memd", "read", 16, cases[3], durationNs, warmupNs));
            }
        }
        report(rows, out);
        return rows;
    }

    /** Entry point; see the class comment for options. */
    public static void main(final String[] args) throws Exception
    {
        run(args, System.out);
    }

    private static Row measure(
        final String backend, final String op, final int depth, final Case c, final long durationNs,
        final long warmupNs)
    {
        c.run(warmupNs, null);
        final long startNs = System.nanoTime();
        final long ops = c.run(durationNs, null);
        final double opsPerSec = ops * 1e9 / (System.nanoTime() - startNs);
        final Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        c.run(durationNs, histogram);
        return new Row(backend, op, depth, opsPerSec, histogram);
    }

    private static Case baselineCas(final AtomicLong atomic)
    {
        return (durationNs, histogram) ->
        {
            final long endNs = System.nanoTime() + durationNs;
            long ops = 0;
            long expected = atomic.get();
            while (true)
            {
                // Check the clock every 1024 operations so that it does not dominate the throughput pass.
                for (int i = 0; i < 1024; i++)
                {
                    if (histogram == null)
                    {
                        if (!atomic.compareAndSet(expected, expected + 1))
                        {
                            throw new IllegalStateException("single-writer CAS failed");
                        }
                    }
                    else
                    {
                        final long t0 = System.nanoTime();
                        final boolean ok = atomic.compareAndSet(expected, expected + 1);
                        histogram.recordValue(System.nanoTime() - t0);
                        if (!ok)
                        {
                            throw new IllegalStateException("single-writer CAS failed");
                        }
                    }
                    expected++;
                }
                ops += 1024;
                if (System.nanoTime() - endNs >= 0)
                {
                    return ops;
                }
            }
        };
    }

    private static Case baselineRead(final AtomicLong atomic)
    {
        return (durationNs, histogram) ->
        {
            final long endNs = System.nanoTime() + durationNs;
            long ops = 0;
            long sink = 0;
            while (true)
            {
                for (int i = 0; i < 1024; i++)
                {
                    if (histogram == null)
                    {
                        sink += atomic.get();
                    }
                    else
                    {
                        final long t0 = System.nanoTime();
                        sink += atomic.get();
                        histogram.recordValue(System.nanoTime() - t0);
                    }
                }
                ops += 1024;
                if (System.nanoTime() - endNs >= 0)
                {
                    if (sink == 42)
                    {
                        System.out.print(""); // keeps the reads observable to the JIT
                    }
                    return ops;
                }
            }
        };
    }

    private static Case fabricCas(final MemoryFabric fabric, final int depth)
    {
        final Pipeline pipeline = new Pipeline(fabric, depth, true);
        return pipeline::run;
    }

    private static Case fabricRead(final MemoryFabric fabric, final int depth)
    {
        final Pipeline pipeline = new Pipeline(fabric, depth, false);
        return pipeline::run;
    }

    /**
     * Keeps {@code depth} operations in flight. CAS uses fetch-and-add semantics' sibling: each
     * CAS expects the value the previous one installed, so with depth 1 every CAS succeeds; with
     * depth > 1 some fail (as contended CAS would) but each is still one full remote operation.
     */
    private static final class Pipeline
    {
        private static final int RING = 4096;
        private final MemoryFabric fabric;
        private final int depth;
        private final boolean cas;
        private final long[] submitNs = new long[RING];
        private Histogram histogram;
        private long completed;
        private long expected;
        private OpStatus failure;
        private long readBack;
        private long readBackId;

        Pipeline(final MemoryFabric fabric, final int depth, final boolean cas)
        {
            this.fabric = fabric;
            this.depth = depth;
            this.cas = cas;
        }

        long run(final long durationNs, final Histogram histogram)
        {
            this.histogram = null;
            if (cas)
            {
                // Other cases share the word: start from its current value so that depth-1 CAS succeed.
                final long id = fabric.read(OWNER, WORD, TIMEOUT_NS);
                readBack = Long.MIN_VALUE;
                readBackId = id;
                while (readBack == Long.MIN_VALUE && failure == null)
                {
                    fabric.poll(this::onReadBack, 1);
                }
                expected = readBack;
            }
            this.histogram = histogram;
            completed = 0;
            final long endNs = System.nanoTime() + durationNs;
            while (true)
            {
                while (fabric.outstanding() < depth && System.nanoTime() - endNs < 0)
                {
                    submit();
                }
                fabric.poll(this::onCompletion, depth);
                if (failure != null)
                {
                    throw new IllegalStateException("benchmark operation failed with " + failure);
                }
                if (System.nanoTime() - endNs >= 0 && fabric.outstanding() == 0)
                {
                    return completed;
                }
            }
        }

        private void submit()
        {
            final long now = System.nanoTime();
            final long id = cas ?
                fabric.compareAndSwap(OWNER, WORD, expected, expected + 1, TIMEOUT_NS) :
                fabric.read(OWNER, WORD, TIMEOUT_NS);
            if (id <= 0)
            {
                throw new IllegalStateException("submission rejected: " + MemoryFabric.rejection(id));
            }
            if (cas)
            {
                expected++;
            }
            submitNs[(int)(id & (RING - 1))] = now;
        }

        private void onReadBack(
            final long id, final io.mmx.rdma.fabric.OpType type, final int owner, final OpStatus status, final long value)
        {
            if (status != OpStatus.OK)
            {
                failure = status;
            }
            else if (id == readBackId)
            {
                readBack = value;
            }
        }

        private void onCompletion(
            final long id, final io.mmx.rdma.fabric.OpType type, final int owner, final OpStatus status, final long value)
        {
            if (status != OpStatus.OK)
            {
                failure = status;
                return;
            }
            if (cas && value != expected - 1 && depth == 1)
            {
                failure = OpStatus.PROTOCOL_ERROR; // a single writer's CAS must succeed
            }
            if (cas && depth > 1)
            {
                expected = Math.max(expected, value + 1);
            }
            completed++;
            if (histogram != null)
            {
                histogram.recordValue(System.nanoTime() - submitNs[(int)(id & (RING - 1))]);
            }
        }
    }

    private static void report(final List<Row> rows, final PrintStream out)
    {
        final Row baseCas = find(rows, "baseline", "cas");
        final Row baseRead = find(rows, "baseline", "read");
        out.println("mmx memory fabric benchmark (single thread, process 1 -> region of neighbour 0)");
        out.printf(Locale.ROOT, "%-9s %-5s %5s %14s %10s %10s %10s %10s %12s %12s%n",
            "backend", "op", "depth", "ops/s", "p50 ns", "p99 ns", "p99.9 ns", "max ns",
            "ops/s ratio", "p50 ratio");
        for (final Row r : rows)
        {
            final Row base = r.op().equals("cas") ? baseCas : baseRead;
            final long p50 = r.histogram().getValueAtPercentile(50);
            final long baseP50 = Math.max(1, base.histogram().getValueAtPercentile(50));
            out.printf(Locale.ROOT, "%-9s %-5s %5d %14.0f %10d %10d %10d %10d %12s %12s%n",
                r.backend(), r.op(), r.depth(), r.opsPerSec(), p50,
                r.histogram().getValueAtPercentile(99), r.histogram().getValueAtPercentile(99.9),
                r.histogram().getMaxValue(),
                String.format(Locale.ROOT, "1/%.0f", base.opsPerSec() / r.opsPerSec()),
                String.format(Locale.ROOT, "%.0fx", (double)p50 / baseP50));
        }
        out.println("ratios are against the AtomicLong baseline of the same op in this run; " +
            "latencies include ~20 ns of System.nanoTime()");
    }

    private static Row find(final List<Row> rows, final String backend, final String op)
    {
        for (final Row r : rows)
        {
            if (r.backend().equals(backend) && r.op().equals(op))
            {
                return r;
            }
        }
        throw new IllegalStateException("no row " + backend + "/" + op);
    }
}
