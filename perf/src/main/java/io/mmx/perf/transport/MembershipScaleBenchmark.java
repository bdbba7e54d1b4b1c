package io.mmx.perf.transport;

import io.mmx.membership.sim.MembershipSimulation;

/**
 * Membership message rate per process across cluster sizes, in the deterministic simulation:
 * steady state, then after a 60% crash (leader included), with ticks of 10 ms.
 * Usage: {@code MembershipScaleBenchmark [seed] [sizes...]}, default sizes 64 512 4096.
 */
public final class MembershipScaleBenchmark
{
    private static final double TICKS_PER_SECOND = 100.0;
    private static final int STEADY_TICKS = 400;
    private static final int AFTER_CRASH_TICKS = 1_000;

    private MembershipScaleBenchmark()
    {
    }

    /**
     * @param args seed then sizes.
     */
    public static void main(final String[] args)
    {
        final long seed = args.length > 0 ? Long.parseLong(args[0]) : 42;
        final int[] sizes = args.length > 1 ? new int[args.length - 1] : new int[]{64, 512, 4096};
        for (int i = 1; i < args.length; i++)
        {
            sizes[i - 1] = Integer.parseInt(args[i]);
        }
        System.out.printf("membership scale, seed %d, 1%% loss, 1-2 tick delay, tick = 10 ms%n", seed);
        System.out.printf("%6s %8s %14s %16s %14s %14s %8s%n", "n", "log2 n", "steady msg/s", "after-crash msg/s",
            "max msg/s/p", "agree ticks", "wall s");
        for (final int n : sizes)
        {
            final long startNs = System.nanoTime();
            final MembershipSimulation sim = new MembershipSimulation(new MembershipSimulation.Options()
                .processes(n).seed(seed).lossRate(0.01).delayTicks(1, 2));
            sim.runUntilAgreement(3_000);
            sim.run(100);
            long before = sim.messagesSent();
            final long[] sentBefore = perNode(sim);
            sim.run(STEADY_TICKS);
            final double steady = (sim.messagesSent() - before) / (double)n / STEADY_TICKS * TICKS_PER_SECOND;
            final long[] sentAfter = perNode(sim);
            long maxPerNode = 0;
            for (int p = 0; p < n; p++)
            {
                maxPerNode = Math.max(maxPerNode, sentAfter[p] - sentBefore[p]);
            }
            sim.crashRandom(0.6, sim.agreedLeader());
            before = sim.messagesSent();
            final long crashTick = sim.nowTick();
            final long agree = sim.runUntilAgreement(AFTER_CRASH_TICKS);
            sim.run(AFTER_CRASH_TICKS - (sim.nowTick() - crashTick));
            final double afterCrash = (sim.messagesSent() - before) / (double)sim.liveCount() / AFTER_CRASH_TICKS *
                TICKS_PER_SECOND;
            System.out.printf("%6d %8d %14.1f %16.1f %14.1f %14d %8.1f%n", n, 32 - Integer.numberOfLeadingZeros(n - 1),
                steady, afterCrash, maxPerNode / (double)STEADY_TICKS * TICKS_PER_SECOND, agree,
                (System.nanoTime() - startNs) / 1e9);
        }
    }

    private static long[] perNode(final MembershipSimulation sim)
    {
        final long[] sent = new long[sim.processes()];
        for (int p = 0; p < sent.length; p++)
        {
            sent[p] = sim.node(p).messagesSent();
        }
        return sent;
    }
}
