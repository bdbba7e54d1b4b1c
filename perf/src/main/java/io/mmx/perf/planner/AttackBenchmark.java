package io.mmx.perf.planner;

import io.mmx.planner.generate.RandomRegularGenerator;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.spectral.Lanczos;
import io.mmx.planner.tolerance.AttackResult;
import io.mmx.planner.tolerance.AttackSearch;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BiFunction;

/**
 * The attack's witness at a wall-clock budget, as {@code topo plan} runs it: for each graph the
 * planner draws from seeds 1..5 (n = 4096, degree 8), the witness |S| of {@link AttackSearch}
 * against the previous search ({@link AttackSearch#withoutRecombination}) run in the same process
 * right before it with the same budget, as ratios. Each row also gives the CPU time the process
 * used during the search and the load average, because under load a wall-clock budget buys less
 * CPU; re-measure on an idle machine to see what the two-core target gives, or pass {@code --cpu}
 * to count the budget in each worker thread's CPU time ({@link AttackSearch#onThreadCpuTime}), which
 * is what two idle cores give in that wall time, whatever else the machine runs. Usage:
 * {@code bin/perf attack [--budget-ms 10000] [--cpu] [--seeds 1,2,3,4,5] [--runs 1] [--n 4096] [--degree 8] [--out FILE]}.
 */
public final class AttackBenchmark
{
    /** The best witness known for random 8-regular graphs at n = 4096. */
    static final int BEST_KNOWN = 664;
    /** Within 1% of the best known. */
    static final int TARGET = (int)Math.ceil(BEST_KNOWN * 0.99);

    private AttackBenchmark()
    {
    }

    /** One search: the witness size, wall and process CPU milliseconds, and the 1-minute load average after it. */
    record Measured(int witness, long wallMillis, long cpuMillis, double load)
    {
    }

    /** Both searches on one graph. */
    record Row(long seed, int run, Measured baseline, Measured search)
    {
    }

    /** Runs the measurement the class comment describes, with {@code args} as its options. */
    public static void main(final String[] args) throws Exception
    {
        long budgetMillis = 10_000;
        List<Long> seeds = List.of(1L, 2L, 3L, 4L, 5L);
        int runs = 1;
        int n = 4096;
        int degree = 8;
        Path out = Path.of("target", "perf", "attack.md");
        boolean cpu = false;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--budget-ms" -> budgetMillis = Long.parseLong(args[++i]);
                case "--seeds" -> seeds = java.util.Arrays.stream(args[++i].split(",")).map(Long::parseLong).toList();
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--n" -> n = Integer.parseInt(args[++i]);
                case "--degree" -> degree = Integer.parseInt(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--cpu" -> cpu = true;
                default -> throw new IllegalArgumentException("unknown option " + args[i] +
                    "; use --budget-ms MS, --cpu, --seeds 1,2,3, --runs R, --n N, --degree D or --out FILE");
            }
        }
        final double loadBefore = load();
        final List<Row> rows = new ArrayList<>();
        for (final long seed : seeds)
        {
            final Graph graph = new RandomRegularGenerator().draw(n, degree, seed).graph();
            final double[] sweep = new Lanczos(seed).run(graph).lambda2Vector();
            for (int run = 1; run <= runs; run++)
            {
                final long searchSeed = seed + 1000L * (run - 1);
                final long budget = budgetMillis;
                final boolean onCpu = cpu;
                final Measured baseline = measure(graph, sweep,
                    (s, b) -> clock(AttackSearch.withoutRecombination(s, b), onCpu), searchSeed, budget);
                final Measured search = measure(graph, sweep, (s, b) -> clock(new AttackSearch(s, b), onCpu), searchSeed,
                    budget);
                final Row row = new Row(seed, run, baseline, search);
                System.out.println(line(row));
                rows.add(row);
            }
        }
        final String report = report(rows, n, degree, budgetMillis, cpu, loadBefore, Runtime.getRuntime().availableProcessors());
        System.out.println(report);
        if (out.getParent() != null)
        {
            Files.createDirectories(out.getParent());
        }
        Files.writeString(out, report);
        System.out.println("written to " + out);
    }

    private static Measured measure(final Graph graph, final double[] sweep,
        final BiFunction<Long, Long, AttackSearch> search, final long seed, final long budgetMillis)
    {
        final long cpu0 = processCpuNanos();
        final long wall0 = System.nanoTime();
        final AttackResult result = search.apply(seed, budgetMillis).search(graph, graph.n() / 2, sweep);
        final long wall = (System.nanoTime() - wall0) / 1_000_000L;
        final long cpu = (processCpuNanos() - cpu0) / 1_000_000L;
        return new Measured(result.witness().length, wall, cpu, load());
    }

    private static AttackSearch clock(final AttackSearch search, final boolean threadCpu)
    {
        return threadCpu ? search.onThreadCpuTime() : search;
    }

    private static long processCpuNanos()
    {
        return ((com.sun.management.OperatingSystemMXBean)ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static double load()
    {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static String line(final Row row)
    {
        return String.format(Locale.ROOT, "seed %d run %d: previous %d (%.1f s CPU), now %d (%.1f s CPU), load %.1f",
            row.seed(), row.run(), row.baseline().witness(), row.baseline().cpuMillis() / 1000.0,
            row.search().witness(), row.search().cpuMillis() / 1000.0, row.search().load());
    }

    static String report(final List<Row> rows, final int n, final int degree, final long budgetMillis,
        final boolean cpu, final double loadBefore, final int cores)
    {
        final StringBuilder md = new StringBuilder();
        md.append(cpu ? "# Planner attack: witness at a CPU-time budget\n\n" : "# Planner attack: witness at a wall-clock budget\n\n");
        md.append(String.format(Locale.ROOT, "n = %d, degree %d, graphs as `topo plan --seed S` draws them, threshold n/2, " +
            "%.1f s %s budget per search, %d cores, load average %.1f at the start. Baseline: the search without " +
            "recombination (`AttackSearch.withoutRecombination`), run right before on the same graph with the same budget. " +
            "Witness |S| is the live set found (attack f = n - 1 - |S|); larger is better. Target: |S| >= %d " +
            "(within 1%% of %d, the best known at n = 4096, degree 8). CPU is the process's CPU time during the search.%n%n",
            n, degree, budgetMillis / 1000.0, cpu ? "CPU-time (each worker thread's own, as on idle cores)" : "wall-clock",
            cores, loadBefore, TARGET, BEST_KNOWN));
        md.append("| seed | run | baseline \\|S\\| | baseline CPU s | \\|S\\| | CPU s | ratio | target | load |\n")
            .append("|---:|---:|---:|---:|---:|---:|---:|---|---:|\n");
        int met = 0;
        double ratioSum = 0;
        for (final Row row : rows)
        {
            final double ratio = row.search().witness() / (double)row.baseline().witness();
            final boolean ok = row.search().witness() >= TARGET;
            met += ok ? 1 : 0;
            ratioSum += ratio;
            md.append(String.format(Locale.ROOT, "| %d | %d | %d | %.1f | %d | %.1f | %.4f | %s | %.1f |%n",
                row.seed(), row.run(), row.baseline().witness(), row.baseline().cpuMillis() / 1000.0,
                row.search().witness(), row.search().cpuMillis() / 1000.0, ratio, ok ? "yes" : "NO", row.search().load()));
        }
        md.append(String.format(Locale.ROOT, "%nMean ratio %.4f; target met in %d of %d searches.%n",
            rows.isEmpty() ? 0.0 : ratioSum / rows.size(), met, rows.size()));
        return md.toString();
    }
}
