package io.mmx.perf.consensus;

import io.mmx.aeron.transport.TransportContext;
import org.agrona.IoUtil;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Commit latency percentiles and throughput of every registered {@link ConsensusSystem} at each of its
 * member counts, closed loop at each in-flight bound, all in one JVM and one run, reported against the
 * Aeron Cluster baseline measured in the same run. Writes a markdown section to stdout and, with
 * {@code --out DIR}, to {@code DIR/consensus.md}.
 * <p>
 * Usage: {@code ConsensusBenchmark [--duration S] [--warmup S] [--payload-bytes B] [--in-flight 1,16,256]
 * [--members 5,256,..] [--rounds R] [--idle NAME] [--out DIR] [--keep DIR]}. {@code --rounds R} measures every
 * system R times in turn (the baseline, then each of the others, then the baseline again), each round with
 * clusters started afresh, and reports medians, with each ratio taken against the same round's baseline: one
 * run on a shared machine cannot show a step of 10 or 20 %. {@code --keep DIR} copies the logs of a
 * system that failed to start or stalled to {@code DIR/<system>-<n>}. Defaults: 5 s measured and 2 s warm-up per row, 32-byte commands,
 * in-flight 1, 16 and 256, the mmx node at 5 and 32 processes ({@code --members} replaces these; the baseline
 * always runs its own 3 members; clusters of 256 and more get 120 s to start), each system's own idle strategy (Aeron Cluster and the client: backoff; mmx: its node's
 * default); about 25 s for the Aeron Cluster baseline alone.
 * Exit status 1 if a system failed to start or stalled (its failure is in the report), 2 on bad arguments.
 */
