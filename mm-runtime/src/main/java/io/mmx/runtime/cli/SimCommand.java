package io.mmx.runtime.cli;

import io.mmx.runtime.core.Flaw;
import io.mmx.runtime.node.ReplicaFlaw;
import io.mmx.runtime.sim.FaultPlan;
import io.mmx.runtime.sim.HostSimulation;
import io.mmx.runtime.sim.SeedSweep;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code mmx sim}: a long deterministic-simulation sweep, one seed after another, every checker
 * on. Prints each failing seed with the command that replays it; the last line sums up.
 */
@Command(
    name = "sim",
    mixinStandardHelpOptions = true,
    description = {
        "Sweeps simulator seeds: each draws a cluster, faults and a schedule; safety is checked on every " +
        "event, then the cluster heals and must commit again (or, below the tolerance line, say it is " +
        "blocked).",
        "Last line: 'sim: S seeds, V safety violations, L liveness failures, R seeds/s'. Exit 0 when V = " +
        "L = 0, 1 otherwise, 2 on bad arguments. With --variant, a deliberately broken protocol runs, " +
        "and the first seed that catches it is reported (exit 0 if one does).",
        "With --host, each seed runs the node's own hosts instead (HostSimulation: ProcessHosts of several " +
        "processes, membership, forwarding, the duplicate filter and the replicas, with frame faults, memory " +
        "latency, host crashes and pauses); --variant then also takes the replica variants ${sys:mmx.sim.replicaVariants}."})
public final class SimCommand implements Callable<Integer>
{
    @Option(names = "--seeds", required = true, paramLabel = "FROM-TO", description = "Seeds to run, e.g. 1-100000.")
    String seeds;

    @Option(names = "--n", paramLabel = "N", description = "Every cluster has N processes (default: drawn per seed, 1..24).")
    Integer n;

    @Option(names = "--n-range", paramLabel = "A-B", description = "Cluster sizes drawn in A..B.")
    String nRange;

    @Option(names = "--faults", paramLabel = "all|none|LIST", defaultValue = "all",
        description = "Fault kinds: all, none, or a comma list of: ${sys:mmx.sim.kinds}.")
    String faults;

    @Option(names = "--slots", paramLabel = "K", defaultValue = "20",
        description = "Slots a healed cluster must commit within the liveness bound (default 20).")
    int slots;

    @Option(names = "--variant", paramLabel = "NAME", description = "Run a broken protocol variant: one of ${sys:mmx.sim.variants}.")
    String variant;

    @Option(names = "--every-seed", description = "With --variant: run every seed instead of stopping at the first " +
        "that catches it, and report how many caught it (a catch rate, not only a first catch).")
    boolean everySeed;

    @Option(names = "--host", description = "Run the host simulation (the node's ProcessHosts) instead of the core's.")
    boolean host;

    @Option(names = "--plan-changes", paramLabel = "K", description = "With --host: each run also changes its plan " +
        "live K times during its faults (a new random graph over the same processes each time), and agreement is " +
        "checked across the changes. Default: ${DEFAULT-VALUE}.")
    int planChanges;

    @Option(names = "--plan-change-kinds", paramLabel = "KINDS", description = "With --plan-changes: the kinds " +
        "of change, used in turn (regraph: a new graph over the same processes; replace: every crashed host comes " +
        "back as a new, empty machine; grow: one host more; shrink: the last grown host leaves). Default: each drawn.")
    String planChangeKinds;

    @Option(names = "--durable", description = "With --host: the replicas keep state on disk (a temporary " +
        "directory per run, deleted after it) and fetch peers' snapshots, as nodes with --state-dir do.")
    boolean durable;

    @Option(names = "--verbose", description = "Print a diagnosis of every failing seed.")
    boolean verbose;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    static
    {
        System.setProperty("mmx.sim.kinds", String.join(",", FaultPlan.KINDS));
        System.setProperty("mmx.sim.variants", String.join(",", Arrays.stream(Flaw.values())
            .filter(f -> f != Flaw.NONE).map(Flaw::cliName).toArray(String[]::new)));
        System.setProperty("mmx.sim.replicaVariants", String.join(",", Arrays.stream(ReplicaFlaw.values())
            .filter(f -> f != ReplicaFlaw.NONE).map(ReplicaFlaw::cliName).toArray(String[]::new)));
    }

