package io.mmx.perf.planner;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The planner's performance claims, measured in one run and written as markdown:
 * generation and generation + certificate at n = 4096 against JGraphT's generator, and
 * {@code topo plan} at n = 1,000,000 under a 4 GiB heap. Usage:
 * {@code bin/perf planner [--out FILE] [--quick] [--million-n N]}.
 */
public final class PlannerPerf
{
    private static final long HEAP_CAP_BYTES = 4L << 30;
    private static final double CERTIFY_TARGET_MS = 300;
    private static final long MILLION_TARGET_MS = 60_000;

    private PlannerPerf()
    {
    }

    /** Runs the measurement the class comment describes, with {@code args} as its options. */
    public static void main(final String[] args) throws Exception
    {
        Path out = Path.of("target", "perf", "planner.md");
        boolean quick = false;
        int millionN = 1_000_000;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--out" -> out = Path.of(args[++i]);
                case "--quick" -> quick = true;
                case "--million-n" -> millionN = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i] +
                    "; use --out FILE, --quick or --million-n N");
            }
        }
        final Map<String, double[]> msPerOp = jmh(quick);
        final String million = millionRun(millionN, quick ? 2_000 : 5_000);
        final String report = report(msPerOp, million, millionN);
        System.out.println(report);
        if (out.getParent() != null)
        {
            Files.createDirectories(out.getParent());
        }
        Files.writeString(out, report);
        System.out.println("written to " + out);
    }

    /** Benchmark name to {median, mean} milliseconds per operation. */
    private static Map<String, double[]> jmh(final boolean quick) throws Exception
    {
        final Options options = new OptionsBuilder()
            .include(PlannerBenchmarks.class.getName())
            .forks(1)
            .warmupIterations(quick ? 2 : 4)
            .warmupTime(TimeValue.seconds(1))
            .measurementIterations(quick ? 3 : 6)
            .measurementTime(TimeValue.seconds(1))
            .timeUnit(TimeUnit.MILLISECONDS)
            .jvmArgsAppend("-Xmx2g")
            .build();
        final Collection<RunResult> results = new Runner(options).run();
        final Map<String, double[]> msPerOp = new HashMap<>();
        for (final RunResult result : results)
        {
            final String label = result.getParams().getBenchmark();
            final var statistics = result.getPrimaryResult().getStatistics();
            msPerOp.put(label.substring(label.lastIndexOf('.') + 1),
                new double[] {statistics.getPercentile(50.0), statistics.getMean()});
        }
        return msPerOp;
    }

    private static String millionRun(final int n, final long attackBudgetMillis) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx" + (HEAP_CAP_BYTES >> 20) + "m", "-XX:+UseParallelGC",
            "-cp", System.getProperty("java.class.path"),
            MillionPlanRun.class.getName(), Integer.toString(n), "8", Long.toString(attackBudgetMillis)));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final StringBuilder output = new StringBuilder();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = reader.readLine()) != null)
            {
                output.append(line).append('\n');
            }
        }
        if (!process.waitFor(10, TimeUnit.MINUTES) || process.exitValue() != 0)
        {
            process.destroyForcibly();
            throw new IllegalStateException("the n = " + n + " plan run failed:\n" + output);
        }
        return output.toString().strip();
    }

    static String report(final Map<String, double[]> ms, final String million, final int millionN)
    {
        final double[] jgrapht = ms.get("jgraphtGenerate");
        final double[] generate = ms.get("mmxGenerate");
        final double[] certify = ms.get("mmxGenerateAndCertify");
        final Map<String, String> fields = new HashMap<>();
        for (final String pair : million.lines().reduce((a, b) -> b).orElse("").split(" "))
        {
            final int eq = pair.indexOf('=');
            if (eq > 0)
            {
                fields.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        final long elapsed = Long.parseLong(fields.getOrDefault("elapsed_ms", "-1"));
        final long peak = Long.parseLong(fields.getOrDefault("peak_heap_bytes", "-1"));
        final StringBuilder md = new StringBuilder();
        md.append("# Planner performance\n\n");
        md.append("JMH sampled time per operation, n = 4096, degree 8, one fork, same run. Baseline: JGraphT ")
            .append("`RandomRegularGraphGenerator` into a `SimpleGraph`. Ratios are to the baseline's median (and mean).\n\n");
        md.append("| benchmark | median ms/op | mean ms/op | ratio (median) | ratio (mean) | target |\n")
            .append("|---|---:|---:|---:|---:|---|\n");
        md.append(String.format(Locale.ROOT, "| JGraphT random regular (baseline) | %.3f | %.3f | 1.000 | 1.000 | |%n",
            jgrapht[0], jgrapht[1]));
        md.append(String.format(Locale.ROOT, "| mmx random regular | %.3f | %.3f | %.4f | %.4f | faster than baseline: %s |%n",
            generate[0], generate[1], generate[0] / jgrapht[0], generate[1] / jgrapht[1],
            generate[0] < jgrapht[0] ? "yes" : "NO"));
        md.append(String.format(Locale.ROOT, "| mmx generate + spectral certificate | %.3f | %.3f | %.4f | %.4f | < %.0f ms: %s |%n",
            certify[0], certify[1], certify[0] / jgrapht[0], certify[1] / jgrapht[1], CERTIFY_TARGET_MS,
            certify[1] < CERTIFY_TARGET_MS ? "yes" : "NO"));
        md.append(String.format(Locale.ROOT, "%n## topo plan --n %d --degree 8%n%n", millionN));
        md.append("One plan as the CLI makes it (generation, full analysis, plan file), in a child JVM with -Xmx4g.\n\n");
        md.append(String.format(Locale.ROOT, "| wall time | peak heap used | heap cap | certified_f | attack_f | plan file |%n" +
            "|---:|---:|---:|---:|---:|---:|%n| %.1f s (target < 60 s: %s) | %.2f GiB | %.0f GiB | %s | %s | %.0f MiB |%n",
            elapsed / 1000.0, elapsed >= 0 && elapsed < MILLION_TARGET_MS ? "yes" : "NO", peak / (double)(1L << 30),
            HEAP_CAP_BYTES / (double)(1L << 30), fields.get("certified_f"), fields.get("attack_f"),
            Long.parseLong(fields.getOrDefault("plan_bytes", "0")) / (double)(1 << 20)));
        return md.toString();
    }
}
