package io.mmx.runtime.cli;

import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanFile;
import io.mmx.runtime.local.LocalCluster;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code mmx local}: a cluster on this machine, one child JVM per group of processes, running until
 * interrupted; {@code mmx status --cluster DIR} shows it.
 */
@Command(name = "local", mixinStandardHelpOptions = true,
    description = {
        "Starts a cluster on this machine: plans it (or takes --plan), writes a cluster key, and runs " +
        "one JVM per --procs-per-jvm processes on loopback with shm regions. Ctrl-C stops it."})
final class LocalCommand implements Callable<Integer>
{
    @CommandLine.Mixin
    ClusterShapeOptions shape = new ClusterShapeOptions();

    @Option(names = "--plan", paramLabel = "PLAN", description = "use this plan instead of planning one")
    Path plan;

    @Option(names = "--dir", paramLabel = "DIR", defaultValue = "mmx-local", description = "cluster directory (default ${DEFAULT-VALUE})")
    Path dir;

    @Option(names = "--force", description = "replace the cluster in --dir if one is there (its key, plan and logs " +
        "are deleted); without it an existing cluster directory is refused")
    boolean force;

    @Option(names = "--jvm-heap", paramLabel = "SIZE", description = "heap of each child JVM (default: 192m and 6m " +
        "per process it hosts beyond the first)")
    String heap;

    @Override
    public Integer call() throws Exception
    {
        final Plan p = plan != null ? PlanFile.readSealed(plan) : shape.plan(System.out);
        final int perJvm = shape.procsPerJvm(p.n());
        final List<String> jvmOptions = new java.util.ArrayList<>(LocalCluster.childJvmOptions(p.n(), perJvm,
            Runtime.getRuntime().availableProcessors()));
        if (heap != null)
        {
            jvmOptions.set(0, "-Xmx" + heap); // the heap comes first
        }
        try (LocalCluster cluster = LocalCluster.create(dir, p, perJvm, jvmOptions,
            force ? LocalCluster.Existing.REPLACE : LocalCluster.Existing.REFUSE))
        {
            System.out.printf("starting %d JVMs of %d processes in %s%n", cluster.layout().jvms(), perJvm, dir);
            for (int j = 0; j < cluster.layout().jvms(); j++)
            {
                cluster.start(j);
            }
            for (int j = 0; j < cluster.layout().jvms(); j++)
            {
                cluster.awaitReady(j, Duration.ofSeconds(60));
            }
            System.out.printf("cluster up: 'bin/mmx status --cluster %s' shows it; logs in %s/logs; Ctrl-C stops it%n",
                dir, dir);
            Thread.currentThread().join(); // until Ctrl-C: the cluster's own shutdown hook stops and removes it
        }
        return MmxCommand.OK;
    }
}