public final class ConsensusBenchmark
{
    /** Largest command: the mmx node carries commands of up to 56 bytes inline. */
    public static final int MAX_PAYLOAD_BYTES = 56;
    private static final String USAGE = "usage: consensus [--duration S] [--warmup S] [--payload-bytes 8..56] " +
        "[--in-flight N,N,..] [--members N,N,..] [--rounds R] [--idle park|backoff|sleeping|yielding|busy|noop] " +
        "[--out DIR] [--keep DIR]\n" +
        "defaults: 5 s measured and 2 s warm-up per row, 32 bytes, in-flight 1,16,256, mmx at 5 and 32 processes, " +
        "1 round (--rounds R: every system R times in turn, medians and per-round ratios) " +
        "(the Aeron Cluster baseline always has 3 members), each system's own idle strategy; " +
        "writes DIR/consensus.md too with --out";
    private static final long START_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);
    /** Clusters of this many members and more get {@link #LARGE_START_TIMEOUT_NS} to start. */
    private static final int LARGE_CLUSTER = 256;
    private static final long LARGE_START_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(120);
    /** Largest cluster the benchmark accepts. */
    static final int MAX_MEMBERS = 4096;
    private static final long STALL_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);

    /** Most rounds a run may ask for. */
    static final int MAX_ROUNDS = 20;

    /** Parsed command line. */
    record Options(double durationS, double warmupS, int payloadBytes, int[] inFlight, int[] members, String idle,
        Path out, Path keep, int rounds)
    {
        static Options parse(final String[] args)
        {
            double durationS = 5;
            double warmupS = 2;
            int payloadBytes = 32;
            int[] inFlight = {1, 16, 256};
            int[] members = null;
            String idle = null;
            Path out = null;
            Path keep = null;
            int rounds = 1;
            for (int i = 0; i < args.length; i++)
            {
                final String option = args[i];
                if (i + 1 >= args.length)
                {
                    throw new IllegalArgumentException("option " + option + " needs a value");
                }
                final String value = args[++i];
                try
                {
                    switch (option)
                    {
                        case "--duration" -> durationS = Double.parseDouble(value);
                        case "--warmup" -> warmupS = Double.parseDouble(value);
                        case "--payload-bytes" -> payloadBytes = Integer.parseInt(value);
                        case "--in-flight" -> inFlight = Arrays.stream(value.split(",")).map(String::trim)
                            .mapToInt(Integer::parseInt).toArray();
                        case "--members" -> members = Arrays.stream(value.split(",")).map(String::trim)
                            .mapToInt(Integer::parseInt).toArray();
                        case "--idle" -> idle = value;
                        case "--out" -> out = Path.of(value);
                        case "--keep" -> keep = Path.of(value);
                        case "--rounds" -> rounds = Integer.parseInt(value);
                        default -> throw new IllegalArgumentException("unknown option '" + option + "'; use " +
                            "--duration S, --warmup S, --payload-bytes B, --in-flight N,N,.., --members N,N,.., " +
                            "--rounds R, --idle NAME, --out DIR, --keep DIR");
                    }
                }
                catch (final NumberFormatException ex)
                {
                    throw new IllegalArgumentException(option + " takes a number, got '" + value + "'");
                }
            }
            if (!(durationS > 0 && durationS <= 600) || !(warmupS >= 0 && warmupS <= 600))
            {
                throw new IllegalArgumentException("--duration must be in (0, 600] s and --warmup in [0, 600] s");
            }
            if (payloadBytes < Long.BYTES || payloadBytes > MAX_PAYLOAD_BYTES)
            {
                throw new IllegalArgumentException("--payload-bytes must be " + Long.BYTES + ".." + MAX_PAYLOAD_BYTES +
                    " (8 carry the command id; the mmx node carries at most 56 inline), got " + payloadBytes);
            }
            if (inFlight.length == 0 || Arrays.stream(inFlight).anyMatch(n -> n < 1 || n > 65_536))
            {
                throw new IllegalArgumentException("--in-flight must list bounds in 1..65536, got " +
                    Arrays.toString(inFlight));
            }
            if (members != null && (members.length == 0 || Arrays.stream(members).anyMatch(n -> n < 3 || n > MAX_MEMBERS)))
            {
                throw new IllegalArgumentException("--members must list cluster sizes in 3.." + MAX_MEMBERS + ", got " +
                    Arrays.toString(members));
            }
            if (rounds < 1 || rounds > MAX_ROUNDS)
            {
                throw new IllegalArgumentException("--rounds must be 1.." + MAX_ROUNDS + " (each round starts every " +
                    "cluster again), got " + rounds);
            }
            if (idle != null)
            {
                TransportContext.idleStrategy(idle); // names the valid choices if this one is unknown
            }
            return new Options(durationS, warmupS, payloadBytes, inFlight, members, idle, out, keep, rounds);
        }
    }

    private ConsensusBenchmark()
    {
    }

    /**
     * @param args see the class comment.
     * @throws IOException if the report cannot be written.
     */
    public static void main(final String[] args) throws IOException
    {
        if (args.length > 0 && (args[0].equals("-h") || args[0].equals("--help")))
        {
            System.out.println(USAGE);
            return;
        }
        final Options options;
        try
        {
            options = Options.parse(args);
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("consensus: " + ex.getMessage() + "\n" + USAGE);
            System.exit(2);
            return;
        }
        final long startNs = System.nanoTime();
        final List<LoadResult> results = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
        final boolean allRan = run(ConsensusSystems.registered(), options, results, notes);
        notes.add(String.format(Locale.ROOT, "Suite wall time %.1f s.", (System.nanoTime() - startNs) / 1e9));
        final String markdown = ConsensusReport.markdown(header(options), results, notes);
        System.out.print(markdown);
        if (options.out() != null)
        {
            Files.createDirectories(options.out());
            Files.writeString(options.out().resolve("consensus.md"), markdown, StandardCharsets.UTF_8);
        }
        System.exit(allRan ? 0 : 1);
    }

    /**
     * Measures every system at every member count and in-flight bound, one started log per member count,
     * {@code options.rounds()} times in turn.
     *
     * @return false if any system failed; its failure is a note and the others still run.
     */
    static boolean run(
        final List<ConsensusSystem> systems, final Options options, final List<LoadResult> results,
        final List<String> notes) throws IOException
    {
        final LoadDriver driver = new LoadDriver(options.payloadBytes(), seconds(options.warmupS()),
            seconds(options.durationS()), STALL_TIMEOUT_NS, options.idle() == null ? "backoff" : options.idle());
        boolean allRan = true;
        for (int round = 1; round <= options.rounds(); round++)
        {
            allRan &= runRound(systems, options, driver, round, results, notes);
        }
        return allRan;
    }

    private static boolean runRound(
        final List<ConsensusSystem> systems, final Options options, final LoadDriver driver, final int round,
        final List<LoadResult> results, final List<String> notes) throws IOException
    {
        final String inRound = options.rounds() == 1 ? "" : String.format(Locale.ROOT, " (round %d of %d)", round,
            options.rounds());
        boolean allRan = true;
        for (final ConsensusSystem system : systems)
        {
            final boolean baseline = system.name().equals(ConsensusSystems.BASELINE);
            for (final int members : baseline || options.members() == null ? system.memberCounts() : options.members())
            {
                final Path workDir = Files.createTempDirectory("mmx-consensus-" + system.name() + "-");
                final long startNs = System.nanoTime();
                String stage = "start";
                String atFailure = "";
                try (ReplicatedLog log = system.create(members, new LogSettings(
                    workDir, options.idle(), options.payloadBytes(),
                    members >= LARGE_CLUSTER ? LARGE_START_TIMEOUT_NS : START_TIMEOUT_NS)))
                {
                    System.err.printf("consensus: starting %s, n = %d%s%n", system.name(), members, inRound);
                    log.start();
                    final double startS = (System.nanoTime() - startNs) / 1e9;
                    for (final int inFlight : options.inFlight())
                    {
                        stage = "in-flight " + inFlight;
                        System.err.printf("consensus: %s, n = %d, in-flight %d%n", system.name(), members, inFlight);
                        final LoadResult result;
                        try
                        {
                            result = driver.run(log, inFlight);
                        }
                        catch (final Exception ex)
                        {
                            atFailure = "; " + log.diagnostics(); // what the cluster did, while it still answers
                            throw ex;
                        }
                        results.add(result.inRound(round));
                        if (result.lost() > 0 || result.unexpected() > 0)
                        {
                            notes.add(String.format(Locale.ROOT, "%s n = %d in-flight %d%s: %d commands lost, " +
                                "%d unexpected commits.", system.name(), members, inFlight, inRound, result.lost(),
                                result.unexpected()));
                        }
                    }
                    notes.add(String.format(Locale.ROOT, "%s n = %d%s: started in %.1f s; %s.",
                        system.name(), members, inRound, startS, log.diagnostics()));
                }
                catch (final Exception ex)
                {
                    allRan = false;
                    notes.add(String.format(Locale.ROOT, "%s n = %d%s FAILED at %s: %s%s%s%s", system.name(), members,
                        inRound, stage,
                        ex, ex.getStackTrace().length == 0 ? "" : " (thrown at " + ex.getStackTrace()[0] + ")",
                        keep(options.keep(), workDir, system.name() + "-" + members +
                            (options.rounds() == 1 ? "" : "-round-" + round)), atFailure));
                }
                finally
                {
                    IoUtil.delete(workDir.toFile(), true);
                }
            }
        }
        return allRan;
    }

    /** Copies a failed system's work directory (its logs) under {@code keep}; says where, or nothing without it. */
    private static String keep(final Path keep, final Path workDir, final String name)
    {
        if (keep == null)
        {
            return "";
        }
        final Path to = keep.resolve(name);
        try (java.util.stream.Stream<Path> files = Files.walk(workDir))
        {
            for (final Path from : (Iterable<Path>)files::iterator)
            {
                // Regions and Aeron directories are large and say nothing a log does not.
                if (Files.isRegularFile(from) && from.toString().endsWith(".log"))
                {
                    final Path target = to.resolve(workDir.relativize(from).toString());
                    Files.createDirectories(target.getParent());
                    Files.copy(from, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
            return "; its logs are in " + to;
        }
        catch (final IOException ex)
        {
            return "; its logs could not be kept in " + to + ": " + ex.getMessage();
        }
    }

    private static String header(final Options options)
    {
        return String.format(Locale.ROOT, "%s, %d cores, load average %.2f. Closed loop from one client " +
            "thread: %d-byte commands, %s, %.1f s warm-up and " +
            "%.1f s measured per row%s; latency is submit to commit learnt by the client.",
            ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")),
            Runtime.getRuntime().availableProcessors(),
            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
            options.payloadBytes(), options.idle() == null ? "each system's own idle strategy (Aeron Cluster and " +
            "the client: backoff; mmx: its node's default, park)" : options.idle() + " idle strategy for every thread " +
            "of every system", options.warmupS(), options.durationS(), options.rounds() == 1 ? "" :
            String.format(Locale.ROOT, ", %d rounds (every system in turn, clusters started afresh each round)",
            options.rounds()));
    }

    private static long seconds(final double seconds)
    {
        return (long)(seconds * 1e9);
    }
}
