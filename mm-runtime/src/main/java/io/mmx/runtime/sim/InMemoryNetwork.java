package io.mmx.runtime.sim;

import io.mmx.aeron.frame.FrameHeader;
import io.mmx.aeron.transport.FrameHandler;
import io.mmx.runtime.host.HostTransport;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * Frames between hosts in one thread, on a virtual clock, with faults drawn from a seed: every frame
 * between two hosts is delayed by a random time up to {@code maxDelayNs} (so frames overtake each
 * other) and dropped with probability {@code dropRate}; a host's frames to itself (Aeron's IPC) are
 * never lost and arrive in order. A frame leaves only at its sender's {@link HostTransport#flush()},
 * so a host that forgets to flush is heard by no one. A crashed host's frames in flight and all
 * frames to it are lost; a paused host's wait in its inbox. Used by {@link HostSimulation} and by
 * tests that run a few hosts in one thread.
 */
public final class InMemoryNetwork
{
    private final SplittableRandom random;
    private double dropRate;
    private long maxDelayNs;
    private final int maxFrameLengthBytes;
    private int framesPerPoll = Integer.MAX_VALUE;
    private final int[] hostOf;
    private final Endpoint[] endpoints;
    private long nowNs;
    private long sequence;
    private long sent;
    private long dropped;
    private long delivered;

    /** One frame on its way. */
    private static final class Frame
    {
        final long atNs;
        final long sequence;
        final UnsafeBuffer bytes;

        Frame(final long atNs, final long sequence, final UnsafeBuffer bytes)
        {
            this.atNs = atNs;
            this.sequence = sequence;
            this.bytes = bytes;
        }
    }

    /**
     * @param seed       draws every delay and drop.
     * @param hostOf     the host of every process.
     * @param dropRate   probability that a frame between two hosts is lost.
     * @param maxDelayNs longest delay of a frame between two hosts.
     * @param maxFrameLengthBytes the largest frame, header and tag included (the node's transport's).
     */
    public InMemoryNetwork(final long seed, final int[] hostOf, final double dropRate, final long maxDelayNs,
        final int maxFrameLengthBytes)
    {
        this.maxFrameLengthBytes = maxFrameLengthBytes;
        this.random = new SplittableRandom(seed);
        this.hostOf = hostOf.clone();
        this.dropRate = dropRate;
        this.maxDelayNs = maxDelayNs;
        int hosts = 0;
        for (final int h : hostOf)
        {
            hosts = Math.max(hosts, h + 1);
        }
        endpoints = new Endpoint[hosts];
        for (int h = 0; h < hosts; h++)
        {
            endpoints[h] = new Endpoint(h);
        }
    }

    /** Moves the virtual clock: frames due by {@code nowNs} can be polled. */
    public void advanceTo(final long nowNs)
    {
        this.nowNs = nowNs;
    }

    /**
     * Changes the faults from now on (frames in flight keep their delays): a healed network is
     * {@code (0, small delay)}.
     */
    public void faults(final double dropRate, final long maxDelayNs)
    {
        this.dropRate = dropRate;
        this.maxDelayNs = Math.max(1, maxDelayNs);
    }

    /**
     * A poll reads at most this many frames, as Aeron's reads at most a fragment limit per
     * subscription; by default it reads every frame that is due.
     */
    public InMemoryNetwork framesPerPoll(final int framesPerPoll)
    {
        if (framesPerPoll < 1)
        {
            throw new IllegalArgumentException("framesPerPoll must be at least 1, got " + framesPerPoll);
        }
        this.framesPerPoll = framesPerPoll;
        return this;
    }

    /** @return frames due at host {@code host} by now that it has not read yet. */
    public int waiting(final int host)
    {
        int due = 0;
        for (final Frame f : endpoints[host].inbox)
        {
            due += f.atNs <= nowNs ? 1 : 0;
        }
        return due;
    }

    /** Host {@code host} crashed: what waits for it is lost, and so is everything sent to it from now on. */
    public void crash(final int host)
    {
        endpoints[host].crashed = true;
        endpoints[host].inbox.clear();
    }

    /** @return host {@code host}'s transport. */
    public HostTransport endpoint(final int host)
    {
        return endpoints[host];
    }

    /** @return frames flushed, lost and delivered so far. */
    public String countersText()
    {
        return "sent " + sent + ", dropped " + dropped + ", delivered " + delivered;
    }

