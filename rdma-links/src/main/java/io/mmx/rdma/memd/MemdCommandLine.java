package io.mmx.rdma.memd;

import io.mmx.planner.graph.Graph;
import io.mmx.rdma.region.ClusterKey;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code mmx memd}: the options of the memory daemon, and a daemon run until the JVM is told to
 * stop; {@code mmx memd probe ...} runs {@link MemdProbe}. {@code --help} lists every option.
 *
 * <p>Exit codes: 2 for a usage error, 3 when it cannot start or its I/O thread fails (an
 * allocation failure included): it never stays alive without serving. SIGTERM stops it through
 * the JVM's shutdown, which exits 143 (128 + 15), as any JVM killed by SIGTERM does.
 */
@Command(name = "memd", mixinStandardHelpOptions = true, subcommands = MemdProbe.class,
    description = {
        "Runs the memory daemon: it holds this host's regions and serves authenticated one-sided " +
        "operations on them to plan neighbours over TCP, for clusters without RDMA NICs. " +
        "'memd probe --help' describes the health check.",
        "",
        "It serves several plans at once, so that the regions of the previous era stay served while the " +
        "next era starts on fresh ones: each process has one region per plan, and each plan's own edges " +
        "decide who may reach its regions. It starts with the plan of --plan-edges; a process naming " +
        "another plan is served if that plan's file is in the --plans directory, and refused otherwise. " +
        "Regions are kept until the daemon stops, whether anyone still uses them or not."},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "2:bad arguments (one line naming the option and the fix)",
        "3:cannot start (a port in use, no verbs device) or stopped serving",
        "143:stopped by SIGTERM (the JVM's code for it; regions are released)"})
public final class MemdCommandLine implements Callable<Integer>
{
    @Spec
    CommandSpec spec;

    @Option(names = "--listen", paramLabel = "HOST:PORT", defaultValue = "0.0.0.0:7400",
        description = "address to serve on (default ${DEFAULT-VALUE}); port 0 picks a free one")
    String listen;

    // Not picocli-required: a parent's required options would be demanded of 'memd probe' too.
    @Option(names = "--cluster-key-file", paramLabel = "FILE",
        description = "required: the cluster key, raw bytes, at least 16; make it once with 'head -c 32 /dev/urandom > FILE'")
    Path keyFile;

    @Option(names = "--plan-edges", paramLabel = "FILE",
        description = "required: the launch plan as an edge list ('topo export PLAN --edges FILE'): first line n, " +
            "then one 'u v' per line")
    Path planEdges;

    @Option(names = "--plans", paramLabel = "DIR",
        description = "a directory of plan files (*.json, as 'topo plan' writes them): a process naming a plan this " +
            "daemon does not serve yet is served if a plan file there has that plan's graph; files that do not " +
            "parse are skipped. Whoever can write there can grant access: keep it writable by operators only")
    Path plansDirectory;

    @Option(names = "--max-memory", paramLabel = "BYTES",
        description = "direct memory for regions and buffers (default: the JVM's direct-memory limit)")
    Long maxMemory;

    @Option(names = "--max-connections", paramLabel = "N",
        description = "authenticated connections at once (default: as many as a quarter of the memory budget holds, " +
            "about 200 KiB each, at most 1024)")
    Integer maxConnections;

    @Option(names = "--max-pending-connections", paramLabel = "N",
        description = "connections not yet authenticated; a new one evicts the oldest (default 256)")
    Integer maxPendingConnections;

    @Option(names = "--handshake-timeout-ms", paramLabel = "MS",
        description = "time a connection has for its first authenticated frame (default 5000)")
    Integer handshakeTimeoutMs;

    @Option(names = "--idle-timeout-ms", paramLabel = "MS",
        description = "an authenticated connection silent this long is closed (default 300000)")
    Integer idleTimeoutMs;

    @Option(names = "--max-regions", paramLabel = "N",
        description = "regions held at once, over all plans (default: 4 times the launch plan's n; each process " +
            "keeps its regions of the two plans it created regions under last); --max-memory bounds them too")
    Integer maxRegions;

    @Option(names = "--max-region-bytes", paramLabel = "N", description = "largest data area of one region (default 67108864)")
    Long maxRegionBytes;

    @Option(names = "--ready-file", paramLabel = "FILE",
        description = "written with the bound port once serving (for supervisors and tests)")
    Path readyFile;

    @Option(names = "--verbs-listen", paramLabel = "IP:PORT",
        description = "verbs mode: also serve this host's shm regions over RDMA (rdma_cm on PORT, the edge handshake " +
            "on PORT + 1; IP of the RDMA interface), so they stay served when their processes die; every era's " +
            "regions (--shm-dir and its era-N directories) of the launch plan and of the plans in --plans")
    String verbsListen;

