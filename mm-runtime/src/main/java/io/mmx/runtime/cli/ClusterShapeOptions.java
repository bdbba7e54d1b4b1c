package io.mmx.runtime.cli;

import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanAnalysis;
import io.mmx.runtime.local.LocalCluster;
import picocli.CommandLine.Option;

import java.io.PrintStream;

/**
 * The options of a local cluster's shape, shared by {@code mmx demo} and {@code mmx local}: how many
 * processes, the plan's degree and seed, and how many processes each JVM hosts.
 */
final class ClusterShapeOptions
{
    @Option(names = "--n", paramLabel = "N", defaultValue = "32", description = "processes (default ${DEFAULT-VALUE})")
    int n;

    @Option(names = "--degree", paramLabel = "D", defaultValue = "4", description = "plan degree (default ${DEFAULT-VALUE})")
    int degree;

    @Option(names = "--procs-per-jvm", paramLabel = "P", description = "processes per JVM (default: by n, 8 JVMs " +
        "up to n = 256, then JVMs of " + LocalCluster.LARGE_CLUSTER_PROCS_PER_JVM + ")")
    Integer procsPerJvm;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "1", description = "planner seed (default ${DEFAULT-VALUE})")
    long seed;

    /** Processes per JVM for a plan of {@code n} processes: as given, else {@link LocalCluster#defaultProcsPerJvm}. */
    int procsPerJvm(final int n)
    {
        if (procsPerJvm != null && (procsPerJvm < 1 || procsPerJvm > n))
        {
            throw new IllegalArgumentException("--procs-per-jvm " + procsPerJvm + " is out of range: give 1.." + n +
                " (at most --n), or leave it out to lay " + n + " processes out by size");
        }
        return procsPerJvm != null ? procsPerJvm : LocalCluster.defaultProcsPerJvm(n);
    }

    /** Heap of each child JVM, in the JVM's syntax: sized by the processes it hosts. */
    String childHeap(final int n)
    {
        return LocalCluster.childHeapMiB(procsPerJvm(n)) + "m";
    }

    /** Plans the cluster and prints what the plan tolerates. */
    Plan plan(final PrintStream out)
    {
        final Plan plan = LocalCluster.plan(n, degree, seed);
        final PlanAnalysis t = plan.analysisResults();
        out.printf("plan      n = %d, degree %d, %s%n", n, degree, plan.contentHash().substring(0, 19) + "...");
        out.printf("tolerance certified f >= %s, %sattack f <= %s; message passing alone: %d%n",
            t.certifiedF(), t.graph().exactF().isEmpty() ? "" : "exact f = " + t.graph().exactF().getAsInt() + ", ",
            t.attackF(), (n + 1) / 2 - 1);
        out.printf("          (f = crashed processes that consensus survives whichever crash; more survive when " +
            "the crashes fall well, as below)%n");
        return plan;
    }
}
