package io.mmx.perf.verbs;

import io.mmx.perf.niccache.DegreeSweep;
import io.mmx.perf.niccache.NicPreset;
import io.mmx.perf.niccache.ProtocolRates;
import io.mmx.perf.niccache.SweepRow;
import io.mmx.planner.generate.Generators;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.local.LocalRegionStore;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.verbs.DisniRegionHost;
import io.mmx.rdma.verbs.VerbsHostAddress;
import io.mmx.rdma.verbs.VerbsLinkFactory;
import io.mmx.rdma.verbs.VerbsPreflight;
import org.agrona.concurrent.SystemNanoClock;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The hardware run of the verbs backend (issue 7): sweeps processes per host (so QPs) and plan
 * degree, measures one-sided op rate through the NIC and NIC counters per operation, and writes
 * it beside the NIC cache model's prediction ({@link VerbsSweepReport}). On a machine without
 * RDMA it refuses with the preflight's sentence and exit code {@value #EXIT_UNAVAILABLE}, which
 * {@code bin/perf all} reports as a skipped suite.
 *
 * <pre>
 *   bin/perf verbs --out DIR --ip IP [--port 7471] [--degrees 2,4,8,16,32] [--procs-per-host 1,4,16]
 *                  [--duration-ms 2000] [--depth 16] [--ethtool IFACE] [--preset connectx6]
 * </pre>
 *
 * One host: every region lives on this host and every QP loops back through its NIC. Not yet
 * run on hardware.
 */
public final class VerbsSweep
{
    /** Exit code when the verbs backend cannot run here. */
    public static final int EXIT_UNAVAILABLE = 4;

    private static final Path SYS_CLASS_INFINIBAND = Path.of("/sys/class/infiniband");
    private static final long DATA_BYTES = 4096;

    private VerbsSweep()
    {
    }

    /** Runs; exits with {@link #run}'s code. */
    public static void main(final String[] args)
    {
        System.exit(run(args, VerbsPreflight.check(), System.out, System.err));
    }

    /** Parses, checks the machine, runs the sweep. Returns 0, 2 (usage) or {@value #EXIT_UNAVAILABLE}. */
    static int run(final String[] args, final VerbsPreflight.Result preflight, final PrintStream out,
        final PrintStream err)
    {
        final Map<String, String> options;
        try
        {
            options = parse(args);
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("perf verbs: " + ex.getMessage());
            return 2;
        }
        if (!preflight.ok())
        {
            err.println("perf verbs: skipped: " + preflight.message());
            out.println("skipped: " + preflight.message());
            return EXIT_UNAVAILABLE;
        }
        final String ip = options.getOrDefault("--ip", System.getenv("MMX_VERBS_IP"));
        if (ip == null || !options.containsKey("--out"))
        {
            err.println("perf verbs: pass --out DIR and --ip IP (the IP of this host's RDMA interface, or set " +
                "MMX_VERBS_IP)");
            return 2;
        }
        try
        {
            final String markdown = sweep(options, ip, err);
            final Path dir = Path.of(options.get("--out"));
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("verbs.md"), markdown);
            out.print(markdown);
            return 0;
        }
        catch (final IOException ex)
        {
            err.println("perf verbs: " + ex.getMessage());
            return 1;
        }
    }

    static Map<String, String> parse(final String[] args)
    {
        final List<String> known = List.of("--out", "--ip", "--port", "--degrees", "--procs-per-host", "--duration-ms",
            "--depth", "--ethtool", "--preset");
        final Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i += 2)
        {
            if (!known.contains(args[i]) || i + 1 >= args.length)
            {
                throw new IllegalArgumentException("unknown option or missing value '" + args[i] + "'; options: " +
                    known);
            }
            options.put(args[i], args[i + 1]);
        }
        return options;
    }

    static int[] ints(final String csv)
    {
        return Arrays.stream(csv.split(",")).mapToInt((s) -> Integer.parseInt(s.strip())).toArray();
    }

    private static String sweep(final Map<String, String> o, final String ip, final PrintStream err) throws IOException
    {
        final int[] degrees = ints(o.getOrDefault("--degrees", "2,4,8,16,32"));
        final int[] procsPerHost = ints(o.getOrDefault("--procs-per-host", "1,4,16"));
        final long durationNs = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(o.getOrDefault("--duration-ms", "2000")));
        final int depth = Integer.parseInt(o.getOrDefault("--depth", "16"));
        final InetSocketAddress cm = new InetSocketAddress(ip, Integer.parseInt(o.getOrDefault("--port", "7471")));
        final String iface = o.get("--ethtool");
        final NicPreset preset = NicPreset.byName(o.getOrDefault("--preset", "connectx6"));
        final NicCounters.Source counters = () ->
        {
            final Map<String, Long> all = NicCounters.readSysfs(SYS_CLASS_INFINIBAND);
            if (iface != null)
            {
                all.putAll(NicCounters.readEthtool(iface));
            }
            return all;
        };
        final byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        final ClusterKey key = ClusterKey.of(secret);
        final DegreeSweep model = new DegreeSweep(4096, 1, ProtocolRates.DEFAULT, preset.model(), 2, 200_000);
        final List<VerbsSweepRow> rows = new ArrayList<>();
        final List<SweepRow> modelRows = new ArrayList<>();
        for (final int p : procsPerHost)
        {
            for (final int d : degrees)
            {
                err.println("perf verbs: " + p + " processes, degree " + d);
                rows.add(cell(p, d, cm, key, durationNs, depth, counters));
                modelRows.add(model.cell(p, d));
            }
        }
        return VerbsSweepReport.markdown(preset.cliName() + " model vs " + VerbsPreflight.check().message() + ", " +
            Instant.now(), rows, modelRows);
    }

    private static VerbsSweepRow cell(
        final int procsPerHost, final int degree, final InetSocketAddress cm, final ClusterKey key,
        final long durationNs, final int depth, final NicCounters.Source counters) throws IOException
    {
        int n = procsPerHost + degree + 1;
        n += (n * degree) % 2; // a regular graph needs n × degree even
        final Graph plan = Generators.byName("random").generate(n, degree, 1);
        final PlanDigest digest = PlanDigest.ofGraph(plan);
        final LocalRegionStore store = new LocalRegionStore();
        for (int q = 0; q < n; q++)
        {
            store.createOrOpen(q, DATA_BYTES, digest, key);
        }
        try (DisniRegionHost host = DisniRegionHost.start(cm, new InetSocketAddress(cm.getAddress(), 0), plan, digest,
            key, store.resolver(digest, key)))
        {
            final VerbsHostAddress address = new VerbsHostAddress(cm, host.handshakeAddress());
            final VerbsLinkFactory links = VerbsLinkFactory.open((owner) -> address, key, digest, 5000);
            return SweepRunner.measure(plan, procsPerHost, degree, (self) -> new PlanMemoryFabric(
                ConnectionManager.open(plan, self, links), SystemNanoClock.INSTANCE), durationNs, depth, counters);
        }
        finally
        {
            for (int q = 0; q < n; q++)
            {
                store.destroy(q);
            }
        }
    }
}