    @Option(names = "--shm-dir", paramLabel = "DIR",
        description = "verbs mode: the shm region directory of this host's processes (default /dev/shm/mmx)")
    Path shmDir;

    /**
     * Runs {@code memd} or {@code memd probe} with {@code args}; returns the exit code: on a usage
     * error (2), when it cannot start or stops serving (3), or after a normal close (0).
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        final CommandLine line = new CommandLine(new MemdCommandLine());
        line.setOut(new PrintWriter(out, true));
        line.setErr(new PrintWriter(err, true));
        line.setParameterExceptionHandler((ex, ignored) ->
        {
            final CommandLine cmd = ex.getCommandLine();
            cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": error: " + ex.getMessage() +
                " ('" + cmd.getCommandSpec().qualifiedName() + " --help' lists the options)");
            return 2;
        });
        line.setExecutionExceptionHandler((ex, cmd, parsed) ->
        {
            cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": error: " + ex);
            return 3;
        });
        return line.execute(args);
    }

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final MemoryDaemon.Context context = new MemoryDaemon.Context();
        final InetSocketAddress verbsAddress;
        try
        {
            context.listen(parseAddress(listen));
            if (keyFile != null)
            {
                context.clusterKey(readKey(keyFile));
            }
            if (planEdges != null)
            {
                context.plan(readPlan(planEdges));
            }
            if (plansDirectory != null)
            {
                context.plansDirectory(plansDirectory);
            }
            if (maxMemory != null)
            {
                context.memoryBytes(atLeast("--max-memory", maxMemory, 1));
            }
            if (maxConnections != null)
            {
                context.maxConnections((int)atLeast("--max-connections", maxConnections, 1));
            }
            if (maxPendingConnections != null)
            {
                context.maxPendingConnections((int)atLeast("--max-pending-connections", maxPendingConnections, 1));
            }
            if (handshakeTimeoutMs != null)
            {
                context.handshakeTimeoutMs((int)atLeast("--handshake-timeout-ms", handshakeTimeoutMs, 1));
            }
            if (idleTimeoutMs != null)
            {
                context.idleTimeoutMs((int)atLeast("--idle-timeout-ms", idleTimeoutMs, 1));
            }
            if (maxRegions != null)
            {
                context.maxRegions((int)atLeast("--max-regions", maxRegions, 1));
            }
            if (maxRegionBytes != null)
            {
                context.maxRegionBytes(atLeast("--max-region-bytes", maxRegionBytes, 8));
            }
            verbsAddress = verbsListen == null ? null : parseAddress(verbsListen);
            context.conclude();
        }
        catch (final IllegalArgumentException ex)
        {
            err.println(spec.qualifiedName() + ": error: " + ex.getMessage());
            return 2;
        }

        final AutoCloseable verbsHost;
        try
        {
            verbsHost = verbsAddress == null ? () -> { } : startVerbsHost(context, verbsAddress,
                shmDir == null ? io.mmx.rdma.shm.ShmRegionStore.DEFAULT_DIRECTORY : shmDir);
        }
        catch (final RuntimeException ex)
        {
            err.println(spec.qualifiedName() + ": error: " + ex.getMessage());
            return 3;
        }
        final MemoryDaemon daemon;
        try
        {
            daemon = MemoryDaemon.start(context);
        }
        catch (final RuntimeException ex)
        {
            err.println(spec.qualifiedName() + ": error: " + ex.getMessage());
            closeQuietly(verbsHost);
            return 3;
        }
        if (verbsHost instanceof io.mmx.rdma.verbs.DisniRegionHost host)
        {
            // A verbs host that stops serving stops the daemon too: exit 3, and the service manager restarts it.
            host.onFailure((failure) -> daemon.stopServing(new IllegalStateException(
                "the verbs region host failed: " + failure, failure)));
        }
        try (daemon; AutoCloseable verbs = verbsHost)
        {
            final Thread hook = new Thread(daemon::close, "mmx-memd-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            out.println("memd listening on " + daemon.boundAddress() + ", at most " + context.maxConnections() +
                " authenticated connections in a memory budget of " + context.memoryBytes() + " bytes");
            out.flush();
            if (readyFile != null)
            {
                final Path tmp = readyFile.resolveSibling(readyFile.getFileName() + ".tmp");
                Files.writeString(tmp, Integer.toString(daemon.boundAddress().getPort()), StandardCharsets.US_ASCII);
                Files.move(tmp, readyFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            }
            final Throwable failure = daemon.awaitTermination();
            if (failure != null)
            {
                err.println(spec.qualifiedName() + ": error: stopped serving: its I/O thread failed with " + failure +
                    "; the regions it held are gone. Restart it (the service manager does), and give it more memory " +
                    "(-Xmx, -XX:MaxDirectMemorySize) if this was an OutOfMemoryError");
                err.flush();
                return 3;
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        catch (final Exception ex)
        {
            err.println(spec.qualifiedName() + ": error: " + ex.getMessage());
            return 3;
        }
        return 0;
    }

    /**
     * Verbs mode: a region host in this daemon's process serving the host's shm regions of every era
     * (the base directory's era-N directories) of the launch plan and of the plans directory's plans,
     * so nodes on verbs memory switch plans live. It checks for libdisni, libibverbs and a device with
     * atomics before creating anything.
     *
     * @throws io.mmx.rdma.verbs.VerbsUnavailableException naming what is missing.
     */
    private static AutoCloseable startVerbsHost(
        final MemoryDaemon.Context context, final InetSocketAddress cm, final Path shmDir)
    {
        io.mmx.rdma.verbs.VerbsBackend.requireAvailable();
        final io.mmx.rdma.shm.ShmRegionStore store = new io.mmx.rdma.shm.ShmRegionStore(shmDir);
        final io.mmx.rdma.verbs.VerbsHostAddress address = io.mmx.rdma.verbs.VerbsHostAddress.handshakeOnNextPort(cm);
        final io.mmx.rdma.verbs.VerbsEdgeAcceptor.ServedPlan launch =
            new io.mmx.rdma.verbs.VerbsEdgeAcceptor.ServedPlan(context.planDigest(), context.plan());
        return io.mmx.rdma.verbs.DisniRegionHost.start(address.cm(), address.handshake(),
            new io.mmx.rdma.verbs.VerbsServedPlans(launch, context.plansDirectory()), launch, context.clusterKey(),
            store.eraResolver(context.clusterKey()));
    }

