package io.mmx.runtime.core;

import io.mmx.planner.generate.RandomRegularGenerator;
import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What a process that never leads costs: thousands of them share one simulation or one host. Its
 * core holds nothing that grows with n (a table of n in each would be n² in all), and nothing only a
 * leader uses (the proposal queue, the decided ring: allocated when it first leads), and its record
 * scratch and records grow to what they hold instead of starting at the record capacity.
 */
class CoreFootprintTest
{
    private static final int CORES = 32;

    /** Bytes this thread allocates to build {@link #CORES} cores of an n-process degree-8 cluster, per core. */
    private static long bytesPerCore(final int n)
    {
        final Graph graph = new RandomRegularGenerator().generate(n, 8, 42);
        final CoreConfig config = new CoreConfig().graph(graph).conclude();
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
            "this JVM does not count the bytes a thread allocates (ThreadMXBean.getCurrentThreadAllocatedBytes)");
        final MmPaxosCore[] cores = new MmPaxosCore[CORES];
        final long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < CORES; i++)
        {
            cores[i] = new MmPaxosCore(i, config, new IgnoringEffects(), i + 1);
        }
        final long bytes = (threads.getCurrentThreadAllocatedBytes() - before) / CORES;
        assertTrue(cores[CORES - 1].id() == CORES - 1);
        return bytes;
    }

    @Test
    void aCoreThatNeverLedHoldsNothingThatGrowsWithTheClusterSize()
    {
        bytesPerCore(64); // loads and initialises the classes, so neither measurement counts them
        final long small = bytesPerCore(512);
        final long large = bytesPerCore(4096);
        System.out.println("CoreFootprintTest: " + small + " bytes per core at n = 512, " + large + " at n = 4096");
        // One array of n ints in every core would add 14 KB between the two sizes; allow a tenth of that.
        assertTrue(large - small < 1_500, "a core at n = 4096 allocates " + large + " bytes, at n = 512 " + small +
            ": something in every process grows with n");
        // About 24 KB with the defaults; 42 KB when every core carried the leader's queue and ring and
        // a scratch of the record capacity.
        assertTrue(large < 32 * 1024, "a core that never led allocates " + large + " bytes at the defaults");
    }
}
