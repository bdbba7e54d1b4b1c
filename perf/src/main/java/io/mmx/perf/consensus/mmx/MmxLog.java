package io.mmx.perf.consensus.mmx;

import io.mmx.perf.consensus.CommitListener;
import io.mmx.perf.consensus.LogSettings;
import io.mmx.perf.consensus.ReplicatedLog;
import io.mmx.planner.plan.Plan;
import io.mmx.runtime.local.LocalCluster;
import io.mmx.runtime.node.MmxNode;
import io.mmx.runtime.node.NodeContext;
import io.mmx.runtime.node.NodeListener;
import io.mmx.runtime.node.ProcessStatus;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * n mmx processes on loopback: child JVMs running {@code mmx node} (shm regions, Aeron UDP), and this
 * JVM hosting the last group of processes and submitting through them. A command counts as committed
 * when it is applied at the submitting node's replica, as an Aeron Cluster client counts the egress
 * acknowledgement of a committed command. Layout: one process per JVM up to n = 8, then 8 JVMs (four
 * processes each at n = 32, 32 at n = 256), the client's among them; degree 2 at n = 5, 4 below 256, 8 from 256.
 */
public final class MmxLog implements ReplicatedLog
{
    /** System name in reports. */
    public static final String NAME = "mmx";

    private final int n;
    private final LogSettings settings;
    private final ManyToOneConcurrentLinkedQueue<Long> committed = new ManyToOneConcurrentLinkedQueue<>();
    private LocalCluster cluster;
    private List<String> childOptions = List.of();
    private MmxNode node;
    /** Commands applied at this JVM's first hosted replica: with its decided slots, the batch the leader made. */
    private final AtomicLong appliedAtFirst = new AtomicLong();
    private final AtomicInteger counted = new AtomicInteger(-1);

    MmxLog(final int n, final LogSettings settings)
    {
        this.n = n;
        this.settings = settings;
    }

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public int members()
    {
        return n;
    }