    private final class Endpoint implements HostTransport
    {
        private final int host;
        private final PriorityQueue<Frame> inbox = new PriorityQueue<>((a, b) -> a.atNs != b.atNs ?
            Long.compare(a.atNs, b.atNs) : Long.compare(a.sequence, b.sequence));
        private final List<UnsafeBuffer> outbox = new ArrayList<>();
        /** Per outbox frame: the one host a frame for all of a host's processes goes to, else -1. */
        private final List<Integer> outboxHost = new ArrayList<>();
        private final FrameHeader header = new FrameHeader();
        private long lastLocalNs;
        private boolean crashed;

        Endpoint(final int host)
        {
            this.host = host;
        }

        @Override
        public int poll(final FrameHandler handler)
        {
            int frames = 0;
            // Only what was due when the poll began: a handler's own sends wait for a later cycle.
            final int limit = Math.min(inbox.size(), framesPerPoll);
            while (frames < limit && !inbox.isEmpty() && inbox.peek().atNs <= nowNs)
            {
                final Frame f = inbox.poll();
                header.wrap(f.bytes, 0);
                delivered++;
                frames++;
                handler.onFrame(header, f.bytes, FrameHeader.HEADER_LENGTH, header.payloadLength());
            }
            return frames;
        }

        @Override
        public boolean send(final int srcProcessId, final int dstProcessId, final int type, final DirectBuffer payload,
            final int offset, final int length)
        {
            if (dstProcessId < 0 || dstProcessId >= hostOf.length || hostOf[srcProcessId] != host ||
                FrameHeader.OVERHEAD_LENGTH + length > maxFrameLengthBytes)
            {
                return false;
            }
            outbox.add(frame(type, srcProcessId, dstProcessId, payload, offset, length));
            outboxHost.add(-1);
            return true;
        }

        @Override
        public boolean sendToHostOf(final int srcProcessId, final int dstProcessId, final int type,
            final DirectBuffer payload, final int offset, final int length)
        {
            if (dstProcessId < 0 || dstProcessId >= hostOf.length || hostOf[srcProcessId] != host ||
                FrameHeader.OVERHEAD_LENGTH + length > maxFrameLengthBytes)
            {
                return false;
            }
            outbox.add(frame(type, srcProcessId, FrameHeader.ALL_LOCAL, payload, offset, length));
            outboxHost.add(hostOf[dstProcessId]);
            return true;
        }

        @Override
        public int broadcast(final int srcProcessId, final int type, final DirectBuffer payload, final int offset,
            final int length)
        {
            if (FrameHeader.OVERHEAD_LENGTH + length > maxFrameLengthBytes)
            {
                return 0;
            }
            outbox.add(frame(type, srcProcessId, FrameHeader.ALL_LOCAL, payload, offset, length));
            outboxHost.add(-1);
            return endpoints.length;
        }

        private UnsafeBuffer frame(final int type, final int src, final int dst, final DirectBuffer payload,
            final int offset, final int length)
        {
            final UnsafeBuffer bytes = new UnsafeBuffer(new byte[FrameHeader.HEADER_LENGTH + length]);
            FrameHeader.write(bytes, 0, type, length, src, dst, 0, 0);
            bytes.putBytes(FrameHeader.HEADER_LENGTH, payload, offset, length);
            return bytes;
        }

        @Override
        public int flush()
        {
            final int count = outbox.size();
            for (int i = 0; i < outbox.size(); i++)
            {
                final UnsafeBuffer bytes = outbox.get(i);
                sent++;
                final int dst = bytes.getInt(FrameHeader.DST_OFFSET, java.nio.ByteOrder.LITTLE_ENDIAN);
                if (outboxHost.get(i) >= 0)
                {
                    deliver(endpoints[outboxHost.get(i)], bytes);
                }
                else if (dst == FrameHeader.ALL_LOCAL)
                {
                    for (final Endpoint e : endpoints)
                    {
                        deliver(e, bytes);
                    }
                }
                else
                {
                    deliver(endpoints[hostOf[dst]], bytes);
                }
            }
            outbox.clear();
            outboxHost.clear();
            return count;
        }

        private void deliver(final Endpoint to, final UnsafeBuffer bytes)
        {
            if (to.crashed)
            {
                dropped++;
                return;
            }
            if (to == this)
            {
                // IPC: lossless and in order, a moment later.
                lastLocalNs = Math.max(lastLocalNs, nowNs + 1);
                to.inbox.add(new Frame(lastLocalNs, ++sequence, bytes));
                return;
            }
            if (random.nextDouble() < dropRate)
            {
                dropped++;
                return;
            }
            to.inbox.add(new Frame(nowNs + 1 + random.nextLong(maxDelayNs), ++sequence, bytes));
        }

        @Override
        public int maxFrameLengthBytes()
        {
            return maxFrameLengthBytes;
        }
    }
}