    @Override
    public Integer call()
    {
        final long[] range = range("--seeds", seeds, 0, Long.MAX_VALUE);
        if (everySeed && variant == null)
        {
            throw bad("--every-seed counts the seeds that catch a variant: give --variant NAME too");
        }
        if ((planChanges != 0 || durable) && !host)
        {
            throw bad((durable ? "--durable" : "--plan-changes") + " needs --host: it applies to the host simulation");
        }
        return host ? sweep(range, hostRunner(), "sim --host", " --host" + hostReplayOptions()) :
            sweep(range, coreRunner(), "sim", replayOptions());
    }

    /** Runs one seed. */
    private interface Runner
    {
        SeedSweep.Outcome run(long seed);
    }

    private Runner coreRunner()
    {
        final SeedSweep.Options options = new SeedSweep.Options();
        if (n != null && nRange != null)
        {
            throw bad("give --n or --n-range, not both");
        }
        if (n != null)
        {
            if (n < 1 || n > 4096)
            {
                throw bad("--n " + n + ": a cluster has 1..4096 processes");
            }
            options.n = n;
        }
        if (nRange != null)
        {
            final long[] r = range("--n-range", nRange, 1, 4096);
            options.minN = (int)r[0];
            options.maxN = (int)r[1];
        }
        if (slots < 1)
        {
            throw bad("--slots " + slots + ": must be at least 1");
        }
        options.livenessSlots = slots;
        options.faults = faultKinds(faults);
        if (variant != null)
        {
            final Flaw flaw = Flaw.byName(variant);
            if (flaw == null || flaw == Flaw.NONE)
            {
                throw bad("--variant '" + variant + "': not a variant; known: " + System.getProperty("mmx.sim.variants"));
            }
            options.flaw = flaw;
        }
        options.verbose = verbose;
        return seed -> SeedSweep.run(seed, options);
    }

    /** {@code --host}: the node's own hosts ({@link HostSimulation}); a variant may be the core's or a replica's. */
    private Runner hostRunner()
    {
        if (nRange != null || !"all".equals(faults) || slots != 20)
        {
            throw bad("--host draws its own shape and faults: --n-range, --faults and --slots do not apply (--n does)");
        }
        final HostSimulation.Options options = new HostSimulation.Options();
        if (planChanges < 0 || planChanges > 8)
        {
            throw bad("--plan-changes " + planChanges + ": give 0..8 changes per run");
        }
        options.planChanges = planChanges;
        if (planChangeKinds != null)
        {
            if (planChanges == 0)
            {
                throw bad("--plan-change-kinds needs --plan-changes K");
            }
            try
            {
                for (final String k : planChangeKinds.split(","))
                {
                    options.planChangeKinds.add(io.mmx.runtime.sim.HostSimulation.changeKind(k.trim()));
                }
            }
            catch (final IllegalArgumentException ex)
            {
                throw bad("--plan-change-kinds: " + ex.getMessage());
            }
        }
        options.durable = durable;
        if (n != null)
        {
            if (n < 2 || n > 256)
            {
                throw bad("--n " + n + " with --host: a host simulation has 2..256 processes");
            }
            options.n = n;
        }
        if (variant != null)
        {
            final Flaw flaw = Flaw.byName(variant);
            final ReplicaFlaw replicaFlaw = ReplicaFlaw.byName(variant);
            if ((flaw == null || flaw == Flaw.NONE) && (replicaFlaw == null || replicaFlaw == ReplicaFlaw.NONE))
            {
                throw bad("--variant '" + variant + "': not a variant; known: " +
                    System.getProperty("mmx.sim.variants") + "," + System.getProperty("mmx.sim.replicaVariants"));
            }
            options.flaw = flaw != null ? flaw : Flaw.NONE;
            options.replicaFlaw = replicaFlaw != null ? replicaFlaw : ReplicaFlaw.NONE;
        }
        options.trace = verbose;
        final PrintWriter out = spec.commandLine().getOut();
        return seed ->
        {
            final HostSimulation sim = new HostSimulation(seed, options);
            final SeedSweep.Outcome o = sim.run();
            if (verbose)
            {
                out.println("seed " + seed + " " + o.verdict() + ": " + sim.description() + "; " + sim.summary());
            }
            return o;
        };
    }

