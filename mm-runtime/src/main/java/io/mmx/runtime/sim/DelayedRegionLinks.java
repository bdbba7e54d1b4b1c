package io.mmx.runtime.sim;

import io.mmx.rdma.fabric.CompletionSink;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.OpType;
import io.mmx.rdma.fabric.RegionLink;
import io.mmx.rdma.fabric.RegionLinkFactory;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayDeque;
import java.util.SplittableRandom;

/**
 * Memory operations that take time in virtual time: wraps the links of another factory (in-process
 * regions, where an operation completes at once) and holds each completion back by a latency drawn
 * from a seed, reporting it at the first {@link RegionLink#doWork} on or after it is due. An
 * operation still takes effect at issue; completions of one link stay in issue order, as on one
 * reliable-connected queue pair. A latency above the fabric's timeout makes the operation time out
 * (it took effect all the same).
 */
final class DelayedRegionLinks implements RegionLinkFactory
{
    private final RegionLinkFactory inner;
    private final NanoClock clock;
    private final SplittableRandom random;
    private final long minNs;
    private final long maxNs;
    private double tailProbability;
    private final long tailMaxNs;
    private long delayed;
    /** Off while the hosts are built: formatting a region polls its fabric without moving the clock. */
    private boolean started;

    /**
     * @param tailProbability probability that an operation is slow, up to {@code tailMaxNs}.
     */
    DelayedRegionLinks(final RegionLinkFactory inner, final NanoClock clock, final long seed, final long minNs,
        final long maxNs, final double tailProbability, final long tailMaxNs)
    {
        this.inner = inner;
        this.clock = clock;
        this.random = new SplittableRandom(seed);
        this.minNs = minNs;
        this.maxNs = Math.max(minNs, maxNs);
        this.tailProbability = tailProbability;
        this.tailMaxNs = Math.max(1, tailMaxNs);
    }

    @Override
    public RegionLink open(final int self, final int owner)
    {
        return new Link(inner.open(self, owner));
    }

    /** From now on completions are held back. */
    void start()
    {
        started = true;
    }

    /**
     * Off while a host switching to a new era is built (its regions are formatted, without the
     * clock moving), on again after.
     */
    void building(final boolean building)
    {
        started = !building;
    }

    /** No more slow operations from now on (ordinary latencies stay): the faults healed. */
    void heal()
    {
        tailProbability = 0;
    }

    /** @return completions that passed through these links (held back from start() on). */
    long delayed()
    {
        return delayed;
    }

    private long latencyNs()
    {
        if (!started)
        {
            return 0;
        }
        final long base = minNs + random.nextLong(maxNs - minNs + 1);
        return random.nextDouble() < tailProbability ? base + random.nextLong(tailMaxNs) : base;
    }

    /** One completion waiting for its time. */
    private record Done(long dueNs, long correlationId, OpStatus status, long value, DirectBuffer payload)
    {
    }

    private final class Link implements RegionLink
    {
        private final RegionLink link;
        private final ArrayDeque<Done> waiting = new ArrayDeque<>();
        private long lastDueNs;
        /** Takes the inner link's completions, due after their latency. */
        private final CompletionSink hold = (correlationId, status, value, payload, payloadOffset) ->
        {
            final DirectBuffer copy = payload == null ? null : copy(payload, payloadOffset);
            lastDueNs = Math.max(lastDueNs, clock.nanoTime() + latencyNs());
            waiting.addLast(new Done(lastDueNs, correlationId, status, value, copy));
            delayed++;
        };

        Link(final RegionLink link)
        {
            this.link = link;
        }

        private DirectBuffer copy(final DirectBuffer payload, final int offset)
        {
            final byte[] bytes = new byte[payload.capacity() - offset];
            payload.getBytes(offset, bytes);
            return new UnsafeBuffer(bytes);
        }

        @Override
        public int owner()
        {
            return link.owner();
        }

        @Override
        public OpStatus state()
        {
            return link.state();
        }

        @Override
        public String stateMessage()
        {
            return link.stateMessage();
        }

        @Override
        public void submit(final long correlationId, final OpType type, final long offset, final long operand1,
            final long operand2, final MutableDirectBuffer dst, final DirectBuffer src, final int bufOffset,
            final int length, final CompletionSink sink)
        {
            link.submit(correlationId, type, offset, operand1, operand2, dst, src, bufOffset, length, hold);
        }

        @Override
        public int doWork(final CompletionSink sink)
        {
            link.doWork(hold);
            final long nowNs = clock.nanoTime();
            int work = 0;
            while (!waiting.isEmpty() && waiting.peekFirst().dueNs() <= nowNs)
            {
                final Done d = waiting.pollFirst();
                sink.complete(d.correlationId(), d.status(), d.value(), d.payload(), 0);
                work++;
            }
            return work;
        }

        @Override
        public void close()
        {
            waiting.clear();
            link.close();
        }
    }
}
