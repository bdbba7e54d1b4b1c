package io.mmx.runtime.core;

import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The relay answers from what it last computed until a report comes or a reporter ages out; every
 * answer must equal the walk over all processes it replaces, and the prefix it keeps as reports
 * come ({@link DurableRelay#replicated}) the k-th highest reported. Seed: {@code -Dmmx.relay.seed=...}.
 */
class DurableRelayTest
{
    private static final long SEED = Long.getLong("mmx.relay.seed", 20261124L);

    @Test
    void everyAnswerEqualsAFullWalk()
    {
        System.out.println("DurableRelayTest seed " + SEED + " (replay: -Dmmx.relay.seed=" + SEED + ")");
        final SplittableRandom random = new SplittableRandom(SEED);
        for (int run = 0; run < 200; run++)
        {
            final int n = 3 + random.nextInt(40);
            final CoreConfig config = new CoreConfig().graph(Graph.empty(n)).heartbeatTicks(1 + random.nextInt(5))
                .reclaimReplicas(1 + random.nextInt(Math.min(n, 4))).conclude();
            final DurableRelay relay = new DurableRelay(config);
            final long[] durable = new long[n];
            final long[] heard = new long[n];
            Arrays.fill(durable, -1L);
            Arrays.fill(heard, Long.MIN_VALUE / 2);
            long tick = 0;
            for (int step = 0; step < 400; step++)
            {
                // Bursts of reports, then quiet stretches long enough for every reporter to age out.
                tick += random.nextInt(10) == 0 ? random.nextInt(8 * config.heartbeatTicks()) : random.nextInt(2);
                final int reports = random.nextInt(3) == 0 ? random.nextInt(4) : 0;
                for (int r = 0; r < reports; r++)
                {
                    final int p = random.nextInt(n);
                    final long d = random.nextInt(50);
                    relay.heard(p, d, tick);
                    durable[p] = Math.max(durable[p], d);
                    heard[p] = tick;
                }
                assertEquals(walk(config, durable, heard, tick), relay.relayed(tick),
                    "seed " + SEED + ", run " + run + ", step " + step + ", tick " + tick);
                // What a leader takes from each report at once: the k-th highest prefix reported.
                assertEquals(kth(config, durable), relay.replicated(),
                    "seed " + SEED + ", run " + run + ", step " + step + ", replicated");
            }
        }
    }

    /** The {@code reclaimReplicas}-th highest durable prefix of all processes (-1 while fewer reported). */
    private static long kth(final CoreConfig config, final long[] durable)
    {
        final long[] sorted = durable.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length - config.reclaimReplicas()];
    }

    /** What the relay computed on every call before it kept its answer: the k-th highest durable prefix. */
    private static long walk(final CoreConfig config, final long[] durable, final long[] heard, final long tick)
    {
        final int k = config.reclaimReplicas();
        final long kth = kth(config, durable);
        int reporting = 0;
        long lowest = Long.MAX_VALUE;
        for (int p = 0; p < durable.length; p++)
        {
            if (durable[p] >= 0 && tick - heard[p] <= config.heartbeatTicks() * 4L)
            {
                reporting++;
                lowest = Math.min(lowest, durable[p]);
            }
        }
        return reporting > 0 && reporting < k ? Math.max(kth, lowest) : kth;
    }
}
