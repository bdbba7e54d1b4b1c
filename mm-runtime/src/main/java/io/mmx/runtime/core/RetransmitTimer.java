package io.mmx.runtime.core;

/**
 * How long a leader waits for a quorum before it broadcasts an Accept group again, learnt as TCP
 * learns its retransmission timeout (Jacobson/Karels, RFC 6298) from the ticks between a group's
 * broadcast and its quorum: the smoothed latency plus four times its mean deviation, at least
 * {@link CoreConfig#retransmitTicks()} and at most {@link CoreConfig#retransmitMaxTicks()}.
 * <p>
 * Karn's rule: a group sent more than once gives no sample (its quorum may have come from any
 * copy). So only groups decided within the timeout are sampled; the four deviations of headroom let
 * the timeout climb through a spread of latencies, while a latency that jumps wholly above it is
 * not learnt and the leader resends as it did with a fixed period. Karn's other half, keeping a
 * fired timeout doubled for new groups until a sample, was measured and taken out: a timeout here
 * mostly means the thrifty executors left a group short (one of them starved of CPU), which only
 * the broadcast cures, and doubling the next groups' waits stalled runs at n = 256.
 * <p>
 * Each term learns afresh ({@link #reset()}): a new leader's latencies are not its predecessor's,
 * whose slowness was often the failure that ended its term, so its first groups wait the floor,
 * as they did with a fixed period. Ticks only: no clock is read here.
 */
final class RetransmitTimer
{
    /** Most doublings of a group's wait by its resends (the cap bounds the wait first when it is lower). */
    static final int MAX_BACKOFF_SHIFT = 3;

    private final int floorTicks;
    private final int capTicks;
    /**
     * Smoothed latency in eighths of a tick, mean deviation in quarters of a tick (RFC 6298's gains of
     * 1/8 and 1/4, exact in integers); the quarters are also four deviations in ticks, the headroom.
     */
    private long srttEighths;
    private long rttvarQuarters;
    private boolean sampled;

    RetransmitTimer(final CoreConfig config)
    {
        this.floorTicks = config.retransmitTicks();
        this.capTicks = config.retransmitMaxTicks();
    }

    /** A group sent once was decided {@code latencyTicks} after its broadcast. */
    void sample(final long latencyTicks)
    {
        final long r = Math.max(0, latencyTicks);
        if (!sampled)
        {
            srttEighths = r << 3;
            rttvarQuarters = r << 1; // deviation r/2, as RFC 6298 starts it
            sampled = true;
        }
        else
        {
            long m = r - (srttEighths >> 3);
            srttEighths += m;
            m = Math.abs(m) - (rttvarQuarters >> 2);
            rttvarQuarters += m;
        }
    }

    /** A new term: forget what the last one learnt. */
    void reset()
    {
        sampled = false;
        srttEighths = 0;
        rttvarQuarters = 0;
    }

    /** The retransmission timeout: smoothed latency plus four deviations (at least a tick), within the floor and cap. */
    long timeoutTicks()
    {
        if (!sampled)
        {
            return floorTicks;
        }
        final long rto = (srttEighths >> 3) + Math.max(1, rttvarQuarters);
        return Math.max(floorTicks, Math.min(capTicks, rto));
    }

    /**
     * How long a group broadcast {@code resends} times already waits before its next broadcast: the
     * timeout, doubled per resend, never longer than the cap.
     * The cap bounds every wait, not only the timeout: a group the thrifty executors leave without a
     * quorum (one of them starved of CPU) is decided only by its broadcast, and with the backoff
     * above the cap (up to 8 caps, 3.2 s at the node's) such waits stalled whole runs.
     */
    long waitTicks(final int resends)
    {
        return Math.min(capTicks, timeoutTicks() << Math.min(resends, MAX_BACKOFF_SHIFT));
    }
}
