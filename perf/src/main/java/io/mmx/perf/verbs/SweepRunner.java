package io.mmx.perf.verbs;

import io.mmx.planner.graph.Graph;
import io.mmx.rdma.fabric.CompletionHandler;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.OpStatus;
import org.agrona.CloseHelper;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * Measures one cell, on any backend: processes {@code 0 .. procsPerHost-1} of a plan each open
 * their fabric and keep {@code depth} operations in flight, alternating CAS and 8-byte READ over
 * their plan neighbours and their own region (the m&amp;m mix: CAS on head words, reads of
 * heartbeats and records), all from one thread; NIC counters are snapshotted around the timed part.
 */
final class SweepRunner
{
    private static final long OP_TIMEOUT_NS = 1_000_000_000L;

    private SweepRunner()
    {
    }

    static VerbsSweepRow measure(
        final Graph plan,
        final int procsPerHost,
        final int degree,
        final IntFunction<MemoryFabric> open,
        final long durationNs,
        final int depth,
        final NicCounters.Source counters) throws IOException
    {
        final List<MemoryFabric> fabrics = new ArrayList<>();
        try
        {
            int qps = 0;
            final int[][] targets = new int[procsPerHost][];
            for (int self = 0; self < procsPerHost; self++)
            {
                fabrics.add(open.apply(self));
                final int[] neighbours = plan.neighbours(self);
                targets[self] = java.util.Arrays.copyOf(neighbours, neighbours.length + 1);
                targets[self][neighbours.length] = self;
                qps += neighbours.length + 1;
            }
            final long[] done = new long[2];
            // A failed CAS comparison is still an operation the NIC did: completions are counted, not checked.
            final CompletionHandler handler = (id, type, owner, status, value) -> done[status == OpStatus.OK ? 0 : 1]++;
            final int[] next = new int[procsPerHost];
            final Map<String, Long> before = counters.snapshot();
            final long startNs = System.nanoTime();
            long nowNs = startNs;
            long issued = 0;
            while (nowNs - startNs < durationNs)
            {
                for (int p = 0; p < procsPerHost; p++)
                {
                    final MemoryFabric fabric = fabrics.get(p);
                    while (fabric.outstanding() < depth)
                    {
                        final int owner = targets[p][next[p]++ % targets[p].length];
                        final long r = (issued++ & 1) == 0 ? fabric.compareAndSwap(owner, 0, 0, 0, OP_TIMEOUT_NS) :
                            fabric.read(owner, 8, OP_TIMEOUT_NS);
                        if (r < 0)
                        {
                            break;
                        }
                    }
                    fabric.poll(handler, depth);
                }
                nowNs = System.nanoTime();
            }
            final long elapsedNs = nowNs - startNs;
            final Map<String, Long> after = counters.snapshot();
            return new VerbsSweepRow(procsPerHost, degree, qps, done[0], done[1], elapsedNs,
                NicCounters.delta(before, after));
        }
        finally
        {
            CloseHelper.closeAll(fabrics);
        }
    }
}
