package io.mmx.perf.consensus;

import io.mmx.aeron.transport.TransportContext;
import org.HdrHistogram.Histogram;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

/**
 * Closed-loop load on one {@link ReplicatedLog} from one thread: keeps up to {@code inFlight} commands
 * outstanding, records submit-to-commit latency in an HdrHistogram and counts commits per second.
 * <p>
 * A run is a warm-up (same load, nothing recorded), a measured window, then a drain that waits for every
 * outstanding command so the next run starts from an idle log. A latency is recorded only for a command
 * both submitted and committed inside the window, so warm-up backlog does not leak into the percentiles;
 * throughput counts every commit learnt inside the window. With 1 in flight the percentiles are the
 * unloaded commit latency; with a large bound the rate is the sustained throughput.
 * <p>
 * Command ids increase across runs of one driver, so a commit that arrives after its run gave it up as
 * lost is counted as unexpected, not matched to a new command.
 */
public final class LoadDriver
{
    /** Latencies above this are recorded as this: a commit that slow is a stall, reported by max. */
    static final long HIGHEST_TRACKABLE_NS = TimeUnit.SECONDS.toNanos(10);
    private static final long MISSING = Long.MIN_VALUE;

    private final int payloadBytes;
    private final long warmupNs;
    private final long durationNs;
    private final long stallTimeoutNs;
    private final IdleStrategy idleStrategy;
    private final UnsafeBuffer payload;
    private long nextCommandId = 1;

    /**
     * @param payloadBytes     command length, 8..{@link ConsensusBenchmark#MAX_PAYLOAD_BYTES}.
     * @param warmupNs         load before the measured window.
     * @param durationNs       the measured window.
     * @param stallTimeoutNs   a run fails if nothing commits for this long while commands are outstanding.
     * @param idleStrategyName how this thread idles when a pass did no work (TransportContext names).
     */
    public LoadDriver(
        final int payloadBytes,
        final long warmupNs,
        final long durationNs,
        final long stallTimeoutNs,
        final String idleStrategyName)
    {
        if (payloadBytes < Long.BYTES || payloadBytes > ConsensusBenchmark.MAX_PAYLOAD_BYTES)
        {
            throw new IllegalArgumentException("payload must be " + Long.BYTES + ".." +
                ConsensusBenchmark.MAX_PAYLOAD_BYTES + " bytes (the command id takes 8), got " + payloadBytes);
        }
        if (warmupNs < 0 || durationNs <= 0 || stallTimeoutNs <= 0)
        {
            throw new IllegalArgumentException("warm-up must be >= 0 and duration and stall timeout > 0");
        }
        this.payloadBytes = payloadBytes;
        this.warmupNs = warmupNs;
        this.durationNs = durationNs;
        this.stallTimeoutNs = stallTimeoutNs;
        this.idleStrategy = TransportContext.idleStrategy(idleStrategyName);
        this.payload = new UnsafeBuffer(new byte[payloadBytes]);
        // Filler that is not all zeros, so no layer can get away with compressing or skipping it.
        for (int i = Long.BYTES; i < payloadBytes; i++)
        {
            payload.putByte(i, (byte)i);
        }
    }

    /**
     * @param log      a started log.
     * @param inFlight bound on commands outstanding, at least 1.
     * @return what the measured window saw.
     * @throws IllegalStateException if the log commits nothing for the stall timeout.
     */
    public LoadResult run(final ReplicatedLog log, final int inFlight)
    {
        if (inFlight < 1)
        {
            throw new IllegalArgumentException("in-flight bound must be at least 1, got " + inFlight);
        }
        final Run run = new Run(log, inFlight);
        final long startNs = System.nanoTime();
        run.windowStartNs = startNs + warmupNs;
        run.windowEndNs = run.windowStartNs + durationNs;
        run.lastProgressNs = startNs;
        long nowNs = startNs;
        long cpuTicksAtStart = Long.MIN_VALUE;
        while (nowNs < run.windowEndNs)
        {
            int work = submitUpToBound(log, run);
            work += log.poll(run);
            nowNs = System.nanoTime();
            if (cpuTicksAtStart == Long.MIN_VALUE && nowNs >= run.windowStartNs)
            {
                cpuTicksAtStart = cpuTicks(log);
            }
            run.checkProgress(nowNs);
            idleStrategy.idle(work);
        }
        final long cpuTicksAtEnd = cpuTicks(log);
        drain(log, run);
        return new LoadResult(log.name(), log.members(), inFlight, run.histogram, run.windowCommits,
            durationNs / 1e9, run.maxOutstanding, run.sentNsById.size(), run.unexpected,
            cpuTicksAtStart < 0 || cpuTicksAtEnd < 0 ? -1 :
            (cpuTicksAtEnd - cpuTicksAtStart) / (double)io.mmx.perf.idle.ProcFs.TICKS_PER_SECOND, 1);
    }

