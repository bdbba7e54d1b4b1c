package io.mmx.aeron.transport;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.FragmentAssembler;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.Header;
import io.mmx.aeron.frame.DropReason;
import io.mmx.aeron.frame.FrameCounters;
import io.mmx.aeron.frame.FrameEncoder;
import io.mmx.aeron.frame.FrameHeader;
import io.mmx.aeron.frame.FrameVerifier;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Sends and receives signed mmx frames for every process hosted at one endpoint (one JVM).
 * <p>
 * One embedded media driver (shared threading mode) by default, or an external one. Remote endpoints
 * are reached over UDP unicast with one exclusive publication each, created on first use; processes at
 * this endpoint over IPC. Every endpoint has one subscription that receives from all publishers, so a
 * receiver holds one image per sending endpoint, not per sending process (docs/transport.md).
 * <p>
 * With {@link TransportContext#coalesceFrames(boolean)} the frames sent towards one endpoint in a duty cycle
 * wait in that endpoint's outbox and travel as one Aeron message at {@link #flush()}; a message holds
 * frames back to back, each with its own header and tag, and a receiver takes any message as the frames
 * it holds, so a single frame is the same message as before.
 * <p>
 * Not thread-safe: one thread calls {@link #poll(FrameHandler)} and the send methods (Agrona agent style).
 * The receive path allocates nothing; the send path allocates only when it opens a publication or an
 * endpoint's outbox, and when back pressure makes a full outbox wait (its buffer is reused after).
 */
public final class AeronTransport implements AutoCloseable
{
    private static final String UDP_PREFIX = "aeron:udp?endpoint=";

    private final TransportContext ctx;
    private final ProcessDirectory directory;
    private final MediaDriver driver;
    private final Aeron aeron;
    private final Subscription udpSubscription;
    private final Subscription ipcSubscription;
    private final ExclusivePublication ipcPublication;
    private final ExclusivePublication mdcPublication;
    private final ExclusivePublication[] publicationByEndpoint;
    private final int localEndpointIndex;
    private final boolean[] hostedHere;
    private final FrameCounters counters = new FrameCounters();
    private final FrameVerifier verifier;
    private final FrameEncoder encoder;
    private final UnsafeBuffer sendBuffer;
    private final FragmentAssembler assembler;
    private final long[] lastSequence;
    private final AtomicLong clientErrors = new AtomicLong();
    private final AtomicLong handlerErrors = new AtomicLong();
    private final AtomicReference<Throwable> lastClientError = new AtomicReference<>();
    private final String publicationParams;
    /** Frames waiting for {@link #flush()}, per UDP endpoint, then IPC, then the MDC broadcast; null when off. */
    private final Outbox[] outboxes;
    private final int[] dirtyOutboxes;
    private int dirtyCount;
    private boolean lastOfferSent;
    private FrameHandler handler;

    /**
     * Frames for one publication, back to back, sent as one message at the next flush; and the full
     * messages that met back pressure, oldest first, sent before it. A receiver that falls behind (a
     * busy or descheduled JVM) delays its senders' frames instead of losing them, up to
     * {@link #maxWaitingBytes} per endpoint: a lost Accepted or Commit costs a retransmission that every
     * acceptor executes, which is more work for the receivers that were already behind.
     */
    private static final class Outbox
    {
        UnsafeBuffer buffer;
        Publication publication;
        int length;
        int frames;
        boolean listed;
        /** Full messages waiting for their publication, oldest first. */
        final java.util.ArrayDeque<Waiting> waiting = new java.util.ArrayDeque<>();
        /** Buffers of messages that left, for reuse. */
        final java.util.ArrayDeque<Waiting> spare = new java.util.ArrayDeque<>();
        int waitingBytes;

        Outbox(final int capacity)
        {
            buffer = new UnsafeBuffer(new byte[capacity]);
        }
    }

    /** A full message that met back pressure. */
    private static final class Waiting
    {
        UnsafeBuffer buffer;
        Publication publication;
        int length;
        int frames;
    }

    private AeronTransport(final TransportContext ctx)
    {
        this.ctx = ctx;
        this.directory = ctx.directory();
        final boolean udp = ctx.medium() == TransportContext.Medium.UDP;
        localEndpointIndex = udp ? directory.endpointIndexOf(ctx.localEndpoint()) : -1;
        hostedHere = new boolean[directory.processCount()];
        if (udp)
        {
            for (final int p : directory.processesAt(localEndpointIndex))
            {
                hostedHere[p] = true;
            }
        }
        else
        {
            java.util.Arrays.fill(hostedHere, true);
        }
        verifier = new FrameVerifier(ctx.frameKey(), ctx.maxFrameLengthBytes(), counters);
        // Sequence starts at epoch ms x 2^20: above anything an earlier run of this endpoint sent,
        // unless it sent more than 2^20 frames per millisecond of its life.
        encoder = new FrameEncoder(ctx.frameKey(), ctx.epochClock().time() << 20);
        lastSequence = new long[2 * directory.endpointCount()];
        sendBuffer = new UnsafeBuffer(new byte[ctx.maxFrameLengthBytes()]);
        assembler = new FragmentAssembler(this::onFragment, ctx.maxFrameLengthBytes());
        publicationByEndpoint = new ExclusivePublication[directory.endpointCount()];
        publicationParams = "|term-length=" + ctx.termLengthBytes() + "|mtu=" + ctx.mtuLengthBytes();
        outboxes = ctx.coalesceFrames() ? new Outbox[directory.endpointCount() + 2] : null;
        dirtyOutboxes = ctx.coalesceFrames() ? new int[directory.endpointCount() + 2] : null;

        MediaDriver launched = null;
        Aeron client = null;
        // What this transport adds to its client: all it closes when the client is borrowed.
        final java.util.List<AutoCloseable> added = new java.util.ArrayList<>();
        try
        {
            if (ctx.driverMode() == TransportContext.DriverMode.EMBEDDED)
            {
                launched = MediaDriver.launchEmbedded(new MediaDriver.Context()
                    .aeronDirectoryName(ctx.aeronDirectoryName())
                    .threadingMode(ThreadingMode.SHARED)
                    .sharedIdleStrategy(TransportContext.idleStrategy(ctx.driverIdleStrategy()))
                    // Its executor only resolves host names, which directories give as addresses; its thread
                    // woke every millisecond for nothing (a tenth of an idle node's CPU).
                    .asyncExecutorEnabled(false)
                    .dirDeleteOnStart(true)
                    .dirDeleteOnShutdown(true)
                    .termBufferSparseFile(false)
                    .publicationTermBufferLength(ctx.termLengthBytes())
                    .ipcTermBufferLength(ctx.ipcTermLengthBytes())
                    .mtuLength(ctx.mtuLengthBytes())
                    .ipcMtuLength(ctx.mtuLengthBytes())
                    .counterValuesBufferLength(ctx.counterValuesBufferLengthBytes())
                    .driverTimeoutMs(ctx.driverTimeoutMs()));
            }
            client = ctx.client() != null ? ctx.client() : Aeron.connect(new Aeron.Context()
                .aeronDirectoryName(launched != null ? launched.aeronDirectoryName() : ctx.aeronDirectoryName())
                .driverTimeoutMs(ctx.driverTimeoutMs())
                .errorHandler(this::onClientError));
            final String ipcChannel = "aeron:ipc?term-length=" + ctx.ipcTermLengthBytes();
            ipcSubscription = added(added, client.addSubscription(ipcChannel, ctx.streamId()));
            ipcPublication = added(added, client.addExclusivePublication(ipcChannel, ctx.streamId()));
            if (udp)
            {
                udpSubscription = added(added, client.addSubscription(UDP_PREFIX + ctx.localEndpoint(),
                    ctx.streamId()));
                if (ctx.broadcastMode() == TransportContext.BroadcastMode.MDC && directory.endpointCount() > 1)
                {
                    mdcPublication = added(added, client.addExclusivePublication(
                        "aeron:udp?control-mode=manual" + publicationParams, ctx.streamId()));
                    for (int e = 0; e < directory.endpointCount(); e++)
                    {
                        if (e != localEndpointIndex)
                        {
                            mdcPublication.addDestination(UDP_PREFIX + directory.endpoint(e));
                        }
                    }
                }
                else
                {
                    mdcPublication = null;
                }
            }
            else
            {
                udpSubscription = null;
                mdcPublication = null;
            }
        }
        catch (final RuntimeException ex)
        {
            if (ctx.client() != null)
            {
                CloseHelper.quietCloseAll(added);
            }
            else
            {
                CloseHelper.quietCloseAll(client, launched);
            }
            throw ex;
        }
        this.driver = launched;
        this.aeron = client;
    }

    private static <T extends AutoCloseable> T added(final java.util.List<AutoCloseable> added, final T resource)
    {
        added.add(resource);
        return resource;
    }

    /**
     * Launch a transport: concludes the context, starts the embedded driver if configured, subscribes.
     *
     * @param ctx the configuration.
     * @return a transport ready to send and poll.
     */
    public static AeronTransport launch(final TransportContext ctx)
    {
        if (!ctx.isConcluded())
        {
            ctx.conclude();
        }
        return new AeronTransport(ctx);
    }

    /**
     * Read up to {@code fragmentLimit} fragments from each subscription and hand verified frames to the handler.
     *
     * @param handler receives frames addressed to a process hosted here.
     * @return fragments read; 0 means idle.
     */
    public int poll(final FrameHandler handler)
    {
        this.handler = handler;
        int work = ipcSubscription.poll(assembler, ctx.fragmentLimit());
        if (udpSubscription != null)
        {
            work += udpSubscription.poll(assembler, ctx.fragmentLimit());
        }
        return work;
    }

    /**
     * Send one frame to one process. Never blocks beyond {@link TransportContext#maxOfferRetries()} retries.
     *
     * @param srcProcessId  sender, hosted here.
     * @param dstProcessId  receiver.
     * @param type          frame type, 0..255.
     * @param payload       payload bytes.
     * @param payloadOffset of the payload.
     * @param payloadLength in bytes.
     * @return true if Aeron accepted the frame; false if it was dropped (counted by reason).
     */
    public boolean send(
        final int srcProcessId,
        final int dstProcessId,
        final int type,
        final DirectBuffer payload,
        final int payloadOffset,
        final int payloadLength)
    {
        return send(srcProcessId, dstProcessId, dstProcessId, type, payload, payloadOffset, payloadLength);
    }

    /**
     * Send one frame to every process hosted at {@code dstProcessId}'s endpoint (this endpoint's, if it is
     * hosted here): the receiving endpoint delivers it once with destination {@link FrameHeader#ALL_LOCAL}.
     * One copy of a message several processes of one host need. Never blocks beyond
     * {@link TransportContext#maxOfferRetries()} retries.
     *
     * @param srcProcessId  sender, hosted here.
     * @param dstProcessId  any process of the receiving endpoint.
     * @param type          frame type, 0..255.
     * @param payload       payload bytes.
     * @param payloadOffset of the payload.
     * @param payloadLength in bytes.
     * @return true if Aeron accepted the frame; false if it was dropped (counted by reason).
     */
    public boolean sendToHostOf(
        final int srcProcessId,
        final int dstProcessId,
        final int type,
        final DirectBuffer payload,
        final int payloadOffset,
        final int payloadLength)
    {
        return send(srcProcessId, dstProcessId, FrameHeader.ALL_LOCAL, type, payload, payloadOffset, payloadLength);
    }

    private boolean send(
        final int srcProcessId,
        final int dstProcessId,
        final int headerDst,
        final int type,
        final DirectBuffer payload,
        final int payloadOffset,
        final int payloadLength)
    {
        if (!directory.contains(dstProcessId) || !fits(payloadLength))
        {
            counters.onDropped(DropReason.SEND_REJECTED);
            return false;
        }
        final Publication publication = publicationFor(dstProcessId);
        if (publication == null)
        {
            counters.onDropped(DropReason.SEND_REJECTED);
            return false;
        }
        final int length = encoder.encode(
            sendBuffer, 0, type, srcProcessId, headerDst, payload, payloadOffset, payloadLength);
        return deliver(publication == ipcPublication ? ipcOutbox() : directory.endpointIndexOf(dstProcessId),
            publication, length);
    }

    /**
     * Send one frame to every process of the directory, this endpoint's included; each receiving
     * endpoint delivers it once with destination {@link FrameHeader#ALL_LOCAL}.
     *
     * @param srcProcessId  sender, hosted here.
     * @param type          frame type.
     * @param payload       payload bytes.
     * @param payloadOffset of the payload.
     * @param payloadLength in bytes.
     * @return number of endpoints whose offer succeeded.
     */
    public int broadcast(
        final int srcProcessId,
        final int type,
        final DirectBuffer payload,
        final int payloadOffset,
        final int payloadLength)
    {
        if (!fits(payloadLength))
        {
            counters.onDropped(DropReason.SEND_REJECTED);
            return 0;
        }
        final int length = encoder.encode(
            sendBuffer, 0, type, srcProcessId, FrameHeader.ALL_LOCAL, payload, payloadOffset, payloadLength);
        int delivered = deliver(ipcOutbox(), ipcPublication, length) ? 1 : 0;
        if (localEndpointIndex < 0)
        {
            return delivered;
        }
        if (mdcPublication != null)
        {
            return delivered + (deliver(ipcOutbox() + 1, mdcPublication, length) ? directory.endpointCount() - 1 : 0);
        }
        for (int e = 0; e < publicationByEndpoint.length; e++)
        {
            if (e != localEndpointIndex)
            {
                final Publication publication = publicationForEndpoint(e);
                if (publication != null && deliver(e, publication, length))
                {
                    delivered++;
                }
            }
        }
        return delivered;
    }

    /**
     * Sends what waits in the outboxes, one message per endpoint. Call at the end of every duty cycle when
     * frames are coalesced; without coalescing there is nothing to send.
     *
     * @return messages offered.
     */
    public int flush()
    {
        if (outboxes == null)
        {
            return 0;
        }
        final int count = dirtyCount;
        int kept = 0;
        for (int i = 0; i < count; i++)
        {
            final int index = dirtyOutboxes[i];
            final Outbox outbox = outboxes[index];
            if (sendWaiting(outbox) && send(outbox))
            {
                outbox.listed = false;
            }
            else
            {
                dirtyOutboxes[kept++] = index; // back-pressured: the frames wait for the next flush
            }
        }
        dirtyCount = kept;
        return count;
    }

    /**
     * @param dstProcessId a process of the directory.
     * @return true if a subscriber is connected to the path towards it.
     */
    public boolean isConnected(final int dstProcessId)
    {
        final Publication publication = publicationFor(dstProcessId);
        return publication != null && publication.isConnected();
    }

    /**
     * @return true if a broadcast would reach a subscriber at every endpoint (MDC: at least one
     * receiver has connected to the multi-destination publication, Aeron does not report each).
     */
    public boolean isBroadcastConnected()
    {
        if (!ipcPublication.isConnected())
        {
            return false;
        }
        if (localEndpointIndex < 0)
        {
            return true;
        }
        if (mdcPublication != null)
        {
            return mdcPublication.isConnected();
        }
        for (int e = 0; e < publicationByEndpoint.length; e++)
        {
            if (e != localEndpointIndex)
            {
                final Publication publication = publicationForEndpoint(e);
                if (publication == null || !publication.isConnected())
                {
                    return false;
                }
            }
        }
        return true;
    }

    /** @return counters of accepted, sent and dropped frames. */
    public FrameCounters counters()
    {
        return counters;
    }

    /** @return errors reported by the Aeron client conductor (never thrown into the caller). */
    public long clientErrors()
    {
        return clientErrors.get();
    }

    /** @return exceptions thrown by frame handlers, caught and counted as BAD_PAYLOAD drops. */
    public long handlerErrors()
    {
        return handlerErrors.get();
    }

    /** @return the last client conductor or handler error, or null. */
    public Throwable lastClientError()
    {
        return lastClientError.get();
    }

    /**
     * @return the Aeron client of this transport, for a layer that adds streams of its own at this
     * endpoint (a node's outside clients); frames on those streams are that layer's to check.
     */
    public Aeron aeron()
    {
        return aeron;
    }

    /** @return the directory. */
    public ProcessDirectory directory()
    {
        return directory;
    }

    /** @return the concluded context. */
    public TransportContext context()
    {
        return ctx;
    }

    /**
     * @param processId of the directory.
     * @return true if that process is hosted by this transport.
     */
    public boolean hosts(final int processId)
    {
        return directory.contains(processId) && hostedHere[processId];
    }

    /** Close the client, then the embedded driver, which deletes its directory. */
    public void close()
    {
        if (ctx.client() != null)
        {
            // A borrowed client (a node's later era): close what this transport added, leave the client.
            CloseHelper.closeAll(publicationByEndpoint);
            CloseHelper.closeAll(ipcSubscription, ipcPublication, udpSubscription, mdcPublication);
            return;
        }
        CloseHelper.closeAll(aeron, driver);
    }

    private boolean fits(final int payloadLength)
    {
        return payloadLength >= 0 && payloadLength + FrameHeader.OVERHEAD_LENGTH <= ctx.maxFrameLengthBytes();
    }

    private Publication publicationFor(final int dstProcessId)
    {
        if (hostedHere[dstProcessId])
        {
            return ipcPublication;
        }
        return publicationForEndpoint(directory.endpointIndexOf(dstProcessId));
    }

    private Publication publicationForEndpoint(final int endpointIndex)
    {
        ExclusivePublication publication = publicationByEndpoint[endpointIndex];
        if (publication == null)
        {
            try
            {
                publication = aeron.addExclusivePublication(
                    UDP_PREFIX + directory.endpoint(endpointIndex) + publicationParams, ctx.streamId());
                publicationByEndpoint[endpointIndex] = publication;
            }
            catch (final RuntimeException ex)
            {
                // A driver refusal (e.g. unresolvable host) must not take the process down: count and drop.
                onClientError(ex);
                return null;
            }
        }
        return publication;
    }

    private int ipcOutbox()
    {
        return directory.endpointCount();
    }

    /** Offers the frame in {@code sendBuffer} now, or puts it in the publication's outbox when coalescing. */
    private boolean deliver(final int outboxIndex, final Publication publication, final int length)
    {
        if (outboxes == null)
        {
            offer(publication, sendBuffer, length, 1, false);
            return lastOfferSent;
        }
        Outbox outbox = outboxes[outboxIndex];
        if (outbox == null)
        {
            outbox = new Outbox(ctx.maxFrameLengthBytes());
            outboxes[outboxIndex] = outbox;
        }
        if (outbox.frames > 0 && (outbox.publication != publication || outbox.length + length > outbox.buffer.capacity()))
        {
            seal(outbox); // full, or the endpoint's publication was replaced: keep the order, send what waits
        }
        if (!outbox.listed)
        {
            outbox.listed = true;
            dirtyOutboxes[dirtyCount++] = outboxIndex;
        }
        outbox.publication = publication;
        outbox.buffer.putBytes(outbox.length, sendBuffer, 0, length);
        outbox.length += length;
        outbox.frames++;
        return true;
    }

    /**
     * Offers an outbox's frames as one message and empties it (it stays listed until the flush ends);
     * frames that stay back-pressured through the retries are kept.
     *
     * @return false if the frames were kept.
     */
    private boolean send(final Outbox outbox)
    {
        if (outbox.frames > 0 && !offer(outbox.publication, outbox.buffer, outbox.length, outbox.frames, true))
        {
            return false;
        }
        outbox.length = 0;
        outbox.frames = 0;
        return true;
    }

    /**
     * The outbox is full (or its publication was replaced): sends its message now if nothing waits
     * before it and the publication takes it, else queues it behind the waiting ones, so that a burst
     * bigger than the publication's window goes a few cycles later instead of being lost. Beyond
     * {@link #maxWaitingBytes} the message is dropped and counted: a receiver gone for good must not
     * hold this JVM's memory.
     */
    private void seal(final Outbox outbox)
    {
        if (sendWaiting(outbox) && send(outbox))
        {
            return;
        }
        if (outbox.waitingBytes + outbox.length > maxWaitingBytes())
        {
            dropped(DropReason.SEND_BACK_PRESSURED, outbox.frames);
            outbox.length = 0;
            outbox.frames = 0;
            return;
        }
        Waiting w = outbox.spare.pollFirst();
        if (w == null)
        {
            w = new Waiting();
            w.buffer = new UnsafeBuffer(new byte[outbox.buffer.capacity()]);
        }
        // The full buffer moves to the queue as it is; the outbox goes on in the spare one.
        final UnsafeBuffer full = outbox.buffer;
        outbox.buffer = w.buffer;
        w.buffer = full;
        w.publication = outbox.publication;
        w.length = outbox.length;
        w.frames = outbox.frames;
        outbox.waiting.addLast(w);
        outbox.waitingBytes += w.length;
        outbox.length = 0;
        outbox.frames = 0;
    }

    /**
     * Offers the outbox's waiting messages in order until one stays back-pressured.
     *
     * @return true if none waits any more.
     */
    private boolean sendWaiting(final Outbox outbox)
    {
        Waiting w;
        while ((w = outbox.waiting.peekFirst()) != null)
        {
            if (!offer(w.publication, w.buffer, w.length, w.frames, true))
            {
                return false;
            }
            outbox.waiting.pollFirst();
            outbox.waitingBytes -= w.length;
            w.publication = null;
            outbox.spare.addLast(w);
        }
        return true;
    }

    /** Bytes of full messages that may wait for one endpoint: four terms, eight of its publication's windows. */
    private int maxWaitingBytes()
    {
        return 4 * Math.max(ctx.termLengthBytes(), ctx.ipcTermLengthBytes());
    }

    /**
     * Offers a message with a few retries; {@link #lastOfferSent} says whether it went.
     *
     * @return false only if the message stayed back-pressured and {@code mayWait} keeps it; true when it
     * was sent or dropped (counted).
     */
    private boolean offer(final Publication publication, final DirectBuffer buffer, final int length, final int frames,
        final boolean mayWait)
    {
        lastOfferSent = false;
        for (int attempt = 0; ; attempt++)
        {
            final long result = publication.offer(buffer, 0, length);
            if (result > 0)
            {
                counters.onSentMessage(frames);
                lastOfferSent = true;
                return true;
            }
            if (result == Publication.NOT_CONNECTED)
            {
                dropped(DropReason.SEND_NOT_CONNECTED, frames);
                return true;
            }
            if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED)
            {
                dropped(DropReason.SEND_CLOSED, frames);
                forget(publication);
                return true;
            }
            // BACK_PRESSURED or ADMIN_ACTION: a few retries, then drop (or wait) rather than starve the node.
            if (attempt >= ctx.maxOfferRetries())
            {
                if (mayWait)
                {
                    counters.onSendRetry();
                    return false;
                }
                dropped(DropReason.SEND_BACK_PRESSURED, frames);
                return true;
            }
            counters.onSendRetry();
            Thread.onSpinWait();
        }
    }

    private void dropped(final DropReason reason, final int frames)
    {
        for (int i = 0; i < frames; i++)
        {
            counters.onDropped(reason);
        }
    }

    private void forget(final Publication publication)
    {
        for (int e = 0; e < publicationByEndpoint.length; e++)
        {
            if (publicationByEndpoint[e] == publication)
            {
                publicationByEndpoint[e] = null;
                CloseHelper.quietClose(publication);
            }
        }
    }

    private void onClientError(final Throwable error)
    {
        clientErrors.incrementAndGet();
        lastClientError.set(error);
    }

    private void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        // A message holds one frame or several back to back; each frame's length is in its header. A frame
        // that fails verification ends the message: what follows it is dropped with it, counted once, as
        // lengths read from unauthenticated bytes cannot be trusted to find the next frame.
        int at = offset;
        final int end = offset + length;
        while (at < end)
        {
            final int left = end - at;
            final int frameLength = left < FrameHeader.HEADER_LENGTH ? left :
                Math.min(left, FrameHeader.OVERHEAD_LENGTH +
                (buffer.getShort(at + FrameHeader.PAYLOAD_LENGTH_OFFSET, java.nio.ByteOrder.LITTLE_ENDIAN) & 0xFFFF));
            if (!onFrame(buffer, at, frameLength))
            {
                return;
            }
            at += frameLength;
        }
    }

    /** @return false if the frame failed verification (dropped and counted), true otherwise. */
    private boolean onFrame(final DirectBuffer buffer, final int offset, final int length)
    {
        if (verifier.verify(buffer, offset, length) != null)
        {
            return false;
        }
        final FrameHeader frame = verifier.header();
        final int src = frame.srcProcessId();
        if (!directory.contains(src))
        {
            counters.onDropped(DropReason.UNKNOWN_SOURCE);
            return true;
        }
        final int dst = frame.dstProcessId();
        if (dst != FrameHeader.ALL_LOCAL && !(directory.contains(dst) && hostedHere[dst]))
        {
            counters.onDropped(DropReason.UNKNOWN_DESTINATION);
            return true;
        }
        if (ctx.replayProtection())
        {
            // One sending endpoint numbers all its frames from one counter; unicast frames and
            // broadcasts each reach this endpoint in order (one image each, or interleaved in one
            // image), so each class must strictly advance per source endpoint, whatever image it came on.
            final int stream = 2 * directory.endpointIndexOf(src) + (dst == FrameHeader.ALL_LOCAL ? 1 : 0);
            final long sequence = frame.sequence();
            if (sequence <= lastSequence[stream])
            {
                counters.onDropped(DropReason.REPLAYED);
                return true;
            }
            lastSequence[stream] = sequence;
        }
        try
        {
            handler.onFrame(frame, buffer, frame.payloadOffset(), frame.payloadLength());
        }
        catch (final RuntimeException ex)
        {
            // A bug or a payload the layer above cannot decode must not kill the polling thread.
            counters.onDropped(DropReason.BAD_PAYLOAD);
            handlerErrors.incrementAndGet();
            lastClientError.set(ex);
        }
        return true;
    }
}
