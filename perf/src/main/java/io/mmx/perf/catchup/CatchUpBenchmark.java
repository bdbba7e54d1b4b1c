package io.mmx.perf.catchup;

import io.mmx.planner.plan.Plan;
import io.mmx.runtime.example.kv.KeyValueClient;
import io.mmx.runtime.example.kv.KeyValueStore;
import io.mmx.runtime.local.LocalCluster;
import io.mmx.runtime.node.MmxNode;
import io.mmx.runtime.node.NodeContext;
import io.mmx.runtime.node.NodeListener;
import io.mmx.runtime.node.ProcessStatus;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Catch-up time of a restarted node against the length of the log it missed, with the time the
 * cluster took to commit that log as the baseline of the same run. Two nodes in this JVM (n = 5,
 * processes 0-2 and 3-4) keep state directories; the second stops, the first commits L key-value
 * puts (256 distinct keys), the second starts again, and the clock runs until each of its replicas
 * holds the whole missed log (a put every few milliseconds keeps the log moving meanwhile); then
 * all replicas must agree at one index with one digest. Beyond what the decided logs hold
 * (256 slots) the restarted replicas install a peer's snapshot; below, they learn the missed slots.
 * <pre>
 *   --commands L,L,...   missed log lengths (default 1000,10000,100000)
 * </pre>
 */
public final class CatchUpBenchmark
{
    private CatchUpBenchmark()
    {
    }

    /** Runs the measurement the class comment describes, with {@code args} as its options. */
    public static void main(final String[] args) throws Exception
    {
        long[] lengths = {1_000, 10_000, 100_000};
        for (int i = 0; i < args.length; i++)
        {
            if (args[i].equals("--commands") && i + 1 < args.length)
            {
                lengths = java.util.Arrays.stream(args[++i].split(",")).mapToLong(Long::parseLong).toArray();
            }
            else
            {
                System.err.println("perf catchup: unknown option '" + args[i] + "'; use --commands L,L,...");
                System.exit(2);
            }
        }
        for (final long l : lengths)
        {
            if (l < 1 || l > 10_000_000)
            {
                System.err.println("perf catchup: a length of " + l + " commands is out of range: give 1..10000000");
                System.exit(2);
            }
        }
        run(lengths, System.out);
    }

    /** Runs each length in a fresh cluster; prints a markdown table. */
    public static void run(final long[] lengths, final PrintStream out) throws Exception
    {
        out.println("| missed commands | commit them (baseline) ms | restart to caught up ms | ratio |");
        out.println("|---|---|---|---|");
        for (final long length : lengths)
        {
            final Path dir = Files.createTempDirectory("mmx-perf-catchup-");
            try
            {
                final long[] ms = once(dir, length);
                out.printf(Locale.ROOT, "| %d | %d | %d | %.2f |%n", length, ms[0], ms[1], ms[1] / (double)Math.max(1, ms[0]));
            }
            finally
            {
                LocalCluster.deleteTree(dir);
            }
        }
    }

    private static long[] once(final Path dir, final long length) throws Exception
    {
        final Plan plan = LocalCluster.plan(5, 2, 7);
        final List<Integer> ports = LocalCluster.freePorts(2, true);
        final String directory = "0-2@127.0.0.1:" + ports.get(0) + ";3-4@127.0.0.1:" + ports.get(1);
        final byte[] key = "perf-catch-up-cluster-key-0123456".getBytes();
        try (MmxNode first = MmxNode.launch(context(plan, directory, key, dir, 0, 1, 2), id -> new KeyValueStore(),
            NodeListener.NO_OP))
        {
            MmxNode second = MmxNode.launch(context(plan, directory, key, dir, 3, 4), id -> new KeyValueStore(),
                NodeListener.NO_OP);
            try
            {
                final KeyValueClient kv = new KeyValueClient(first);
                kv.put("warm", 1).get(60, TimeUnit.SECONDS);
                second.close();
                final long start = System.nanoTime();
                final Semaphore window = new Semaphore(1000);
                final List<CompletableFuture<Long>> tail = new ArrayList<>();
                for (long i = 0; i < length; i++)
                {
                    window.acquire();
                    final CompletableFuture<Long> f = kv.put("k" + (i % 256), i);
                    f.whenComplete((r, ex) -> window.release());
                    if (length - i <= 1000)
                    {
                        tail.add(f);
                    }
                }
                CompletableFuture.allOf(tail.toArray(new CompletableFuture[0])).get(600, TimeUnit.SECONDS);
                final long commitMs = (System.nanoTime() - start) / 1_000_000;
                final long restart = System.nanoTime();
                second = MmxNode.launch(context(plan, directory, key, dir, 3, 4), id -> new KeyValueStore(),
                    NodeListener.NO_OP);
                final long missedEnd = first.status().get(0).appliedIndex();
                awaitCaughtUp(first, second, kv, missedEnd, TimeUnit.SECONDS.toNanos(Long.getLong("catchup.timeout.s", 600)));
                final long catchUpMs = (System.nanoTime() - restart) / 1_000_000;
                awaitAgreement(first, second, TimeUnit.SECONDS.toNanos(60));
                return new long[]{commitMs, catchUpMs};
            }
            finally
            {
                second.close();
            }
        }
    }

    /**
     * Until every replica of {@code second} holds the whole log {@code first} had committed when the
     * restart began (its applied index at least that, a digest: no gap). A put every few
     * milliseconds keeps the log moving meanwhile, as in a cluster in use (a follower restarted into
     * an idle cluster learns nothing until the next command). Then, untimed, the trickle stops and
     * both nodes' replicas must agree at one index with one digest.
     */
    private static void awaitCaughtUp(final MmxNode first, final MmxNode second, final KeyValueClient kv,
        final long missedEnd, final long timeoutNs) throws Exception
    {
        final long deadline = System.nanoTime() + timeoutNs;
        long i = 0;
        while (true)
        {
            boolean caughtUp = true;
            for (final ProcessStatus s : second.status())
            {
                caughtUp &= s.appliedIndex() >= missedEnd && s.stateDigest() != null;
            }
            if (caughtUp)
            {
                break;
            }
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException("the restarted node did not catch up within " +
                    TimeUnit.NANOSECONDS.toSeconds(timeoutNs) + " s: " + second.status() + " against " + first.status());
            }
            kv.put("trickle", ++i).get(60, TimeUnit.SECONDS);
            Thread.sleep(2);
        }
    }

    /** Every replica of both nodes at one applied index with one digest (the check, not timed). */
    private static void awaitAgreement(final MmxNode first, final MmxNode second, final long timeoutNs)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeoutNs;
        while (true)
        {
            final List<ProcessStatus> all = new ArrayList<>(first.status());
            all.addAll(second.status());
            if (all.stream().map(s -> s.appliedIndex() + " " + s.stateDigest()).distinct().count() == 1 &&
                all.get(0).stateDigest() != null)
            {
                return;
            }
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException("the replicas do not agree: " + all);
            }
            Thread.sleep(10);
        }
    }

    private static NodeContext context(final Plan plan, final String directory, final byte[] key, final Path dir,
        final int... ids)
    {
        return new NodeContext().plan(plan).hosted(ids).directory(directory).clusterKey(key)
            .shmDirectory(dir.resolve("regions")).aeronDirectory(dir.resolve("aeron-" + ids[0]).toString())
            .stateDirectory(dir.resolve("state"));
    }
}