    /** CPU ticks of this JVM and the log's other processes; negative if one of them could not be read. */
    private static long cpuTicks(final ReplicatedLog log)
    {
        long ticks = io.mmx.perf.idle.ProcFs.cpuTicks(ProcessHandle.current().pid());
        for (final long pid : log.otherPids())
        {
            final long t = io.mmx.perf.idle.ProcFs.cpuTicks(pid);
            if (t < 0 || ticks < 0)
            {
                return -1;
            }
            ticks += t;
        }
        return ticks;
    }

    private int submitUpToBound(final ReplicatedLog log, final Run run)
    {
        int submitted = 0;
        while (run.sentNsById.size() < run.inFlight)
        {
            final long commandId = nextCommandId;
            payload.putLong(0, commandId, ByteOrder.LITTLE_ENDIAN);
            final long sentNs = System.nanoTime();
            if (!log.submit(commandId, payload, 0, payloadBytes))
            {
                break;
            }
            nextCommandId++;
            if (run.sentNsById.isEmpty())
            {
                // Progress is measured from the oldest outstanding command, not from a back-pressured spell.
                run.lastProgressNs = sentNs;
            }
            run.sentNsById.put(commandId, sentNs);
            run.maxOutstanding = Math.max(run.maxOutstanding, run.sentNsById.size());
            submitted++;
        }
        return submitted;
    }

    /** Waits for every outstanding command, up to the stall timeout without progress; leftovers count as lost. */
    private void drain(final ReplicatedLog log, final Run run)
    {
        run.lastProgressNs = System.nanoTime();
        while (!run.sentNsById.isEmpty() && System.nanoTime() - run.lastProgressNs < stallTimeoutNs)
        {
            idleStrategy.idle(log.poll(run));
        }
    }

    /** Bookkeeping of one run; the listener the log reports commits to. */
    private final class Run implements CommitListener
    {
        final ReplicatedLog log;
        final int inFlight;
        final Long2LongHashMap sentNsById;
        final Histogram histogram = new Histogram(HIGHEST_TRACKABLE_NS, 3);
        long windowStartNs;
        long windowEndNs;
        long lastProgressNs;
        long windowCommits;
        long unexpected;
        int maxOutstanding;

        Run(final ReplicatedLog log, final int inFlight)
        {
            this.log = log;
            this.inFlight = inFlight;
            this.sentNsById = new Long2LongHashMap(Math.max(8, inFlight * 2), 0.65f, MISSING);
        }

        @Override
        public void onCommitted(final long commandId)
        {
            final long sentNs = sentNsById.remove(commandId);
            if (sentNs == MISSING)
            {
                unexpected++;
                return;
            }
            final long nowNs = System.nanoTime();
            lastProgressNs = nowNs;
            if (nowNs >= windowStartNs && nowNs < windowEndNs)
            {
                windowCommits++;
                if (sentNs >= windowStartNs)
                {
                    histogram.recordValue(Math.min(nowNs - sentNs, HIGHEST_TRACKABLE_NS));
                }
            }
        }

        void checkProgress(final long nowNs)
        {
            if (!sentNsById.isEmpty() && nowNs - lastProgressNs > stallTimeoutNs)
            {
                throw new IllegalStateException(log.name() + " (n = " + log.members() + ") committed nothing for " +
                    TimeUnit.NANOSECONDS.toMillis(stallTimeoutNs) + " ms with " + sentNsById.size() +
                    " commands outstanding; is a member down or the client disconnected?");
            }
        }
    }
}
