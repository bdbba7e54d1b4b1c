package io.mmx.runtime.core;

/**
 * What a leader relays about the decided logs: each process's durable decided prefix as its
 * Accepted bundles reported it (facts, whatever the ballot), reduced to the prefix enough logs
 * hold. The leader's learner takes it as the durable floor its Accepts carry, so acceptor windows
 * drain even while some learners (the leader's included) lag, and no decided value lives in fewer
 * than {@code reclaimReplicas} logs.
 */
final class DurableRelay
{
    private final int n;
    private final CoreConfig config;
    private final long[] durableOf;
    /** When each process last reported its durable prefix (ticks). */
    private final long[] durableHeardTick;
    /** The {@code reclaimReplicas} highest durable prefixes, highest first, kept as reports come. */
    private final long[] topDurable;
    /** Who reported each of {@link #topDurable} (-1: nobody yet). */
    private final int[] topProcess;
    /** {@link #relayed} as last computed; it holds until a report comes or a reporter goes stale. */
    private long lastRelayed = -1L;
    private boolean dirty = true;
    /** The first tick at which a process counted as reporting in the last computation no longer does. */
    private long nextStaleTick = Long.MAX_VALUE;

    DurableRelay(final CoreConfig config)
    {
        this.n = config.n();
        this.config = config;
        this.durableOf = new long[n];
        java.util.Arrays.fill(durableOf, -1L);
        this.durableHeardTick = new long[n];
        java.util.Arrays.fill(durableHeardTick, Long.MIN_VALUE / 2);
        this.topDurable = new long[config.reclaimReplicas()];
        java.util.Arrays.fill(topDurable, -1L);
        this.topProcess = new int[config.reclaimReplicas()];
        java.util.Arrays.fill(topProcess, -1);
    }

    /** Process {@code process} reported its log durable through {@code durableThrough}. */
    void heard(final int process, final long durableThrough, final long nowTicks)
    {
        if (durableThrough > durableOf[process])
        {
            durableOf[process] = durableThrough;
            rank(process, durableThrough);
        }
        durableHeardTick[process] = nowTicks;
        dirty = true;
    }

    /**
     * Keeps {@link #topDurable} the highest prefixes as one report raises one: prefixes only rise,
     * so a process leaves the top only when others pass it, and no walk over all n is needed.
     */
    private void rank(final int process, final long durable)
    {
        final int k = topDurable.length;
        int i = 0;
        while (i < k && topProcess[i] != process)
        {
            i++;
        }
        if (i == k)
        {
            if (durable <= topDurable[k - 1])
            {
                return;
            }
            i = k - 1;
            topProcess[i] = process;
        }
        topDurable[i] = durable;
        while (i > 0 && topDurable[i - 1] < topDurable[i])
        {
            final long d = topDurable[i - 1];
            final int p = topProcess[i - 1];
            topDurable[i - 1] = topDurable[i];
            topProcess[i - 1] = topProcess[i];
            topDurable[i] = d;
            topProcess[i] = p;
            i--;
        }
    }

    /**
     * The prefix {@code reclaimReplicas} processes have reported logged, as of the last report: no
     * higher than {@link #relayed} (which also covers clusters with fewer reporters), and read
     * without a walk, so a leader can take every report's news at once.
     */
    long replicated()
    {
        return topDurable[topDurable.length - 1];
    }

    /**
     * The prefix that at least {@code reclaimReplicas} processes have logged, or, while fewer than
     * that report at all (the others crashed: their logs stand still), the prefix that every
     * process still reporting has logged. Without the second rule a cluster running on fewer live
     * processes than {@code reclaimReplicas} never raises acceptor floors, and its windows stay
     * full (a wedge above the tolerance line). Safety needs only "decided" (I5).
     */
    long relayed(final long nowTicks)
    {
        // Walking all n processes every tick is what an idle leader of thousands spent its ticks on;
        // the answer changes only with a report or when a reporter's last report ages out.
        if (!dirty && nowTicks < nextStaleTick)
        {
            return lastRelayed;
        }
        dirty = false;
        final long window = config.heartbeatTicks() * 4L;
        nextStaleTick = Long.MAX_VALUE;
        final int k = topDurable.length;
        int reporting = 0;
        long lowestReporting = Long.MAX_VALUE;
        for (int p = 0; p < n; p++)
        {
            final long d = durableOf[p];
            if (d >= 0 && nowTicks - durableHeardTick[p] <= window)
            {
                nextStaleTick = Math.min(nextStaleTick, durableHeardTick[p] + window + 1);
                reporting++;
                lowestReporting = Math.min(lowestReporting, d);
            }
        }
        lastRelayed = reporting > 0 && reporting < k ? Math.max(topDurable[k - 1], lowestReporting) :
            topDurable[k - 1];
        return lastRelayed;
    }
}