    @Override
    public void start() throws Exception
    {
        final int degree = n <= 5 ? 2 : n < 256 ? 4 : 8;
        final Plan plan = LocalCluster.plan(n, degree, 1);
        final int procsPerJvm = LocalCluster.defaultProcsPerJvm(n);
        childOptions = LocalCluster.childJvmOptions(n, procsPerJvm, Runtime.getRuntime().availableProcessors());
        cluster = LocalCluster.create(settings.workDir().resolve("mmx-" + n), plan, procsPerJvm, childOptions,
            LocalCluster.Existing.REPLACE);
        // Every replica runs the baseline's service (count, reply with the command's id): the two systems
        // are compared on ordering and replicating commands, not on a service's work.
        final List<String> options = new java.util.ArrayList<>(List.of("--service", "ack"));
        if (settings.idleStrategy() != null)
        {
            options.addAll(List.of("--idle", settings.idleStrategy()));
        }
        cluster.nodeOptions(options);
        cluster.withoutAppliedLogs(); // a test's audit of every replica's commands, not part of the service
        final int client = cluster.layout().jvms() - 1;
        for (int j = 0; j < client; j++)
        {
            cluster.start(j);
        }
        final NodeContext ctx = cluster.contextFor(client).maxCommandBytes(Math.max(8, settings.maxPayloadBytes()));
        if (settings.idleStrategy() != null)
        {
            ctx.idleStrategy(settings.idleStrategy());
        }
        node = MmxNode.launch(ctx, p -> counted.compareAndSet(-1, p) ?
            (index, origin, buffer, offset, length) ->
            {
                appliedAtFirst.incrementAndGet();
                return 0;
            } :
            (index, origin, buffer, offset, length) -> 0, NodeListener.NO_OP);
        final long deadline = System.nanoTime() + settings.startTimeoutNs();
        for (int j = 0; j < client; j++)
        {
            cluster.awaitReady(j, Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        }
        // Ready when a command commits: a leader is elected and phase 1 is done.
        final byte[] probe = new byte[8];
        while (true)
        {
            try
            {
                node.submit(probe).get(Math.max(1, deadline - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS);
                return;
            }
            catch (final java.util.concurrent.ExecutionException ex)
            {
                if (System.nanoTime() > deadline)
                {
                    throw new IllegalStateException("mmx n=" + n + " committed nothing before the start timeout; logs in " +
                        cluster.dir().resolve("logs"), ex);
                }
            }
        }
    }

    @Override
    public boolean submit(final long commandId, final DirectBuffer payload, final int offset, final int length)
    {
        final CompletableFuture<Long> f = node.submit(payload, offset, length);
        if (f.isCompletedExceptionally())
        {
            return false; // refused before entering the cluster (pending bound): the driver offers again
        }
        f.thenAccept(reply -> committed.offer(commandId));
        return true;
    }

    @Override
    public int poll(final CommitListener listener)
    {
        int work = 0;
        Long id;
        while ((id = committed.poll()) != null)
        {
            listener.onCommitted(id);
            work++;
        }
        return work;
    }

    @Override
    public long[] otherPids()
    {
        if (cluster == null)
        {
            return new long[0];
        }
        final long[] pids = new long[cluster.layout().jvms() - 1];
        for (int j = 0; j < pids.length; j++)
        {
            pids[j] = cluster.pid(j);
        }
        return pids;
    }

    @Override
    public String diagnostics()
    {
        return n + " processes in " + (cluster == null ? 0 : cluster.layout().jvms()) + " JVMs (" +
            (cluster == null ? 0 : cluster.layout().procsPerJvm()) + " per JVM" + (childOptions.contains(
            "-XX:TieredStopAtLevel=1") ? ", children on the C1 compiler only" : "") + "), shm regions, Aeron UDP; " +
            Runtime.getRuntime().availableProcessors() + " cores; client JVM frames " +
            (node == null ? "{}" : node.transportCountersJson()) + batching() + churn();
    }

    /**
     * Sums over every process since the start (from each JVM's metrics): what a cluster that fell over
     * under load did, so that a report shows it without the logs.
     */
    private String churn()
    {
        if (cluster == null || node == null)
        {
            return "";
        }
        final List<String> texts = cluster.metricsOfEveryJvm(node.metricsText());
        return "; over all processes: " + total(texts, "mmx_leader_changes_total") + " leader changes, " +
            total(texts, "mmx_acceptor_takeovers_total") + " acceptor takeovers, " +
            total(texts, "mmx_neighbour_suspicions_vetoed_total") + " neighbour suspicions held back (JVM ran), " +
            total(texts, "mmx_leader_claims_kept_total") + " leader claims kept past the lease (JVM ran), " +
            total(texts, "mmx_retransmissions_total") + " retransmissions";
    }

    private String total(final List<String> texts, final String metric)
    {
        long sum = 0;
        int silent = 0;
        for (final long v : LocalCluster.counterByProcess(texts, metric, n))
        {
            if (v < 0)
            {
                silent++;
            }
            else
            {
                sum += v;
            }
        }
        return silent == 0 ? String.format("%,d", sum) : String.format("%,d (%d processes did not answer)", sum, silent);
    }

    /** Commands per decided slot at this JVM's first replica since the start: how full the leader's batches were. */
    private String batching()
    {
        final ProcessStatus status = node == null ? null :
            node.status().stream().filter(s -> s.id() == counted.get()).findFirst().orElse(null);
        if (status == null)
        {
            return "";
        }
        final long slots = status.knownDecided() + 1;
        final long commands = appliedAtFirst.get();
        return String.format("; %,d commands in %,d decided slots (%.1f per slot) at process %d", commands, slots,
            slots <= 0 ? 0.0 : (double)commands / slots, status.id());
    }

    @Override
    public void close()
    {
        if (node != null)
        {
            node.close();
        }
        if (cluster != null)
        {
            cluster.close();
        }
    }
}
