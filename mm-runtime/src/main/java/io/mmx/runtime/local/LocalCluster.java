package io.mmx.runtime.local;

import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanFile;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A cluster on this machine: a directory with the plan, a fresh cluster key and the layout, and
 * one child JVM per group of processes running {@code mmx node} on loopback with shm regions.
 * Children are started with their stdin tied to this JVM, so they exit when it does, and are
 * killed with SIGKILL on request. Region files and Aeron directories live under /dev/shm (or the
 * temp directory) in a folder removed at {@link #close()}. Children run with
 * {@code -XX:-UsePerfData}, so a child killed with SIGKILL leaves no hsperfdata file behind (jps
 * and jstat do not see them; the status endpoint does).
 */
public final class LocalCluster implements AutoCloseable
{
    /** Main class of child JVMs. */
    public static final String NODE_MAIN = "io.mmx.runtime.cli.MmxCommand";
    /**
     * Processes per JVM for a cluster of more than 256 processes on one machine (the benchmarks' layout):
     * each JVM adds a media driver, a JIT and a duty cycle waiting for a core, so large clusters run in
     * few JVMs (docs/node.md, *Idle at n = 1024* and *Throughput and latency against Aeron Cluster*).
     */
    public static final int LARGE_CLUSTER_PROCS_PER_JVM = 256;

    /**
     * Processes per JVM when a command is not told: one per JVM up to 8 processes, 8 JVMs up to 256,
     * then JVMs of {@link #LARGE_CLUSTER_PROCS_PER_JVM} (n = 4096: 16 JVMs). {@code mmx demo},
     * {@code mmx local} and {@code perf consensus} lay clusters out by this rule; n = 4096 kept committing
     * in JVMs of 256 where 8 JVMs of 512 stopped (docs/node.md).
     */
    public static int defaultProcsPerJvm(final int n)
    {
        if (n < 1)
        {
            throw new IllegalArgumentException("n = " + n + ": a cluster has at least one process");
        }
        return n <= 8 ? 1 : n <= 8 * 32 ? (n + 7) / 8 : LARGE_CLUSTER_PROCS_PER_JVM;
    }

    /**
     * Heap of a child JVM hosting {@code procsPerJvm} processes: 192 MiB and 6 MiB per process beyond the
     * first (a JVM of 32 uses about 180 MiB; a JVM of 256 ran out of a 192 MiB heap within seconds).
     */
    public static int childHeapMiB(final int procsPerJvm)
    {
        return 192 + 6 * (Math.max(1, procsPerJvm) - 1);
    }

    /** JVMs per core beyond which children run the C1 compiler only ({@link #childJvmOptions}). */
    public static final int C2_MAX_JVMS_PER_CORE = 4;

    /**
     * Options of a child JVM hosting {@code procsPerJvm} of a cluster's {@code n} processes on a machine of
     * {@code cores}: its heap first ({@link #childHeapMiB}), the serial collector, and, once there are more than
     * {@value #C2_MAX_JVMS_PER_CORE} JVMs a core, the C1 compiler only. Every JVM compiles the same code
     * when load begins: at n = 4096 (16 JVMs on 2 cores) the C2 compilers took 0.8 of the 2 cores in the
     * first seconds of load and the cluster stopped before the code was compiled; with C1 only it
     * committed 1,741 and 1,818 commands a second (docs/node.md, *Under load at n = 4096*). {@code mmx local},
     * {@code perf consensus} and {@code perf failover} use it; {@code mmx demo} runs C1 always.
     */
    public static List<String> childJvmOptions(final int n, final int procsPerJvm, final int cores)
    {
        final int jvms = (n + procsPerJvm - 1) / procsPerJvm;
        final List<String> options = new ArrayList<>(List.of("-Xmx" + childHeapMiB(procsPerJvm) + "m",
            "-XX:+UseSerialGC"));
        if (jvms > C2_MAX_JVMS_PER_CORE * Math.max(1, cores))
        {
            options.add("-XX:TieredStopAtLevel=1");
        }
        return List.copyOf(options);
    }

    /** What {@link #create} does with a cluster directory that already holds files. */
    public enum Existing
    {
        /** Refuse it, naming the directory and the fix: nothing is overwritten by mistake. */
        REFUSE,
        /** Delete it first, if it is a cluster directory (it holds {@value ClusterLayout#FILE}). */
        REPLACE
    }

    private final Path dir;
    private final Plan plan;
    private final ClusterLayout layout;
    private final Path memoryDir;
    private final Process[] children;
    private final List<String> childJvmArgs;
    private List<String> nodeOptions = List.of();
    private boolean appliedLogs = true;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

    private LocalCluster(final Path dir, final Plan plan, final ClusterLayout layout, final Path memoryDir,
        final List<String> childJvmArgs)
    {
        this.dir = dir;
        this.plan = plan;
        this.layout = layout;
        this.memoryDir = memoryDir;
        this.children = new Process[layout.jvms()];
        this.childJvmArgs = childJvmArgs;
        // A launcher stopped by a signal (SIGTERM, Ctrl-C) runs no finally block: the hook still removes
        // the shared memory, hundreds of MB of regions and Aeron files at n = 4096.
        this.onExit = new Thread(this::release, "mmx-local-cleanup");
        Runtime.getRuntime().addShutdownHook(onExit);
    }

    private final Thread onExit;
    private boolean released;

    /** As {@link #create(Path, Plan, int, List, Existing)}, refusing a directory that holds files. */
    public static LocalCluster create(final Path dir, final Plan plan, final int procsPerJvm,
        final List<String> childJvmArgs) throws IOException
    {
        return create(dir, plan, procsPerJvm, childJvmArgs, Existing.REFUSE);
    }

    /**
     * Writes the cluster directory: plan.json, cluster.key (mode 0600), cluster.properties (ports
     * picked free now).
     *
     * @param dir          the cluster directory (created).
     * @param plan         the plan.
     * @param procsPerJvm  processes per JVM.
     * @param childJvmArgs extra JVM options for children (heap, GC), may be empty.
     * @param existing     what to do when {@code dir} already holds files.
     * @throws IllegalArgumentException naming the directory and the fix, when it holds files and
     *                                  {@code existing} is REFUSE, or they are not a cluster's.
     */
    public static LocalCluster create(final Path dir, final Plan plan, final int procsPerJvm,
        final List<String> childJvmArgs, final Existing existing) throws IOException
    {
        if (procsPerJvm < 1 || procsPerJvm > plan.n())
        {
            throw new IllegalArgumentException("--procs-per-jvm " + procsPerJvm + " must be 1.." + plan.n());
        }
        prepareDirectory(dir, existing);
        Files.createDirectories(dir.resolve("logs"));
        Files.createDirectories(dir.resolve("applied"));
        PlanFile.write(plan, dir.resolve("plan.json"));
        final byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        writeOwnerOnly(dir.resolve("cluster.key"), key);
        final int jvms = (plan.n() + procsPerJvm - 1) / procsPerJvm;
        final ClusterLayout layout = new ClusterLayout(plan.n(), procsPerJvm, freePorts(jvms, true), freePorts(jvms, false));
        layout.write(dir);
        // Each child gets only its processes' keys; the cluster key stays with this directory's owner.
        Files.createDirectories(dir.resolve("keys"));
        final io.mmx.rdma.region.ClusterKey clusterKey = io.mmx.rdma.region.ClusterKey.of(key);
        for (int j = 0; j < jvms; j++)
        {
            clusterKey.hostKeys(layout.ids(j)).write(dir.resolve("keys").resolve("jvm-" + j + ".keys"), true);
        }
        final File shm = new File("/dev/shm");
        final Path base = shm.isDirectory() && shm.canWrite() ? shm.toPath() : Path.of(System.getProperty("java.io.tmpdir"));
        final Path memoryDir = Files.createTempDirectory(base, "mmx-local-");
        return new LocalCluster(dir, plan, layout, memoryDir, childJvmArgs);
    }

    private static void prepareDirectory(final Path dir, final Existing existing) throws IOException
    {
        if (!Files.exists(dir))
        {
            return;
        }
        if (!Files.isDirectory(dir))
        {
            throw new IllegalArgumentException("cluster directory " + dir + " is a file: give a new or empty --dir");
        }
        try (Stream<Path> entries = Files.list(dir))
        {
            if (entries.findAny().isEmpty())
            {
                return;
            }
        }
        if (!Files.isRegularFile(dir.resolve(ClusterLayout.FILE)))
        {
            throw new IllegalArgumentException("directory " + dir + " holds files but no " + ClusterLayout.FILE +
                ", so it is not a cluster directory: give a new or empty --dir");
        }
        if (existing == Existing.REFUSE)
        {
            throw new IllegalArgumentException("cluster directory " + dir + " already holds a cluster (its key, plan " +
                "and logs): pass --force to replace it, or give another --dir");
        }
        deleteTree(dir);
    }

    // Created with its permissions, so the key is never readable by others, not even for a moment.
    private static void writeOwnerOnly(final Path file, final byte[] bytes) throws IOException
    {
        final boolean posix = file.getFileSystem().supportedFileAttributeViews().contains("posix");
        try (var channel = posix ?
            Files.newByteChannel(file, java.util.Set.of(java.nio.file.StandardOpenOption.CREATE_NEW,
                java.nio.file.StandardOpenOption.WRITE), java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"))) :
            Files.newByteChannel(file, java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE))
        {
            final java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining())
            {
                channel.write(buffer);
            }
        }
    }

    /** The cluster's directory. */
    public Path dir()
    {
        return dir;
    }

    /** The plan the cluster runs. */
    public Plan plan()
    {
        return plan;
    }

    /** Which JVM hosts which processes, and their endpoints. */
    public ClusterLayout layout()
    {
        return layout;
    }

    /** Directory of the region files. */
    public Path regionDir()
    {
        return memoryDir.resolve("regions");
    }

    /** Aeron directory of JVM {@code j}. */
    public Path aeronDir(final int j)
    {
        return memoryDir.resolve("aeron-" + j);
    }

    /** The cluster key file. */
    public Path keyFile()
    {
        return dir.resolve("cluster.key");
    }

    /** The key file of JVM {@code j}: its processes' keys only ({@code mmx keys derive}). */
    public Path hostKeyFile(final int j)
    {
        return dir.resolve("keys").resolve("jvm-" + j + ".keys");
    }

    /** The applied-commands log of process {@code p} (children write one per hosted process). */
    public Path appliedLog(final int p)
    {
        return dir.resolve("applied").resolve("process-" + p + ".log");
    }

    /** Extra {@code mmx node} options for every child started from now on (e.g. {@code --idle busy}). */
    public void nodeOptions(final List<String> options)
    {
        this.nodeOptions = List.copyOf(options);
    }

    /**
     * Child JVMs started from now on keep no applied logs (each replica's record of every command it
     * applied, which tests and the demo compare): a benchmark of the protocol pays one file write per
     * command and replica for an audit it never reads.
     */
    public void withoutAppliedLogs()
    {
        this.appliedLogs = false;
    }

    /** The {@code mmx node} arguments of JVM {@code j}. */
    public List<String> nodeArgs(final int j)
    {
        final List<String> args = new ArrayList<>(List.of("node", "--plan", dir.resolve("plan.json").toString(), "--ids", layout.idsSpec(j),
            "--directory", layout.directorySpec(),
            // A directory written before host key files existed has only the cluster key.
            Files.exists(hostKeyFile(j)) ? "--keys" : "--cluster-key-file",
            (Files.exists(hostKeyFile(j)) ? hostKeyFile(j) : keyFile()).toString(),
            "--shm-dir", regionDir().toString(), "--aeron-dir", aeronDir(j).toString(),
            "--status-listen", layout.statusEndpoint(j),
            "--state-dir", dir.resolve("state").toString(),
            "--exit-with-stdin"));
        if (appliedLogs)
        {
            args.addAll(List.of("--applied-log-dir", dir.resolve("applied").toString()));
        }
        args.addAll(nodeOptions);
        return args;
    }

    /**
     * The node configuration of JVM {@code j}, for hosting its processes in this JVM (a demo's or
     * test's client node) instead of a child.
     */
    public io.mmx.runtime.node.NodeContext contextFor(final int j) throws IOException
    {
        return new io.mmx.runtime.node.NodeContext().plan(plan).hosted(layout.ids(j)).directory(layout.directorySpec())
            .clusterKey(Files.readAllBytes(keyFile())).shmDirectory(regionDir()).aeronDirectory(aeronDir(j).toString());
    }

    /** Starts JVM {@code j} as a child process; returns at once (see {@link #awaitReady}). */
    public void start(final int j) throws IOException
    {
        if (children[j] != null && children[j].isAlive())
        {
            throw new IllegalStateException("JVM " + j + " is already running");
        }
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(childJvmArgs);
        command.add("-XX:-UsePerfData");
        command.add("--add-exports");
        command.add("java.base/jdk.internal.misc=ALL-UNNAMED");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(NODE_MAIN);
        command.addAll(nodeArgs(j));
        final File log = dir.resolve("logs").resolve("jvm-" + j + ".log").toFile();
        children[j] = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start();
    }

    /** Waits until JVM {@code j} serves its status, or fails naming its log. */
    public void awaitReady(final int j, final Duration timeout) throws IOException, InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline)
        {
            if (children[j] != null && !children[j].isAlive())
            {
                throw new IOException("JVM " + j + " exited with " + children[j].exitValue() + " during start-up; see " +
                    dir.resolve("logs").resolve("jvm-" + j + ".log"));
            }
            if (status(j) != null)
            {
                return;
            }
            Thread.sleep(50); // polling a child's HTTP endpoint; the deadline bounds it
        }
        throw new IOException("JVM " + j + " did not serve its status within " + timeout.toSeconds() + " s; see " +
            dir.resolve("logs").resolve("jvm-" + j + ".log"));
    }

    /** The JSON status of JVM {@code j}, or null if it does not answer. */
    public String status(final int j)
    {
        return get(j, "/status", Duration.ofMillis(1000));
    }

    /** The Prometheus metrics of JVM {@code j} ({@code GET /metrics}), or null if it does not answer. */
    public String metrics(final int j)
    {
        return get(j, "/metrics", Duration.ofSeconds(5));
    }

    /**
     * Every JVM's metrics, in JVM order, null where a JVM did not answer.
     *
     * @param lastJvmMetrics the metrics text of the last JVM when this program hosts it itself (its
     *                       node's {@code metricsText()}), or null to ask that JVM too.
     */
    public List<String> metricsOfEveryJvm(final String lastJvmMetrics)
    {
        final List<String> texts = new ArrayList<>();
        for (int j = 0; j < layout.jvms(); j++)
        {
            texts.add(j == layout.jvms() - 1 && lastJvmMetrics != null ? lastJvmMetrics : metrics(j));
        }
        return texts;
    }

    /**
     * Each process's value of the per-process counter {@code metric} (a {@code /metrics} name, such as
     * {@code mmx_leader_changes_total}) of processes 0 to {@code n - 1} in {@code texts}
     * ({@link #metricsOfEveryJvm}), -1 where none.
     */
    public static long[] counterByProcess(final List<String> texts, final String metric, final int n)
    {
        final long[] values = new long[n];
        java.util.Arrays.fill(values, -1);
        final java.util.regex.Pattern line = java.util.regex.Pattern.compile(
            "^" + java.util.regex.Pattern.quote(metric) + "\\{process=\"(\\d+)\"} (\\d+)", java.util.regex.Pattern.MULTILINE);
        for (final String text : texts)
        {
            if (text == null)
            {
                continue;
            }
            final java.util.regex.Matcher m = line.matcher(text);
            while (m.find())
            {
                final int id = Integer.parseInt(m.group(1));
                if (id >= 0 && id < values.length)
                {
                    values[id] = Long.parseLong(m.group(2));
                }
            }
        }
        return values;
    }

    private String get(final int j, final String path, final Duration timeout)
    {
        try
        {
            final HttpResponse<String> r = http.send(HttpRequest.newBuilder(
                URI.create("http://" + layout.statusEndpoint(j) + path)).timeout(timeout).build(),
                HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body() : null;
        }
        catch (final IOException ex)
        {
            return null;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * Asks JVM {@code j} to commit a probe ({@code POST /probe}); true once one committed there, so the
     * cluster has a leader that finished phase 1. False when the node refused, timed out or did not answer.
     */
    public boolean probe(final int j, final Duration timeout)
    {
        try
        {
            final HttpResponse<String> r = http.send(HttpRequest.newBuilder(
                URI.create("http://" + layout.statusEndpoint(j) + "/probe")).timeout(timeout)
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200;
        }
        catch (final IOException ex)
        {
            return false;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** True if child JVM {@code j} runs. */
    public boolean alive(final int j)
    {
        return children[j] != null && children[j].isAlive();
    }

    /** The process id of child JVM {@code j}, or -1 if it was never started. */
    public long pid(final int j)
    {
        return children[j] == null ? -1 : children[j].pid();
    }

    /** SIGKILLs child JVM {@code j} and waits until it is gone. */
    public void kill(final int j) throws InterruptedException
    {
        final Process p = children[j];
        if (p != null)
        {
            p.destroyForcibly();
            p.waitFor();
        }
    }

    /** Kills every child, removes the memory directory (regions, Aeron directories). */
    @Override
    public void close()
    {
        release();
        try
        {
            Runtime.getRuntime().removeShutdownHook(onExit);
        }
        catch (final IllegalStateException ex)
        {
            // closed while the JVM shuts down: the hook runs release(), which is done already
        }
    }

    // Synchronized, not a flag alone: when a signal stops the launcher, its main thread may be closing
    // the cluster as the hook runs (the parent closed its stdin too); the hook must wait for that
    // close to finish, since the JVM halts as soon as the hooks return.
    private synchronized void release()
    {
        if (released)
        {
            return;
        }
        released = true;
        for (final Process p : children)
        {
            if (p != null)
            {
                p.destroyForcibly();
            }
        }
        for (final Process p : children)
        {
            if (p != null)
            {
                try
                {
                    p.waitFor();
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
            }
        }
        deleteTree(memoryDir);
    }

    /** Removes {@code root} and everything below it, if it exists. */
    public static void deleteTree(final Path root)
    {
        if (!Files.exists(root))
        {
            return;
        }
        try (Stream<Path> walk = Files.walk(root))
        {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot remove " + root + ": " + ex.getMessage(), ex);
        }
    }

    /** Ports free on loopback right now: UDP for message endpoints, TCP for status endpoints. */
    public static List<Integer> freePorts(final int count, final boolean udp) throws IOException
    {
        final List<java.io.Closeable> held = new ArrayList<>();
        final List<Integer> ports = new ArrayList<>();
        try
        {
            for (int i = 0; i < count; i++)
            {
                // Held open until all are chosen, so the same port is not handed out twice.
                if (udp)
                {
                    final DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress());
                    held.add(s);
                    ports.add(s.getLocalPort());
                }
                else
                {
                    final ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                    held.add(s);
                    ports.add(s.getLocalPort());
                }
            }
        }
        finally
        {
            for (final java.io.Closeable c : held)
            {
                c.close();
            }
        }
        return ports;
    }

    /** A random regular plan of n processes for a local cluster, analysed with a short attack budget. */
    public static Plan plan(final int n, final int degree, final long seed)
    {
        return io.mmx.planner.plan.Planner.plan(new io.mmx.planner.plan.PlanRequest(n, degree, seed, "random", null,
            null, io.mmx.planner.analysis.AnalysisOptions.defaults().withSeed(seed).withAttackBudgetMillis(500)),
            io.mmx.planner.plan.ProgressListener.NONE);
    }
}
