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
    private final long[] topDurable;
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
    }

    /** Process {@code process} reported its log durable through {@code durableThrough}. */
    void heard(final int process, final long durableThrough, final long nowTicks)
    {
        durableOf[process] = Math.max(durableOf[process], durableThrough);
        durableHeardTick[process] = nowTicks;
        dirty = true;
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
        java.util.Arrays.fill(topDurable, -1L);
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
            if (d > topDurable[k - 1])
            {
                int i = k - 1;
                while (i > 0 && topDurable[i - 1] < d)
                {
                    topDurable[i] = topDurable[i - 1];
                    i--;
                }
                topDurable[i] = d;
            }
        }
        lastRelayed = reporting > 0 && reporting < k ? Math.max(topDurable[k - 1], lowestReporting) :
            topDurable[k - 1];
        return lastRelayed;
    }
}