    /** A variant's description, whichever catalogue names it. */
    private String variantDescription()
    {
        final Flaw flaw = Flaw.byName(variant);
        return flaw != null ? flaw.description() : ReplicaFlaw.byName(variant).description();
    }

    private int sweep(final long[] range, final Runner runner, final String name, final String replay)
    {
        final PrintWriter out = spec.commandLine().getOut();
        final long t0 = System.nanoTime();
        long count = 0;
        long safety = 0;
        long liveness = 0;
        long caughtBy = -1;
        long catches = 0;
        for (long seed = range[0]; seed <= range[1]; seed++)
        {
            final SeedSweep.Outcome o = runner.run(seed);
            count++;
            if (o.verdict() != SeedSweep.Verdict.OK)
            {
                if (o.verdict() == SeedSweep.Verdict.SAFETY)
                {
                    safety++;
                }
                else
                {
                    liveness++;
                }
                out.println(o.verdict() + " " + o.description());
                out.println("  replay: bin/mmx sim --seeds " + seed + "-" + seed + replay);
                out.flush();
                if (variant != null)
                {
                    caughtBy = caughtBy < 0 ? seed : caughtBy;
                    catches++;
                    if (!everySeed)
                    {
                        break;
                    }
                }
            }
            if (seed == Long.MAX_VALUE)
            {
                break;
            }
        }
        final double secs = (System.nanoTime() - t0) / 1e9;
        if (variant != null)
        {
            out.println(caughtBy >= 0 ? "variant " + variant + " (" + variantDescription() + "): caught by seed " +
                caughtBy + (everySeed ? " first, by " + catches + " of " + count + " seeds" : " (" + count + " seeds run)") :
                "variant " + variant + ": NOT caught by any of " + count + " seeds");
        }
        out.printf("%s: %d seeds, %d safety violations, %d liveness failures, %.1f seeds/s%n", name, count, safety,
            liveness, count / Math.max(secs, 1e-9));
        out.flush();
        if (variant != null)
        {
            return caughtBy >= 0 ? MmxCommand.OK : MmxCommand.UNHEALTHY;
        }
        return safety == 0 && liveness == 0 ? MmxCommand.OK : MmxCommand.UNHEALTHY;
    }

    private String replayOptions()
    {
        return (n != null ? " --n " + n : "") + (nRange != null ? " --n-range " + nRange : "") +
            ("all".equals(faults) ? "" : " --faults " + faults) + (slots != 20 ? " --slots " + slots : "") +
            (variant != null ? " --variant " + variant : "") + " --verbose";
    }

    private String hostReplayOptions()
    {
        return (n != null ? " --n " + n : "") + (planChanges > 0 ? " --plan-changes " + planChanges : "") +
            (durable ? " --durable" : "") + (planChangeKinds != null ? " --plan-change-kinds " + planChangeKinds : "") +
            (variant != null ? " --variant " + variant : "") + " --verbose";
    }

    private Set<String> faultKinds(final String spec)
    {
        if ("all".equals(spec))
        {
            return null;
        }
        final Set<String> kinds = new LinkedHashSet<>();
        if ("none".equals(spec))
        {
            return kinds;
        }
        for (final String k : spec.split(","))
        {
            final String kind = k.trim();
            if (!FaultPlan.KINDS.contains(kind))
            {
                throw bad("--faults '" + spec + "': '" + kind + "' is not a fault kind; use all, none, or some of " +
                    String.join(",", FaultPlan.KINDS));
            }
            kinds.add(kind);
        }
        return kinds;
    }

    private long[] range(final String option, final String spec, final long min, final long max)
    {
        final int dash = spec.indexOf('-', 1);
        try
        {
            final long a = Long.parseLong(dash < 0 ? spec.trim() : spec.substring(0, dash).trim());
            final long b = dash < 0 ? a : Long.parseLong(spec.substring(dash + 1).trim());
            if (a < min || b < a || b > max)
            {
                throw new NumberFormatException();
            }
            return new long[] {a, b};
        }
        catch (final NumberFormatException ex)
        {
            throw bad(option + " '" + spec + "': expected FROM-TO with " + min + " <= FROM <= TO <= " + max);
        }
    }

    private CommandLine.ParameterException bad(final String message)
    {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}
