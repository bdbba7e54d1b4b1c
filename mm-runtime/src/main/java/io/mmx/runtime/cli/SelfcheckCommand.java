package io.mmx.runtime.cli;

import io.mmx.planner.plan.Plan;
import io.mmx.rdma.memd.MemoryDaemon;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.runtime.example.kv.KeyValueStore;
import io.mmx.runtime.local.LocalCluster;
import io.mmx.runtime.node.MmxNode;
import io.mmx.runtime.node.NodeContext;
import io.mmx.runtime.node.NodeListener;
import io.mmx.runtime.node.StatusServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code mmx selfcheck}: the smallest whole mmx in one JVM. A memory daemon and one node of three
 * processes on loopback, regions in the daemon, a probe command committed through the node.
 * Proves an installation works (JVM, Aeron, loopback UDP and TCP); {@code bin/mmx} also runs it once
 * per build to record the classes a node and a daemon load, so later JVMs start from that archive.
 */
@Command(
    name = "selfcheck",
    mixinStandardHelpOptions = true,
    description = {
        "Runs a memory daemon and a node of 3 processes in this JVM on loopback, commits one probe " +
        "command through them, and stops: proof that this installation can run mmx. Leaves nothing " +
        "behind. Exit 0 when the probe committed, 1 when it did not in time, 3 on a start-up error."})
final class SelfcheckCommand implements Callable<Integer>
{
    @Option(names = "--timeout-s", paramLabel = "SECONDS", defaultValue = "60",
        description = "how long the cluster may take to elect a leader and commit the probe (default ${DEFAULT-VALUE})")
    int timeoutS;

    @Override
    public Integer call() throws Exception
    {
        if (timeoutS < 1)
        {
            throw new IllegalArgumentException("--timeout-s " + timeoutS + ": give at least 1 second");
        }
        final long startNs = System.nanoTime();
        final Plan plan = LocalCluster.plan(3, 2, 1);
        final byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        final Path dir = Files.createTempDirectory("mmx-selfcheck");
        final Path shm = Files.isDirectory(Path.of("/dev/shm")) ? Files.createTempDirectory(Path.of("/dev/shm"),
            "mmx-selfcheck") : dir;
        try (MemoryDaemon daemon = MemoryDaemon.start(new MemoryDaemon.Context()
            .listen(new InetSocketAddress("127.0.0.1", 0)).clusterKey(ClusterKey.of(key)).plan(plan.graph())))
        {
            final List<Integer> ports = LocalCluster.freePorts(1, true);
            final NodeContext ctx = new NodeContext().plan(plan).hosted(0, 1, 2)
                .directory("0-2@127.0.0.1:" + ports.get(0)).clusterKey(key)
                .memory(NodeContext.Memory.MEMD).memd("0-2@127.0.0.1:" + daemon.boundAddress().getPort())
                .shmDirectory(shm.resolve("regions")).aeronDirectory(shm.resolve("aeron").toString());
            try (MmxNode node = MmxNode.launch(ctx, id -> new KeyValueStore(), NodeListener.NO_OP);
                StatusServer status = StatusServer.start(new InetSocketAddress("127.0.0.1", 0), node))
            {
                // Until a leader is elected a probe may time out or be refused: submit again until the deadline.
                final long deadlineNs = startNs + TimeUnit.SECONDS.toNanos(timeoutS);
                String last = "no answer";
                while (System.nanoTime() < deadlineNs)
                {
                    try
                    {
                        final long index = node.probe().get(Math.max(1, deadlineNs - System.nanoTime()),
                            TimeUnit.NANOSECONDS);
                        System.out.println("selfcheck: OK: a memory daemon and a node of 3 processes committed a " +
                            "probe at log index " + index + " in " +
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs) + " ms (status on port " +
                            status.address().getPort() + ")");
                        return MmxCommand.OK;
                    }
                    catch (final ExecutionException ex)
                    {
                        last = ex.getCause().getMessage();
                        Thread.sleep(100);
                    }
                    catch (final TimeoutException ex)
                    {
                        last = "timed out";
                    }
                }
                System.out.println("selfcheck: FAILED: no probe committed within " + timeoutS + " s (last: " + last +
                    "); status: " + StatusServer.json(node));
                return MmxCommand.UNHEALTHY;
            }
        }
        finally
        {
            LocalCluster.deleteTree(dir);
            LocalCluster.deleteTree(shm);
        }
    }
}
