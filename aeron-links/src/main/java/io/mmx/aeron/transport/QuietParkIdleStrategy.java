package io.mmx.aeron.transport;

import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;

/**
 * Backs off like Agrona's {@code BackoffIdleStrategy} (spin, yield, then parks that double from
 * {@code minParkNs}) while work keeps coming, but parks longer once the thread has been quiet: up to
 * {@code activeMaxParkNs} within {@code quietAfterNs} of the last work, up to {@code quietMaxParkNs}
 * after. A busy thread never parks; one that works every few milliseconds (a commit at a time)
 * idles as with backoff, so its latency is unchanged; an idle one wakes a few hundred times a
 * second instead of a thousand, and does its periodic work (ticks, heartbeats) then.
 * Not thread-safe: one per agent thread.
 */
public final class QuietParkIdleStrategy implements IdleStrategy
{
    private final int maxSpins;
    private final int maxYields;
    private final long minParkNs;
    private final long activeMaxParkNs;
    private final long quietMaxParkNs;
    private final long quietAfterNs;
    private final NanoClock clock;
    private final LongConsumer parker;
    private int spins;
    private int yields;
    private long parkNs;
    private long lastWorkNs;

    /**
     * @param maxSpins        spins after work before yielding.
     * @param maxYields       yields before parking.
     * @param minParkNs       first park.
     * @param activeMaxParkNs longest park within {@code quietAfterNs} of the last work.
     * @param quietMaxParkNs  longest park after that.
     * @param quietAfterNs    how long without work makes the thread quiet.
     */
    public QuietParkIdleStrategy(final int maxSpins, final int maxYields, final long minParkNs,
        final long activeMaxParkNs, final long quietMaxParkNs, final long quietAfterNs)
    {
        this(maxSpins, maxYields, minParkNs, activeMaxParkNs, quietMaxParkNs, quietAfterNs, new SystemNanoClock(),
            LockSupport::parkNanos);
    }

    /** As above, on a given clock and parking through {@code parker} (tests watch the parks). */
    QuietParkIdleStrategy(final int maxSpins, final int maxYields, final long minParkNs, final long activeMaxParkNs,
        final long quietMaxParkNs, final long quietAfterNs, final NanoClock clock, final LongConsumer parker)
    {
        if (maxSpins < 0 || maxYields < 0 || minParkNs < 1 || activeMaxParkNs < minParkNs ||
            quietMaxParkNs < activeMaxParkNs || quietAfterNs < 0)
        {
            throw new IllegalArgumentException("need spins, yields >= 0 and 1 <= minPark <= activeMaxPark <= " +
                "quietMaxPark, quietAfter >= 0; got " + maxSpins + ", " + maxYields + ", " + minParkNs + ", " +
                activeMaxParkNs + ", " + quietMaxParkNs + ", " + quietAfterNs);
        }
        this.maxSpins = maxSpins;
        this.maxYields = maxYields;
        this.minParkNs = minParkNs;
        this.activeMaxParkNs = activeMaxParkNs;
        this.quietMaxParkNs = quietMaxParkNs;
        this.quietAfterNs = quietAfterNs;
        this.clock = clock;
        this.parker = parker;
        this.lastWorkNs = clock.nanoTime();
        reset();
    }

    @Override
    public void idle(final int workCount)
    {
        if (workCount > 0)
        {
            lastWorkNs = clock.nanoTime();
            reset();
        }
        else
        {
            idle();
        }
    }

    @Override
    public void idle()
    {
        if (spins < maxSpins)
        {
            spins++;
            Thread.onSpinWait();
        }
        else if (yields < maxYields)
        {
            yields++;
            Thread.yield();
        }
        else
        {
            parker.accept(parkNs);
            final long maxParkNs = clock.nanoTime() - lastWorkNs >= quietAfterNs ? quietMaxParkNs : activeMaxParkNs;
            parkNs = Math.min(parkNs << 1, maxParkNs);
        }
    }

    @Override
    public void reset()
    {
        spins = 0;
        yields = 0;
        parkNs = minParkNs;
    }

    @Override
    public String alias()
    {
        return "park";
    }
}