    private static void closeQuietly(final AutoCloseable closeable)
    {
        try
        {
            closeable.close();
        }
        catch (final Exception ignore)
        {
            // Exiting anyway.
        }
    }

    // The value, or an error naming the option, the value and the range.
    private static long atLeast(final String option, final long value, final long min)
    {
        if (value < min)
        {
            throw new IllegalArgumentException(option + " " + value + " is out of range: give a whole number of at least " +
                min + ", or leave the option out for its default");
        }
        return value;
    }

    /** Reads a cluster key file, or throws naming the file and how to create it. */
    static ClusterKey readKey(final Path path)
    {
        try
        {
            return ClusterKey.fromFile(path);
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("cannot read cluster key file " + path + " (" + ex.getClass().getSimpleName() +
                "): create it once per cluster with `head -c 32 /dev/urandom > " + path + "` and copy it to every host");
        }
    }

    private static Graph readPlan(final Path path)
    {
        try
        {
            return readEdgeList(path);
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("cannot read plan edge list " + path + " (" +
                ex.getClass().getSimpleName() + "): pass the plan's edge list, first line n, then 'u v' per edge");
        }
    }

    /**
     * Parses HOST:PORT.
     *
     * @throws IllegalArgumentException naming the value, if it is not HOST:PORT with a port 0..65535.
     */
    public static InetSocketAddress parseAddress(final String value)
    {
        final int colon = value.lastIndexOf(':');
        try
        {
            if (colon > 0 && colon < value.length() - 1)
            {
                return new InetSocketAddress(value.substring(0, colon), Integer.parseInt(value.substring(colon + 1)));
            }
        }
        catch (final IllegalArgumentException ex)
        {
            // Not a number, or a port out of range: the message below says what is expected.
        }
        throw new IllegalArgumentException("address '" + value + "' is not HOST:PORT, e.g. 0.0.0.0:7400");
    }

    /** Reads an edge list: the first non-comment line is n, each further line "u v". */
    public static Graph readEdgeList(final Path path) throws IOException
    {
        final List<String> lines = Files.readAllLines(path, StandardCharsets.US_ASCII);
        Graph.Builder builder = null;
        int lineNumber = 0;
        for (final String raw : lines)
        {
            lineNumber++;
            final String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#"))
            {
                continue;
            }
            final String[] parts = line.split("\\s+");
            try
            {
                if (builder == null)
                {
                    builder = Graph.builder(Integer.parseInt(parts[0]));
                }
                else
                {
                    builder.addEdge(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
                }
            }
            catch (final RuntimeException ex)
            {
                throw new IllegalArgumentException(path + " line " + lineNumber + " is not an edge list line ('n' " +
                    "first, then 'u v'): " + line);
            }
        }
        if (builder == null)
        {
            throw new IllegalArgumentException(path + " is empty: write the process count on the first line");
        }
        return builder.build();
    }
}
