package io.mmx.runtime.core;

/**
 * How long a leader waits for a quorum before it broadcasts an Accept group again, learnt as TCP
 * learns its retransmission timeout (Jacobson/Karels, RFC 6298) from the ticks between a group's
 * broadcast and its quorum: the smoothed latency plus four times its mean deviation, at least
 * {@link CoreConfig#retransmitTicks()} and at most {@link CoreConfig#retransmitMaxTicks()}.
 * <p>
 * Karn's rule: a group sent more than once gives no sample (its quorum may have come from any
 * copy), and a timeout that fired stays doubled for the groups opened after it until a group sent
 * once is decided. Without the second half the samples would be only the groups decided within the
 * timeout, and a latency that rose above it would never be learnt.
 * <p>
 * Each term learns afresh ({@link #reset()}): a new leader's latencies are not its predecessor's,
 * whose slowness was often the failure that ended its term, so its first groups wait the floor,
 * as they did with a fixed period. Ticks only: no clock is read here.
 */
final class RetransmitTimer
{
    /** Longest wait between two broadcasts of one group: the timeout times 2^this. */
    static final int MAX_BACKOFF_SHIFT = 3;

    private final int floorTicks;
    private final int capTicks;
    /** Smoothed latency in eighths of a tick and four times the mean deviation in quarters (RFC 6298's gains, exact in integers). */
    private long srttEighths;
    private long rttvarQuarters;
    private boolean sampled;
    /** Karn's retained backoff: timeouts since the last sample, at most {@link #MAX_BACKOFF_SHIFT}. */
    private int backoffShift;
    private long samples;

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
        backoffShift = 0;
        samples++;
    }

    /** A group waited its timeout and went out again. */
    void timedOut()
    {
        backoffShift = Math.min(backoffShift + 1, MAX_BACKOFF_SHIFT);
    }

    /** A new term: forget what the last one learnt. */
    void reset()
    {
        sampled = false;
        srttEighths = 0;
        rttvarQuarters = 0;
        backoffShift = 0;
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

    /** How long a group broadcast {@code resends} times already waits before its next broadcast. */
    long waitTicks(final int resends)
    {
        return timeoutTicks() << Math.min(Math.max(resends, backoffShift), MAX_BACKOFF_SHIFT);
    }

    /** Latency samples taken (groups decided that were sent once), over all terms. */
    long samples()
    {
        return samples;
    }
}
