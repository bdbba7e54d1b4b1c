package io.mmx.perf.planchange;

import io.mmx.planner.change.GraphDiff;
import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanFile;
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
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Unavailability during live plan changes of real nodes, against the commit gaps of the same
 * cluster without a change, and the links each change rewires. Four nodes in this JVM (n = 16, 4
 * processes each, degree 4, state directories) with their regions on one memory daemon per node
 * (memd, loopback TCP; {@code --memory shm} for shm files) commit key-value puts from a closed loop
 * (8 outstanding) through node 0 throughout. Each change, in turn:
 * <ul>
 *   <li><b>regraph</b>: a new graph of the same processes (another seed), all nodes up;</li>
 *   <li><b>replace</b>: node 3 is lost with its regions (its memory daemon restarts empty) and its
 *       state, the change is decided by the other 12 processes, and an empty node joins the new era
 *       ({@code joinEra}) and takes its state by snapshot; measured until it serves;</li>
 *   <li><b>grow</b>: to 20 processes as the planner grows a plan (the new processes splice into
 *       existing edges), the change decided by the 16 running, a fifth node joining with the 4 new
 *       ones; measured until it holds the state;</li>
 *   <li><b>shrink</b>: back to 16 as the planner shrinks (the highest ids leave, their neighbours
 *       re-pair), the fifth node leaving; measured until it has left.</li>
 * </ul>
 * A change's window runs from its proposal to one second after every node serves the new era; its
 * stall is the longest gap between two commits in it, and the baseline the longest gap in a window
 * as long right after it. Each row gives the stall, its ratio to the baseline, how long the switch
 * took, the edges the plan diff adds and removes, and, on memd, the memd sessions (one per edge end:
 * what a queue pair is on verbs) the nodes up at the change opened for it (and how many of those
 * before it was proposed) and closed when the ended era retired, measured from their {@code /status} {@code links}, against the ends of added
 * and removed edges those nodes host (what following the diff means). A joining node's own sessions
 * are a start, not a rewiring, and are not counted. As {@code mmx reconfigure} does, every node up is
 * prepared for each change before it is proposed ({@link MmxNode#preparePlan}: on memd the sessions
 * of the added edges connect then); {@code --prepare no} proposes unprepared, so the switch connects
 * them, for comparison.
 * <pre>
 *   --changes K        regraph changes before the replace (default 3)
 *   --memory memd|shm  where the regions live (default memd; shm has no connections to count)
 *   --prepare yes|no   prepare the nodes before each change, as mmx reconfigure does (default yes)
 * </pre>
 */
public final class PlanChangeBenchmark
{
    private static final int N = 16;
    private static final int DEGREE = 4;
    private static final int PER_NODE = 4;
    private static final int NODES = N / PER_NODE;
    private static final int OUTSTANDING = 8;
    private static final long TAIL_NS = 1_000_000_000L;

    private PlanChangeBenchmark()
    {
    }

    /** Runs the measurement the class comment describes, with {@code args} as its options. */
    public static void main(final String[] args) throws Exception
    {
        int changes = 3;
        boolean memd = true;
        boolean prepare = true;
        for (int i = 0; i < args.length; i++)
        {
            if (args[i].equals("--memory") && i + 1 < args.length)
            {
                memd = args[++i].equals("memd");
                if (!memd && !args[i].equals("shm"))
                {
                    System.err.println("perf planchange: --memory '" + args[i] + "' is not memd or shm");
                    System.exit(2);
                }
            }
            else if (args[i].equals("--prepare") && i + 1 < args.length)
            {
                prepare = args[++i].equals("yes");
                if (!prepare && !args[i].equals("no"))
                {
                    System.err.println("perf planchange: --prepare '" + args[i] + "' is not yes or no");
                    System.exit(2);
                }
            }
            else if (args[i].equals("--changes") && i + 1 < args.length)
            {
                try
                {
                    changes = Integer.parseInt(args[++i]);
                }
                catch (final NumberFormatException ex)
                {
                    changes = -1;
                }
                if (changes < 1 || changes > 20)
                {
                    System.err.println("perf planchange: --changes '" + args[i] + "' is not a count of 1..20");
                    System.exit(2);
                }
            }
            else
            {
                System.err.println("perf planchange: unknown option '" + args[i] + "'; use --changes K, --memory memd|shm, " +
                    "--prepare yes|no");
                System.exit(2);
            }
        }
        final Path dir = Files.createTempDirectory("mmx-perf-planchange-");
        try
        {
            run(dir, changes, memd, prepare, System.out);
        }
        finally
        {
            LocalCluster.deleteTree(dir);
        }
        System.exit(0);
    }

    /** The commit loop: puts through one node, each completion's time recorded. */
    private static final class Load implements AutoCloseable
    {
        private final ConcurrentLinkedQueue<Long> commits = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;
        private volatile Throwable failure;

        Load(final MmxNode node)
        {
            final KeyValueClient kv = new KeyValueClient(node);
            thread = new Thread(() ->
            {
                final Semaphore window = new Semaphore(OUTSTANDING);
                long i = 0;
                try
                {
                    while (running.get())
                    {
                        if (!window.tryAcquire(100, TimeUnit.MILLISECONDS))
                        {
                            continue;
                        }
                        final CompletableFuture<Long> f = kv.put("k" + (i % 64), i++);
                        f.whenComplete((r, ex) ->
                        {
                            if (ex == null)
                            {
                                commits.add(System.nanoTime());
                            }
                            window.release();
                        });
                    }
                }
                catch (final Throwable t)
                {
                    failure = t;
                }
            }, "perf-planchange-load");
            thread.setDaemon(true);
            thread.start();
        }

        /** The longest gap between two commits (or a window edge and a commit) within [fromNs, toNs]. */
        long longestGapNs(final long fromNs, final long toNs)
        {
            long last = fromNs;
            long worst = 0;
            for (final long t : commits)
            {
                if (t < fromNs)
                {
                    continue;
                }
                if (t > toNs)
                {
                    break;
                }
                worst = Math.max(worst, t - last);
                last = t;
            }
            return Math.max(worst, toNs - last);
        }

        int commitsIn(final long fromNs, final long toNs)
        {
            return (int)commits.stream().filter(t -> t >= fromNs && t <= toNs).count();
        }

        @Override
        public void close() throws InterruptedException
        {
            running.set(false);
            thread.join(10_000);
            if (failure != null)
            {
                throw new IllegalStateException("the commit loop failed: " + failure, failure);
            }
        }
    }

    /** The kinds of change the run makes, in order after the regraphs. */
    private enum Kind
    {
        REGRAPH("regraph"),
        REPLACE("replace (node 3 lost, joins empty)"),
        GROW("grow 16 -> 20 (node 4 joins)"),
        SHRINK("shrink 20 -> 16 (node 4 leaves)");

        final String label;

        Kind(final String label)
        {
            this.label = label;
        }
    }

    /**
     * Runs the regraph changes, the replacement, a grow by a fifth node and the shrink back, in one
     * cluster under {@code dir}, its regions on memd ({@code memd}) or shm, each change prepared on
     * every node up first when {@code prepare}; prints a markdown table.
     */
    public static void run(final Path dir, final int changes, final boolean memd, final boolean prepare,
        final PrintStream out) throws Exception
    {
        final Kind[] kinds = new Kind[changes + 3];
        java.util.Arrays.fill(kinds, Kind.REGRAPH);
        kinds[changes] = Kind.REPLACE;
        kinds[changes + 1] = Kind.GROW;
        kinds[changes + 2] = Kind.SHRINK;
        final List<Integer> ports = LocalCluster.freePorts(NODES + 1, true);
        final String four = directory(ports, NODES);
        final String five = directory(ports, NODES + 1);
        final Path plansDir = Files.createDirectories(dir.resolve("plans"));
        final Plan[] plans = new Plan[kinds.length + 1];
        for (int k = 0; k < plans.length; k++)
        {
            if (k > 0 && (kinds[k - 1] == Kind.GROW || kinds[k - 1] == Kind.SHRINK))
            {
                // As the planner grows and shrinks a plan: new processes splice into existing edges, and a
                // shrink of the highest ids re-pairs their neighbours, so few edges change.
                final io.mmx.planner.graph.Graph before = plans[k - 1].graph();
                final io.mmx.planner.graph.Graph after = kinds[k - 1] == Kind.GROW ?
                    io.mmx.planner.change.GraphChange.grow(before, PER_NODE, 101 + k).graph() :
                    io.mmx.planner.change.GraphChange.shrink(before, PER_NODE, 101 + k).graph();
                plans[k] = Plan.sealed(after, DEGREE, "random", 101 + k, null,
                    com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode());
            }
            else
            {
                plans[k] = LocalCluster.plan(N, DEGREE, 101 + k);
            }
            PlanFile.write(plans[k], plansDir.resolve("plan-" + k + ".json"));
        }
        final byte[] key = "perf-plan-change-cluster-key-0123".getBytes();
        final io.mmx.rdma.memd.MemoryDaemon[] daemons = new io.mmx.rdma.memd.MemoryDaemon[NODES + 1];
        final MmxNode[] nodes = new MmxNode[NODES + 1];
        try
        {
            String memdFour = null;
            String memdFive = null;
            if (memd)
            {
                // One daemon per node, as one per host: a lost host loses its daemon's regions.
                for (int j = 0; j <= NODES; j++)
                {
                    daemons[j] = startDaemon(plans[0], plansDir, key, new java.net.InetSocketAddress("127.0.0.1", 0));
                }
                memdFour = memdSpec(daemons, NODES);
                memdFive = memdSpec(daemons, NODES + 1);
            }
            for (int k = 0; k < plans.length; k++)
            {
                // Where the plan's processes and their regions are, beside it: how a node learns them for a
                // plan of another size.
                final boolean grown = k > 0 && kinds[k - 1] == Kind.GROW;
                Files.writeString(plansDir.resolve("plan-" + k + ".directory"), (grown ? five : four) + "\n");
                if (memd)
                {
                    Files.writeString(plansDir.resolve("plan-" + k + ".memd"), (grown ? memdFive : memdFour) + "\n");
                }
            }
            for (int j = 0; j < NODES; j++)
            {
                nodes[j] = MmxNode.launch(context(plans[0], four, memdFour, key, dir, plansDir, j),
                    id -> new KeyValueStore(), NodeListener.NO_OP);
            }
            await(() -> java.util.Arrays.stream(nodes, 0, NODES).flatMap(n -> n.status().stream())
                .anyMatch(ProcessStatus::leads), 60, "a leader");
            new KeyValueClient(nodes[0]).put("warm", 1).get(60, TimeUnit.SECONDS);
            out.println("| change | nodes up | switch ms | commits in window | stall ms | baseline gap ms | stall / baseline " +
                "| edges added / removed (plan diff) | sessions opened (before the proposal) / closed | edge ends added / " +
                "removed there |");
            out.println("|---|---|---|---|---|---|---|---|---|---|");
            try (Load load = new Load(nodes[0]))
            {
                Thread.sleep(1_000); // the loop reaches its pace
                for (int k = 1; k < plans.length; k++)
                {
                    final Kind kind = kinds[k - 1];
                    final long from = System.nanoTime();
                    if (kind == Kind.REPLACE)
                    {
                        // Node 3 is lost with its regions (its daemon comes back empty) and its state; the
                        // others change without it.
                        nodes[NODES - 1].close();
                        nodes[NODES - 1] = null;
                        if (memd)
                        {
                            final java.net.InetSocketAddress at = daemons[NODES - 1].boundAddress();
                            daemons[NODES - 1].close();
                            daemons[NODES - 1] = startDaemon(plans[0], plansDir, key, at);
                        }
                        for (int id = (NODES - 1) * PER_NODE; id < N; id++)
                        {
                            Files.deleteIfExists(dir.resolve("regions").resolve("era-" + (k - 1))
                                .resolve("process-" + id + ".region"));
                            Files.deleteIfExists(dir.resolve("regions").resolve("process-" + id + ".region"));
                        }
                        LocalCluster.deleteTree(dir.resolve("state-" + (NODES - 1)));
                    }
                    final int era = k;
                    final int running = kind == Kind.SHRINK ? NODES + 1 : NODES;
                    final int up = kind == Kind.REPLACE ? NODES - 1 : NODES;
                    // The nodes up through the change: their sessions are the ones the change rewires.
                    final MmxNode[] staying = java.util.Arrays.copyOf(nodes, up);
                    final long openedBefore = links(staying, "opened");
                    final long closedBefore = links(staying, "closed");
                    long ahead = 0;
                    if (prepare)
                    {
                        for (final MmxNode node : staying)
                        {
                            ahead += node.preparePlan(plans[k].contentHash()).get(60, TimeUnit.SECONDS);
                        }
                    }
                    nodes[0].changePlan(plans[k].contentHash()).get(60, TimeUnit.SECONDS);
                    await(() -> java.util.Arrays.stream(nodes, 0, up).allMatch(n -> n.era() == era), 60,
                        "every node up to serve era " + era);
                    final long opened = links(staying, "opened") - openedBefore;
                    if (kind == Kind.REPLACE || kind == Kind.GROW)
                    {
                        final int j = kind == Kind.REPLACE ? NODES - 1 : NODES;
                        nodes[j] = MmxNode.launch(context(plans[k], kind == Kind.GROW ? five : four,
                            kind == Kind.GROW ? memdFive : memdFour, key, dir, plansDir, j).joinEra(era),
                            id -> new KeyValueStore(), NodeListener.NO_OP);
                        final MmxNode joined = nodes[j];
                        await(() -> joined.status().stream().allMatch(s -> s.stateDigest() != null &&
                            s.appliedIndex() > 0), 120, "the joining node to hold the state");
                    }
                    if (kind == Kind.SHRINK)
                    {
                        final MmxNode leaving = nodes[NODES];
                        await(leaving::left, 60, "node 4 to leave");
                        leaving.close();
                        nodes[NODES] = null;
                    }
                    final long switched = System.nanoTime();
                    Thread.sleep(TAIL_NS / 1_000_000);
                    final long to = System.nanoTime();
                    final long stall = load.longestGapNs(from, to);
                    // The baseline: a window as long, without a change, right after this one.
                    Thread.sleep(500);
                    final long quietFrom = System.nanoTime();
                    Thread.sleep((to - from) / 1_000_000);
                    final long baseline = load.longestGapNs(quietFrom, System.nanoTime());
                    final GraphDiff diff = GraphDiff.between(plans[k - 1].graph(), plans[k].graph());
                    final int hostedUpTo = up * PER_NODE;
                    final long endsAdded = endsBelow(diff.added(), hostedUpTo);
                    final long endsRemoved = endsBelow(diff.removed(), hostedUpTo);
                    String sessions = "– (shm: no connections)";
                    if (memd)
                    {
                        // The ended era retires 2 s after the switch, closing the sessions of removed edges.
                        final long deadline = System.nanoTime() + 10_000_000_000L;
                        while (links(staying, "closed") - closedBefore < endsRemoved && System.nanoTime() < deadline)
                        {
                            Thread.sleep(10);
                        }
                        sessions = opened + " (" + ahead + ") / " + (links(staying, "closed") - closedBefore);
                    }
                    out.printf(Locale.ROOT, "| %s %d | %d of %d | %d | %d | %.1f | %.1f | %.1f | %d / %d | %s | %d / %d |%n",
                        kind.label, k, up, running, (switched - from) / 1_000_000, load.commitsIn(from, to),
                        stall / 1e6, baseline / 1e6, stall / (double)Math.max(1, baseline), diff.added().size(),
                        diff.removed().size(), sessions, endsAdded, endsRemoved);
                    out.flush();
                }
            }
        }
        finally
        {
            for (final MmxNode node : nodes)
            {
                if (node != null)
                {
                    node.close();
                }
            }
            for (final io.mmx.rdma.memd.MemoryDaemon daemon : daemons)
            {
                if (daemon != null)
                {
                    daemon.close();
                }
            }
        }
    }

    /** The ends of {@code edges} at processes below {@code limit} (those the nodes up host). */
    private static long endsBelow(final io.mmx.planner.change.EdgeList edges, final int limit)
    {
        long ends = 0;
        for (int i = 0; i < edges.size(); i++)
        {
            ends += (edges.u(i) < limit ? 1 : 0) + (edges.v(i) < limit ? 1 : 0);
        }
        return ends;
    }

    /** The sum of one number of the nodes' {@code /status} {@code links}. */
    private static long links(final MmxNode[] nodes, final String field)
    {
        final java.util.regex.Pattern number = java.util.regex.Pattern.compile("\"" + field + "\":(\\d+)");
        long sum = 0;
        for (final MmxNode node : nodes)
        {
            final java.util.regex.Matcher m = number.matcher(node.linksJson());
            if (!m.find())
            {
                throw new IllegalStateException("perf planchange: no " + field + " in " + node.linksJson());
            }
            sum += Long.parseLong(m.group(1));
        }
        return sum;
    }

    private static io.mmx.rdma.memd.MemoryDaemon startDaemon(final Plan launch, final Path plansDir,
        final byte[] key, final java.net.InetSocketAddress at)
    {
        return io.mmx.rdma.memd.MemoryDaemon.start(new io.mmx.rdma.memd.MemoryDaemon.Context().listen(at)
            .clusterKey(io.mmx.rdma.region.ClusterKey.of(key)).plan(launch.graph()).plansDirectory(plansDir));
    }

    /** Where the regions of the first {@code count} nodes' processes are: node j's on daemon j. */
    private static String memdSpec(final io.mmx.rdma.memd.MemoryDaemon[] daemons, final int count)
    {
        final StringBuilder spec = new StringBuilder();
        for (int j = 0; j < count; j++)
        {
            spec.append(j == 0 ? "" : ";").append(j * PER_NODE).append('-').append((j + 1) * PER_NODE - 1)
                .append("@127.0.0.1:").append(daemons[j].boundAddress().getPort());
        }
        return spec.toString();
    }

    /** The message directory of the first {@code count} nodes, {@link #PER_NODE} processes each. */
    private static String directory(final List<Integer> ports, final int count)
    {
        final StringBuilder spec = new StringBuilder();
        for (int j = 0; j < count; j++)
        {
            spec.append(j == 0 ? "" : ";").append(j * PER_NODE).append('-').append((j + 1) * PER_NODE - 1)
                .append("@127.0.0.1:").append(ports.get(j));
        }
        return spec.toString();
    }

    private static void await(final java.util.function.BooleanSupplier condition, final int seconds, final String what)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException("perf planchange: no " + what + " within " + seconds + " s");
            }
            Thread.sleep(5);
        }
    }

    private static NodeContext context(final Plan plan, final String directory, final String memd, final byte[] key,
        final Path dir, final Path plansDir, final int node)
    {
        final int[] ids = new int[PER_NODE];
        for (int i = 0; i < PER_NODE; i++)
        {
            ids[i] = node * PER_NODE + i;
        }
        final NodeContext ctx = new NodeContext().plan(plan).hosted(ids).directory(directory).clusterKey(key)
            .aeronDirectory(dir.resolve("aeron-" + node).toString()).stateDirectory(dir.resolve("state-" + node))
            .plansDirectory(plansDir);
        return memd != null ? ctx.memory(NodeContext.Memory.MEMD).memd(memd) : ctx.shmDirectory(dir.resolve("regions"));
    }
}
