package io.mmx.rdma.memd;

import io.mmx.planner.graph.Graph;
import io.mmx.rdma.region.ClusterKey;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Parses the options of {@code mmx memd} and runs a daemon until the JVM is told to stop; {@code mmx
 * memd probe ...} runs {@link MemdProbe} instead.
 *
 * <pre>
 *   --listen HOST:PORT          address to serve on (default 0.0.0.0:7400; port 0 picks one)
 *   --cluster-key-file PATH     the cluster key, raw bytes, at least 16 (required)
 *   --plan-edges PATH           the plan as an edge list: first line n, then one "u v" per line (required)
 *   --max-memory BYTES          direct memory for regions and buffers (default: the JVM's direct-memory limit)
 *   --max-connections N         authenticated connections (default: a quarter of the memory budget, each
 *                               about 200 KiB, at most 1024)
 *   --max-pending-connections N not yet authenticated (default 256; a new one evicts the oldest)
 *   --handshake-timeout-ms MS   time to the first authenticated frame (default 5000)
 *   --idle-timeout-ms MS        an authenticated connection silent this long is closed (default 300000)
 *   --max-regions N             default n
 *   --max-region-bytes N        default 67108864
 *   --ready-file PATH           written with the bound port once serving (for supervisors and tests)
 *   --verbs-listen IP:PORT      verbs mode: also serve this host's shm regions over RDMA (rdma_cm on PORT, the
 *                               edge handshake on PORT + 1; IP of the RDMA interface), registered here, so they
 *                               stay served when their processes die
 *   --shm-dir DIR               verbs mode: the shm region directory of this host's processes (default /dev/shm/mmx)
 * </pre>
 *
 * <p>Exit codes: 0 after SIGTERM, 2 for a usage error, 3 when it cannot start or its I/O thread
 * fails (an allocation failure included): it never stays alive without serving.
 */
public final class MemdCommandLine
{
    private MemdCommandLine()
    {
    }

    /**
     * Runs the daemon; returns on a usage error (2), after shutdown (0), or when it cannot start or
     * stops serving (3).
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        if (args.length > 0 && args[0].equals("probe"))
        {
            return MemdProbe.run(java.util.Arrays.copyOfRange(args, 1, args.length), out, err);
        }
        final MemoryDaemon.Context context = new MemoryDaemon.Context();
        Path readyFile = null;
        InetSocketAddress verbsListen = null;
        Path shmDir = io.mmx.rdma.shm.ShmRegionStore.DEFAULT_DIRECTORY;
        try
        {
            for (int i = 0; i < args.length; i++)
            {
                final String option = args[i];
                if (i + 1 >= args.length)
                {
                    throw new IllegalArgumentException("option " + option + " needs a value");
                }
                final String value = args[++i];
                switch (option)
                {
                    case "--listen":
                        context.listen(parseAddress(value));
                        break;
                    case "--cluster-key-file":
                        context.clusterKey(readKey(Path.of(value)));
                        break;
                    case "--plan-edges":
                        context.plan(readPlan(Path.of(value)));
                        break;
                    case "--max-connections":
                        context.maxConnections(parseInt(option, value, 1));
                        break;
                    case "--max-pending-connections":
                        context.maxPendingConnections(parseInt(option, value, 1));
                        break;
                    case "--handshake-timeout-ms":
                        context.handshakeTimeoutMs(parseInt(option, value, 1));
                        break;
                    case "--idle-timeout-ms":
                        context.idleTimeoutMs(parseInt(option, value, 1));
                        break;
                    case "--max-memory":
                        context.memoryBytes(parseLong(option, value, 1));
                        break;
                    case "--max-regions":
                        context.maxRegions(parseInt(option, value, 1));
                        break;
                    case "--max-region-bytes":
                        context.maxRegionBytes(parseLong(option, value, 8));
                        break;
                    case "--ready-file":
                        readyFile = Path.of(value);
                        break;
                    case "--verbs-listen":
                        verbsListen = parseAddress(value);
                        break;
                    case "--shm-dir":
                        shmDir = Path.of(value);
                        break;
                    default:
                        throw new IllegalArgumentException("unknown option " + option + ": the options are --listen, --cluster-key-file, " +
                            "--plan-edges, --max-memory, --max-connections, --max-pending-connections, " +
                            "--handshake-timeout-ms, --idle-timeout-ms, --max-regions, --max-region-bytes, --ready-file, " +
                            "--verbs-listen, --shm-dir");
                }
            }
            context.conclude();
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("memd: " + ex.getMessage());
            return 2;
        }

        final AutoCloseable verbsHost;
        try
        {
            verbsHost = verbsListen == null ? () -> { } : startVerbsHost(context, verbsListen, shmDir);
        }
        catch (final RuntimeException ex)
        {
            err.println("memd: " + ex.getMessage());
            return 3;
        }
        final MemoryDaemon daemon;
        try
        {
            daemon = MemoryDaemon.start(context);
        }
        catch (final RuntimeException ex)
        {
            err.println("memd: " + ex.getMessage());
            closeQuietly(verbsHost);
            return 3;
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
                err.println("memd: stopped serving: its I/O thread failed with " + failure +
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
            err.println("memd: " + ex.getMessage());
            return 3;
        }
        return 0;
    }

    /**
     * Verbs mode: a region host in this daemon's process serving the host's shm regions. It checks
     * for libdisni, libibverbs and a device with atomics before creating anything.
     *
     * @throws io.mmx.rdma.verbs.VerbsUnavailableException naming what is missing.
     */
    private static AutoCloseable startVerbsHost(
        final MemoryDaemon.Context context, final InetSocketAddress cm, final Path shmDir)
    {
        io.mmx.rdma.verbs.VerbsBackend.requireAvailable();
        final io.mmx.rdma.shm.ShmRegionStore store = new io.mmx.rdma.shm.ShmRegionStore(shmDir);
        final io.mmx.rdma.verbs.VerbsHostAddress address = io.mmx.rdma.verbs.VerbsHostAddress.handshakeOnNextPort(cm);
        return io.mmx.rdma.verbs.DisniRegionHost.start(address.cm(), address.handshake(), context.plan(),
            context.planDigest(), context.clusterKey(), store.resolver(context.planDigest(), context.clusterKey()));
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

    // A whole number of at least min, or an error naming the option, the value and the range.
    private static int parseInt(final String option, final String value, final int min)
    {
        final long parsed = parseLong(option, value, min);
        if (parsed > Integer.MAX_VALUE)
        {
            throw outOfRange(option, value, min, Integer.MAX_VALUE);
        }
        return (int)parsed;
    }

    private static long parseLong(final String option, final String value, final long min)
    {
        final long parsed;
        try
        {
            parsed = Long.parseLong(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(option + " '" + value + "' is not a whole number: give one of at least " + min);
        }
        if (parsed < min)
        {
            throw outOfRange(option, value, min, Long.MAX_VALUE);
        }
        return parsed;
    }

    private static IllegalArgumentException outOfRange(final String option, final String value, final long min, final long max)
    {
        return new IllegalArgumentException(option + " " + value + " is out of range: give a whole number from " + min +
            " to " + max + ", or leave the option out for its default");
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
