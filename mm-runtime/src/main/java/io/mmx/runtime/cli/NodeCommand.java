package io.mmx.runtime.cli;

import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanFile;
import io.mmx.planner.plan.ProcessIds;
import io.mmx.runtime.example.kv.AppliedLog;
import io.mmx.runtime.example.ack.AckService;
import io.mmx.runtime.example.kv.KeyValueStore;
import io.mmx.runtime.node.MmxNode;
import io.mmx.runtime.node.NodeContext;
import io.mmx.runtime.node.NodeListener;
import io.mmx.runtime.node.StatusServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code mmx node}: one JVM hosting one or more processes of a plan, each a replica of the
 * key-value store, until SIGTERM (or, with --exit-with-stdin, until its stdin closes).
 */
@Command(name = "node", mixinStandardHelpOptions = true,
    description = {
        "Runs the processes of a plan that this JVM hosts, each a key-value store replica. Prints 'READY " +
        "<ids> status http://HOST:PORT/status' once serving, then 'ROLE <id> <role> leader <l> commit <i> " +
        "(JVM up T ms)' whenever a hosted process changes role. SIGTERM stops it (exit 143, the JVM's code " +
        "for SIGTERM)."})
final class NodeCommand implements Callable<Integer>
{
    @Option(names = "--plan", paramLabel = "PLAN", required = true, description = "the plan file (topo plan)")
    Path plan;

    @Option(names = "--plans", paramLabel = "DIR", description = {"where this node finds the plans a live plan " +
        "change may name: every *.json plan file there, matched by content hash (mmx reconfigure);",
        "default the directory of --plan"})
    Path plans;

    @Option(names = "--join-era", paramLabel = "E", description = {"start in era E, which a live plan change " +
        "began while this node was away: a host replacing a lost one (empty regions and --state-dir), or a node " +
        "down when the change was decided; its replicas take the state from a peer's snapshot (needs --state-dir).",
        "mmx reconfigure prints E"})
    Integer joinEra;

    @Option(names = "--id", paramLabel = "ID", description = "the one process this JVM hosts")
    Integer id;

    @Option(names = "--ids", paramLabel = "IDS", description = "the processes this JVM hosts: 0-3 or 0-3,8")
    String ids;

    @Option(names = "--directory", paramLabel = "SPEC", required = true,
        description = {"message endpoints of every process, IDS@HOST:PORT joined by ';', for example:",
            "0-3@10.0.0.1:40100;4-7@10.0.0.2:40100"})
    String directory;

    @Option(names = "--memory", paramLabel = "KIND", defaultValue = "shm", description = "shm (files, one host), memd (daemons) or verbs (RDMA); default ${DEFAULT-VALUE}")
    String memory;

    @Option(names = "--shm-dir", paramLabel = "DIR", description = "region files' directory for shm and verbs " +
        "(verbs: the directory memd --shm-dir serves; default /dev/shm/mmx)")
    Path shmDir;

    @Option(names = "--memd", paramLabel = "SPEC", description = {"memory daemons by process, for --memory memd, for example:", "0-3@10.0.0.1:7400;4-7@10.0.0.2:7400"})
    String memd;

    @Option(names = "--verbs", paramLabel = "SPEC", description = {"verbs region hosts by process, for --memory verbs (the rdma_cm port; the handshake is on " +
        "port + 1), for example:", "0-3@10.0.0.1:7471;4-7@10.0.0.2:7471"})
    String verbs;

    @Option(names = "--keys", paramLabel = "FILE", description = "this host's key file from 'mmx keys derive': " +
        "the hosted processes' keys only (preferred: the node then cannot act as any other process)")
    Path hostKeyFile;

    @Option(names = "--cluster-key-file", paramLabel = "FILE", description = "the cluster key, raw bytes (>= 16), " +
        "instead of --keys: the node derives its processes' keys from it and forgets it")
    Path keyFile;

    @Option(names = "--status-listen", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:0",
        description = "HTTP status endpoint (default ${DEFAULT-VALUE}, loopback and any free port)")
    String statusListen;

    @Option(names = "--state-dir", paramLabel = "DIR", description = "keep each replica's state on disk in " +
        "DIR/process-<id>/ (snapshots and a journal of applied slots), so that a restarted process comes back " +
        "with the state it had; without it a restarted replica starts empty")
    Path stateDir;

    @Option(names = "--snapshot-every", paramLabel = "N", defaultValue = "1000000",
        description = "with --state-dir, commands a replica applies between two snapshots (default ${DEFAULT-VALUE})")
    long snapshotEvery;

    @Option(names = "--applied-log-dir", paramLabel = "DIR", description = "append each replica's applied commands to DIR/process-<id>.log")
    Path appliedLogDir;

    @Option(names = "--service", paramLabel = "NAME", defaultValue = "kv", description = "the replicated service: " +
        "kv (the example key-value store, default) or ack (counts commands and replies with each one's first 8 " +
        "bytes: the consensus benchmark's service, as its Aeron Cluster baseline's)")
    String service;

    @Option(names = "--aeron-dir", paramLabel = "DIR", description = "the embedded media driver's directory")
    String aeronDir;

    @Option(names = "--idle", paramLabel = "STRATEGY", defaultValue = "park", description = "idle strategy: park (default; parks up to one 2 ms tick when idle), " +
        "backoff (parks up to 1 ms), sleeping, yielding, busy")
    String idle;

    @Option(names = "--tick-ms", paramLabel = "MS", defaultValue = "2", description = "protocol tick in ms (default ${DEFAULT-VALUE})")
    double tickMs;

