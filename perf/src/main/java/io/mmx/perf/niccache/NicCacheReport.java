package io.mmx.perf.niccache;

import io.mmx.planner.io.GraphFileException;
import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanFile;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * Predicts NIC QP-context cache pressure of m&amp;m Paxos against plan degree and writes
 * {@code nic-cache.md}, {@code nic-cache-miss.svg} and {@code nic-cache-capacity.svg}.
 *
 * <pre>
 *   --out DIR         output directory (required; created if missing)
 *   --preset NAME     connectx6 (default) or connectx3
 *   --n N             processes (default 4096)
 *   --seed S          plan and sampling seed (default 1)
 *   --references R    measured references per simulated NIC (default 600000)
 *   --nics K          NICs simulated per cell (default 2)
 *   --plan FILE       also a plan file (with a placement) beside the full mesh on its placement;
 *                     n is then the plan's
 * </pre>
 * Exit codes: 0 done, 2 bad arguments, 3 I/O error.
 */
public final class NicCacheReport
{
    /** Degrees of the sweep; the full mesh is added after them. */
    public static final int[] DEGREES = {2, 4, 8, 16, 32, 64};
    /** Processes per host of the sweep. */
    public static final int[] PROCS_PER_HOST = {1, 4, 16, 64};
    /** Processes per host at which degrees beyond the sweep are tried (up to n / 4). */
    public static final int EXTENDED_PROCS_PER_HOST = 16;

    private NicCacheReport()
    {
    }

    /**
     * The parsed command line.
     *
     * @param out        output directory.
     * @param preset     NIC preset.
     * @param n          processes.
     * @param seed       plan and sampling seed.
     * @param references measured references per NIC.
     * @param nics       NICs per cell.
     * @param plan       a plan file to add, or null.
     */
    record Options(Path out, NicPreset preset, int n, long seed, long references, int nics, Path plan)
    {
        static Options parse(final String[] args)
        {
            Path out = null;
            NicPreset preset = NicPreset.CONNECTX6;
            int n = 4096;
            long seed = 1;
            long references = 600_000;
            int nics = 2;
            Path plan = null;
            for (int i = 0; i < args.length; i++)
            {
                final String option = args[i];
                if (i + 1 >= args.length)
                {
                    throw new IllegalArgumentException(option + " needs a value; see --out DIR --preset NAME");
                }
                final String value = args[++i];
                try
                {
                    switch (option)
                    {
                        case "--out" -> out = Path.of(value);
                        case "--preset" -> preset = NicPreset.byName(value);
                        case "--n" -> n = Integer.parseInt(value);
                        case "--seed" -> seed = Long.parseLong(value);
                        case "--references" -> references = Long.parseLong(value);
                        case "--nics" -> nics = Integer.parseInt(value);
                        case "--plan" -> plan = Path.of(value);
                        default -> throw new IllegalArgumentException("unknown option " + option +
                            "; use --out, --preset, --n, --seed, --references, --nics or --plan");
                    }
                }
                catch (final NumberFormatException ex)
                {
                    throw new IllegalArgumentException(option + " needs a number, got '" + value + "'");
                }
            }
            if (out == null)
            {
                throw new IllegalArgumentException("--out DIR is required: the directory the report is written to");
            }
            if (references < 1000 || nics < 1)
            {
                throw new IllegalArgumentException("--references must be at least 1000 and --nics at least 1");
            }
            return new Options(out, preset, n, seed, references, nics, plan);
        }
    }

    /** Runs from the command line; exits 0, 2 (bad arguments) or 3 (I/O error). */
    public static void main(final String[] args)
    {
        final int code = run(args, System.out, System.err);
        if (code != 0)
        {
            System.exit(code);
        }
    }

    /** Runs the report; returns the exit code. */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        final Options options;
        try
        {
            options = Options.parse(args);
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("nic-cache: " + ex.getMessage());
            return 2;
        }
        final Plan plan;
        try
        {
            plan = options.plan() == null ? null : PlanFile.read(options.plan());
        }
        catch (final GraphFileException ex)
        {
            err.println("nic-cache: " + ex.getMessage());
            return 2;
        }
        if (plan != null && plan.placement() == null)
        {
            err.println("nic-cache: " + options.plan() + " has no placement, so its NICs are unknown; make it with " +
                "topo plan --racks R --hosts-per-rack H --procs-per-host P");
            return 2;
        }
        final int n = plan == null ? options.n() : plan.n();
        if (n < 130)
        {
            err.println("nic-cache: n must be at least 130 so every sweep degree up to 64 exists, got " + n);
            return 2;
        }
        final long startNs = System.nanoTime();
        final ProtocolRates rates = new ProtocolRates(ProtocolRates.DEFAULT.slotsPerSec(),
            ProtocolRates.DEFAULT.heartbeatPeriodNs(), ProtocolRates.DEFAULT.crashedFraction(),
            ProtocolRates.DEFAULT.catchUpReadsPerSec(), options.seed());
        final List<Calibration.Point> calibration = Calibration.points(options.preset());
        final DegreeSweep sweep = new DegreeSweep(n, options.seed(), rates, options.preset().model(),
            options.nics(), options.references());
        final List<SweepRow> rows = sweep.run(DEGREES, PROCS_PER_HOST);
        final List<SweepRow> extended = sweep.doubling(EXTENDED_PROCS_PER_HOST, 2 * DEGREES[DEGREES.length - 1],
            n / 4);
        final List<SweepRow> planRows = plan == null ? List.of() :
            sweep.planAndFullMesh(plan.graph(), plan.placement());
        final String name = options.preset().cliName();
        final String markdown = ReportWriter.markdown(options.preset(), rates, n, calibration, rows,
            PROCS_PER_HOST, EXTENDED_PROCS_PER_HOST, extended) +
            (plan == null ? "" : ReportWriter.planSection(options.plan().toString(), planRows));
        try
        {
            Files.createDirectories(options.out());
            write(options.out().resolve("nic-cache.md"), markdown);
            write(options.out().resolve("nic-cache-miss.svg"),
                ReportWriter.plot(rows, PROCS_PER_HOST, DEGREES, n, true, name));
            write(options.out().resolve("nic-cache-capacity.svg"),
                ReportWriter.plot(rows, PROCS_PER_HOST, DEGREES, n, false, name));
        }
        catch (final IOException ex)
        {
            err.println("nic-cache: cannot write the report to " + options.out() + ": " + ex.getMessage() +
                "; pass a writable --out directory");
            return 3;
        }
        out.print(markdown);
        out.printf("%nwrote %s (%.1f s)%n", options.out(), (System.nanoTime() - startNs) / 1e9);
        return 0;
    }

    /** Writes through a temporary file and a rename, so a reader never sees half a report. */
    private static void write(final Path path, final String content) throws IOException
    {
        final Path tmp = path.resolveSibling(path.getFileName() + ".tmp");
        Files.writeString(tmp, content, StandardCharsets.UTF_8);
        Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
