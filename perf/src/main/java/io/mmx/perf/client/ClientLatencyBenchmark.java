package io.mmx.perf.client;

import io.mmx.planner.plan.Plan;
import io.mmx.runtime.client.MmxClient;
import io.mmx.runtime.example.kv.KeyValueCommand;
import io.mmx.runtime.example.kv.KeyValueStore;
import io.mmx.runtime.local.LocalCluster;
import io.mmx.runtime.node.MmxNode;
import io.mmx.runtime.node.NodeContext;
import io.mmx.runtime.node.NodeListener;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Commit latency of an outside client ({@link MmxClient}) against a submit from inside the cluster
 * ({@link MmxNode#submit}) in the same run: two nodes in this JVM (n = 5, processes 0-2 and 3-4),
 * Aeron UDP on loopback, shm regions. One call at a time; the baselines and the client alternate in
 * blocks so both see the same machine. Rows:
 * <ul>
 *   <li>submit at the leader's node: the command is proposed where it is submitted;</li>
 *   <li>submit at a follower's node: forwarded to the leader first;</li>
 *   <li>client: a 20-byte key-value put through the leader's node, from outside;</li>
 *   <li>client, 64 KiB: 2,341 fragments.</li>
 * </ul>
 * Ratios are each row's median over the median of the submit at the leader's node.
 * <pre>
 *   --calls N   calls per row (default 2000; 64 KiB rows: N / 50)
 * </pre>
 */
public final class ClientLatencyBenchmark
{
    private static final int BLOCK = 100;

    private ClientLatencyBenchmark()
    {
    }

    /** Runs the measurement the class comment describes, with {@code args} as its options. */
    public static void main(final String[] args) throws Exception
    {
        int calls = 2000;
        for (int i = 0; i < args.length; i++)
        {
            if (args[i].equals("--calls") && i + 1 < args.length)
            {
                calls = Integer.parseInt(args[++i]);
            }
            else
            {
                System.err.println("perf client: unknown option '" + args[i] + "'; use --calls N");
                System.exit(2);
            }
        }
        if (calls < BLOCK || calls > 1_000_000)
        {
            System.err.println("perf client: --calls " + calls + " is out of range: give " + BLOCK + "..1000000");
            System.exit(2);
        }
        final Path dir = Files.createTempDirectory("mmx-perf-client-");
        try
        {
            run(dir, calls, System.out);
        }
        finally
        {
            LocalCluster.deleteTree(dir);
        }
    }

    /** Runs the benchmark in {@code dir}; prints a markdown table. */
    public static void run(final Path dir, final int calls, final PrintStream out) throws Exception
    {
        final Plan plan = LocalCluster.plan(5, 2, 7);
        final List<Integer> ports = LocalCluster.freePorts(2, true);
        final String a = "127.0.0.1:" + ports.get(0);
        final String b = "127.0.0.1:" + ports.get(1);
        final String directory = "0-2@" + a + ";3-4@" + b;
        final byte[] key = "perf-client-latency-cluster-key!!".getBytes();
        try (MmxNode leaderNode = MmxNode.launch(context(plan, directory, key, dir, 0, 1, 2), id -> new KeyValueStore(),
                NodeListener.NO_OP);
             MmxNode followerNode = MmxNode.launch(context(plan, directory, key, dir, 3, 4), id -> new KeyValueStore(),
                NodeListener.NO_OP))
        {
            awaitLeader(leaderNode);
            // The client knows only the leader's node: its first answer names the leader, as it would anyway.
            try (MmxClient client = MmxClient.connect(new MmxClient.Context().endpoints(List.of(a))
                .key(leaderNode.clientKey()).timeoutNs(30_000_000_000L)))
            {
                final byte[] put = put();
                final byte[] large = new byte[64 * 1024];
                new java.util.Random(1).nextBytes(large);
                // Warm up every path (JIT, publications, sessions).
                measure(() -> leaderNode.submit(put).get(30, TimeUnit.SECONDS), BLOCK);
                measure(() -> followerNode.submit(put).get(30, TimeUnit.SECONDS), BLOCK);
                measure(() -> client.execute(put), BLOCK);
                measure(() -> client.execute(large), 5);
                final long[][] rows = new long[4][];
                final long[][] parts = new long[4][];
                for (int done = 0; done < calls; done += BLOCK)
                {
                    parts[0] = measure(() -> leaderNode.submit(put).get(30, TimeUnit.SECONDS), BLOCK);
                    parts[1] = measure(() -> followerNode.submit(put).get(30, TimeUnit.SECONDS), BLOCK);
                    parts[2] = measure(() -> client.execute(put), BLOCK);
                    parts[3] = measure(() -> client.execute(large), Math.max(1, BLOCK / 50));
                    for (int r = 0; r < 4; r++)
                    {
                        rows[r] = rows[r] == null ? parts[r] : concat(rows[r], parts[r]);
                    }
                }
                report(rows, out);
            }
        }
    }

    private static void report(final long[][] rows, final PrintStream out)
    {
        final String[] names = {"submit at the leader's node (baseline)", "submit at a follower's node",
            "client, 20 B put", "client, 64 KiB command"};
        for (final long[] r : rows)
        {
            Arrays.sort(r);
        }
        final double base = percentile(rows[0], 50);
        out.println("| path | calls | p50 µs | p90 µs | p99 µs | p50 / baseline |");
        out.println("|---|---|---|---|---|---|");
        for (int r = 0; r < rows.length; r++)
        {
            out.printf(Locale.ROOT, "| %s | %d | %.0f | %.0f | %.0f | %.2f |%n", names[r], rows[r].length,
                percentile(rows[r], 50), percentile(rows[r], 90), percentile(rows[r], 99),
                percentile(rows[r], 50) / base);
        }
    }

    private static double percentile(final long[] sorted, final int p)
    {
        return sorted[Math.min(sorted.length - 1, (int)((long)sorted.length * p / 100))] / 1000.0;
    }

    @FunctionalInterface
    private interface Call
    {
        Object call() throws Exception;
    }

    private static long[] measure(final Call call, final int count) throws Exception
    {
        final long[] ns = new long[count];
        for (int i = 0; i < count; i++)
        {
            final long start = System.nanoTime();
            call.call();
            ns[i] = System.nanoTime() - start;
        }
        return ns;
    }

    private static long[] concat(final long[] x, final long[] y)
    {
        final long[] out = Arrays.copyOf(x, x.length + y.length);
        System.arraycopy(y, 0, out, x.length, y.length);
        return out;
    }

    private static byte[] put()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[KeyValueCommand.MAX_LENGTH]);
        final int length = KeyValueCommand.encode(buffer, KeyValueCommand.PUT, "k", 1, 0);
        final byte[] bytes = new byte[length];
        buffer.getBytes(0, bytes);
        return bytes;
    }

    private static NodeContext context(final Plan plan, final String directory, final byte[] key, final Path dir,
        final int... ids)
    {
        return new NodeContext().plan(plan).hosted(ids).directory(directory).clusterKey(key)
            .shmDirectory(dir.resolve("regions")).aeronDirectory(dir.resolve("aeron-" + ids[0]).toString());
    }

    /** Waits until process 0 leads (Ω prefers the lowest live id), so the first node is the leader's. */
    private static void awaitLeader(final MmxNode node) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!node.status().get(0).leads())
        {
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException("process 0 did not lead within 60 s");
            }
            Thread.sleep(10);
        }
    }
}