    @Option(names = "--regions-lost", description = "these processes ran before and their regions were lost with " +
        "their host: format missing regions as a new incarnation (acceptors out of quorums, no leading)")
    boolean regionsLost;

    @Option(names = "--cold-start", description = "every process and region of the cluster was lost (all " +
        "hosts rebooted): begin a new era on fresh regions from the state in --state-dir; start every node so")
    boolean coldStart;

    @Option(names = "--cold-start-majority", description = "with --cold-start: the era may begin once a majority " +
        "of processes have reported their state (default: every process)")
    boolean coldStartMajority;

    @Option(names = "--exit-with-stdin", description = "exit when stdin closes (for a supervising parent)")
    boolean exitWithStdin;

    @Override
    public Integer call() throws Exception
    {
        checkService();
        final int[] hosted = hostedIds();
        final NodeContext ctx = context(hosted);
        // Address checked and port taken first: a bad or busy status port leaves no region or
        // media driver behind.
        final StatusServer.Bound port = StatusServer.bind(io.mmx.rdma.memd.MemdCommandLine.parseAddress(statusListen));
        final List<AppliedLog> logs = new ArrayList<>();
        // Role changes arrive on the agent thread, which must not block on stdout: a daemon prints them.
        final java.util.concurrent.LinkedBlockingQueue<io.mmx.runtime.node.ProcessStatus> roleLines =
            new java.util.concurrent.LinkedBlockingQueue<>();
        final MmxNode node;
        try
        {
            node = MmxNode.launch(ctx, p ->
            {
                if (service.equals("ack"))
                {
                    return new AckService();
                }
                if (appliedLogDir == null)
                {
                    return new KeyValueStore();
                }
                final AppliedLog log = new AppliedLog(appliedLogDir.resolve("process-" + p + ".log"));
                logs.add(log);
                return new KeyValueStore(log);
            }, new NodeListener()
            {
                @Override
                public void onRoleChange(final io.mmx.runtime.node.ProcessStatus status)
                {
                    roleLines.offer(status);
                }
            });
        }
        catch (final RuntimeException ex)
        {
            port.close();
            throw ex;
        }
        final StatusServer status = port.serve(node);
        final Thread printer = new Thread(() -> printRoleChanges(roleLines), "mmx-role-log");
        printer.setDaemon(true);
        printer.start();
        final CountDownLatch stop = new CountDownLatch(1);
        final Thread hook = new Thread(() ->
        {
            status.close();
            node.close();
            logs.forEach(AppliedLog::close);
            stop.countDown();
        }, "mmx-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        System.out.println("READY " + (ids != null ? ids : id) + " status http://" +
            status.address().getHostString() + ":" + status.address().getPort() + "/status (JVM up " +
            java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() + " ms)");
        System.out.flush();
        if (exitWithStdin)
        {
            while (System.in.read() >= 0)
            {
                // Drain: the parent writes nothing; EOF means it is gone.
            }
            System.exit(0);
        }
        stop.await();
        return MmxCommand.OK;
    }

    private void checkService()
    {
        if (!service.equals("kv") && !service.equals("ack"))
        {
            throw new IllegalArgumentException("--service " + service + " is unknown: use kv or ack");
        }
        if (service.equals("ack") && appliedLogDir != null)
        {
            throw new IllegalArgumentException("--applied-log-dir records the kv service's commands: drop it with " +
                "--service ack");
        }
    }

    private int[] hostedIds()
    {
        if ((id == null) == (ids == null))
        {
            throw new IllegalArgumentException("pass exactly one of --id I or --ids A-B");
        }
        return id != null ? new int[]{id} : ProcessIds.parse(ids);
    }

    private NodeContext context(final int[] hosted) throws IOException
    {
        final Plan p = PlanFile.readSealed(plan);
        final NodeContext ctx = new NodeContext().plan(p).hosted(hosted).directory(directory)
            .idleStrategy(idle).tickNs((long)(tickMs * 1_000_000)).regionsLost(regionsLost)
            .coldStart(coldStart || coldStartMajority, coldStartMajority).stateDirectory(stateDir)
            .snapshotEveryCommands(snapshotEvery)
            .plansDirectory(plans != null ? plans : plan.toAbsolutePath().getParent())
            .joinEra(joinEra != null ? joinEra : 0);
        KeysCommand.applyKeys(ctx, hostKeyFile, keyFile);
        switch (memory)
        {
            case "shm":
                ctx.memory(NodeContext.Memory.SHM);
                break;
            case "memd":
                ctx.memory(NodeContext.Memory.MEMD).memd(memd);
                break;
            case "verbs":
                ctx.memory(NodeContext.Memory.VERBS).verbs(verbs);
                break;
            default:
                throw new IllegalArgumentException("--memory " + memory + " is unknown: use shm, memd or verbs");
        }
        if (shmDir != null)
        {
            ctx.shmDirectory(shmDir);
        }
        if (aeronDir != null)
        {
            ctx.aeronDirectory(aeronDir);
        }
        try
        {
            return ctx.conclude();
        }
        catch (final IllegalStateException ex)
        {
            throw new IllegalArgumentException(ex.getMessage(), ex);
        }
    }

    /** One line per role change: "ROLE <id> <role> leader <l> commit <i> (JVM up T ms)". */
    private static void printRoleChanges(final java.util.concurrent.BlockingQueue<io.mmx.runtime.node.ProcessStatus> lines)
    {
        try
        {
            while (true)
            {
                final io.mmx.runtime.node.ProcessStatus s = lines.take();
                System.out.println("ROLE " + s.id() + " " + s.shownRole() + " leader " + s.leader() + " commit " +
                    s.commitIndex() + " (JVM up " + java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() +
                    " ms)");
                System.out.flush();
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

}
