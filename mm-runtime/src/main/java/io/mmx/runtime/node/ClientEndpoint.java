package io.mmx.runtime.node;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.FragmentAssembler;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.logbuffer.Header;
import io.mmx.aeron.frame.DropReason;
import io.mmx.aeron.frame.FrameCounters;
import io.mmx.aeron.frame.FrameEncoder;
import io.mmx.aeron.frame.FrameHeader;
import io.mmx.aeron.frame.FrameVerifier;
import io.mmx.aeron.transport.ProcessDirectory;
import io.mmx.runtime.client.ClientKey;
import io.mmx.runtime.client.ClientWire;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A member's side of outside clients: their stream at this node's UDP endpoint, frames checked
 * against the client key (a member's own frames never arrive here, and a client's frames never reach
 * the protocol), commands reassembled from their chunks, and replies sent back to the endpoint each
 * request names. A frame that fails a check is dropped and counted, and never stops the node.
 *
 * <p>Bounds: {@link #MAX_INBOUND_BYTES} of commands arriving, {@link #MAX_PUBLICATIONS} reply
 * paths (the least recently used is closed), {@link #MAX_OUTBOX} replies waiting for a path to connect
 * (each for at most a second). Agent thread only.
 */
final class ClientEndpoint implements AutoCloseable
{
    /** Told when a whole command has arrived. */
    interface Handler
    {
        void onCommand(long clientId, long seq, byte[] command, String replyTo);
    }

    static final long MAX_INBOUND_BYTES = 64L << 20;
    static final int MAX_PUBLICATIONS = 64;
    static final int MAX_OUTBOX = 1024;
    private static final long OUTBOX_NS = 1_000_000_000L;

    private static final class Inbound
    {
        final long seq;
        final byte[] bytes;
        final boolean[] held;
        int missing;

        Inbound(final long seq, final int total)
        {
            this.seq = seq;
            this.bytes = new byte[total];
            this.held = new boolean[Math.max(1, (total + ClientWire.CHUNK_BYTES - 1) / ClientWire.CHUNK_BYTES)];
            this.missing = held.length;
        }
    }

    private record Outgoing(String endpoint, byte[] frame, long untilNs)
    {
    }

    private final Aeron aeron;
    private final Subscription subscription;
    private final ProcessDirectory directory;
    private final int maxCommandBytes;
    private final FrameCounters counters = new FrameCounters();
    private final FrameVerifier verifier;
    private final FrameEncoder encoder;
    private final FragmentAssembler assembler = new FragmentAssembler(this::onFragment, ClientWire.MAX_FRAME_BYTES);
    private final ClientWire.Request request = new ClientWire.Request();
    private final Map<Long, Inbound> inbound = new LinkedHashMap<>();
    private final LinkedHashMap<String, ExclusivePublication> publications = new LinkedHashMap<>(16, 0.75f, true);
    private final ArrayDeque<Outgoing> outbox = new ArrayDeque<>();
    private final UnsafeBuffer payload = new UnsafeBuffer(new byte[ClientWire.MAX_FRAME_BYTES]);
    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[ClientWire.MAX_FRAME_BYTES]);
    private long inboundBytes;
    // Written on the agent thread, read by status and metrics scrapes.
    private volatile long malformed;
    private volatile long refused;
    private Handler handler;

    ClientEndpoint(final Aeron aeron, final String localEndpoint, final ProcessDirectory directory,
        final ClientKey key, final int maxCommandBytes)
    {
        this.aeron = aeron;
        this.directory = directory;
        this.maxCommandBytes = maxCommandBytes;
        this.verifier = new FrameVerifier(key.frameKey(), ClientWire.MAX_FRAME_BYTES, counters);
        this.encoder = new FrameEncoder(key.frameKey(), System.currentTimeMillis() << 20);
        this.subscription = aeron.addSubscription("aeron:udp?endpoint=" + localEndpoint, ClientWire.STREAM_ID);
    }

    /** Reads client frames, hands whole commands to {@code handler}, and retries waiting replies. */
    int poll(final Handler handler)
    {
        this.handler = handler;
        int work = subscription.poll(assembler, 16);
        if (!outbox.isEmpty())
        {
            work += drainOutbox();
        }
        return work;
    }

    private void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        try
        {
            onFrame(buffer, offset, length);
        }
        catch (final RuntimeException ex)
        {
            // Whatever a client sends must not stop the node: a frame this code cannot take is dropped.
            counters.onDropped(DropReason.BAD_PAYLOAD);
            malformed++;
            request.replyEndpoint = null;
        }
    }

    private void onFrame(final DirectBuffer buffer, final int offset, final int length)
    {
        if (verifier.verify(buffer, offset, length) != null)
        {
            return; // wrong key, another cluster, truncated: counted by reason
        }
        final FrameHeader h = verifier.header();
        final String why = h.type() != ClientWire.REQUEST ? "frame type " + h.type() :
            request.parse(buffer, h.payloadOffset(), h.payloadLength(), maxCommandBytes);
        if (why != null)
        {
            counters.onDropped(DropReason.MALFORMED);
            malformed++;
            if (request.replyEndpoint != null && why.startsWith("command of"))
            {
                reply(request.replyEndpoint, request.clientId, request.seq, ClientWire.REFUSED, -1,
                    why.getBytes(StandardCharsets.UTF_8));
            }
            request.replyEndpoint = null;
            return;
        }
        final Request r = new Request(request.clientId, request.seq, request.replyEndpoint);
        request.replyEndpoint = null;
        if (request.totalLength <= ClientWire.CHUNK_BYTES)
        {
            final byte[] whole = new byte[request.totalLength];
            buffer.getBytes(request.chunkAt, whole);
            handler.onCommand(r.clientId, r.seq, whole, r.replyTo);
            return;
        }
        Inbound in = inbound.get(r.clientId);
        if (in != null && (in.seq != r.seq || in.bytes.length != request.totalLength))
        {
            if (in.seq > r.seq)
            {
                return; // an older command's chunk, late
            }
            remove(r.clientId);
            in = null;
        }
        if (in == null)
        {
            while (inboundBytes + request.totalLength > MAX_INBOUND_BYTES && !inbound.isEmpty())
            {
                remove(inbound.keySet().iterator().next());
            }
            in = new Inbound(r.seq, request.totalLength);
            inbound.put(r.clientId, in);
            inboundBytes += request.totalLength;
        }
        final int chunk = request.chunkOffset / ClientWire.CHUNK_BYTES;
        if (!in.held[chunk])
        {
            in.held[chunk] = true;
            buffer.getBytes(request.chunkAt, in.bytes, request.chunkOffset, request.chunkLength);
            if (--in.missing == 0)
            {
                remove(r.clientId);
                handler.onCommand(r.clientId, r.seq, in.bytes, r.replyTo);
            }
        }
    }

    private record Request(long clientId, long seq, String replyTo)
    {
    }

    private void remove(final long clientId)
    {
        final Inbound in = inbound.remove(clientId);
        if (in != null)
        {
            inboundBytes -= in.bytes.length;
        }
    }

    /**
     * Answers a client.
     *
     * @param leader the leader this member knows, named to the client by its endpoint; -1 for none.
     */
    void reply(final String endpoint, final long clientId, final long seq, final int status, final int leader,
        final byte[] body)
    {
        if (status == ClientWire.REFUSED)
        {
            refused++;
        }
        final byte[] leaderEndpoint = leader < 0 || !directory.contains(leader) ? new byte[0] :
            ClientWire.ascii(directory.endpoint(directory.endpointIndexOf(leader)));
        final int length = ClientWire.encodeReply(payload, clientId, seq, status, leaderEndpoint, body);
        final int frameLength = encoder.encode(frame, 0, ClientWire.REPLY, -1, -1, payload, 0, length);
        final ExclusivePublication p = publication(endpoint);
        if (p == null)
        {
            counters.onDropped(DropReason.SEND_REJECTED);
            return;
        }
        final long result = p.offer(frame, 0, frameLength);
        if (result > 0)
        {
            counters.onSent();
        }
        else if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED)
        {
            counters.onDropped(DropReason.SEND_CLOSED);
            CloseHelper.quietClose(publications.remove(endpoint));
        }
        else if (outbox.size() < MAX_OUTBOX)
        {
            // Not connected yet (a new client) or back-pressured: try again for a while.
            final byte[] copy = new byte[frameLength];
            frame.getBytes(0, copy);
            outbox.add(new Outgoing(endpoint, copy, System.nanoTime() + OUTBOX_NS));
        }
        else
        {
            counters.onDropped(DropReason.SEND_BACK_PRESSURED);
        }
    }

    private int drainOutbox()
    {
        int sent = 0;
        final long now = System.nanoTime();
        for (final Iterator<Outgoing> it = outbox.iterator(); it.hasNext(); )
        {
            final Outgoing o = it.next();
            final ExclusivePublication p = publication(o.endpoint);
            if (p != null && p.offer(new UnsafeBuffer(o.frame)) > 0)
            {
                counters.onSent();
                it.remove();
                sent++;
            }
            else if (now - o.untilNs >= 0)
            {
                counters.onDropped(DropReason.SEND_NOT_CONNECTED);
                it.remove();
            }
        }
        return sent;
    }

    private ExclusivePublication publication(final String endpoint)
    {
        ExclusivePublication p = publications.get(endpoint);
        if (p == null)
        {
            p = ClientWire.publication(aeron, endpoint);
            if (p == null)
            {
                return null; // an endpoint the driver cannot use: the reply is dropped and counted
            }
            publications.put(endpoint, p);
            if (publications.size() > MAX_PUBLICATIONS)
            {
                final Iterator<ExclusivePublication> eldest = publications.values().iterator();
                CloseHelper.quietClose(eldest.next());
                eldest.remove();
            }
        }
        return p;
    }

    /** Client frames received, dropped by reason and replies sent. */
    FrameCounters frameCounters()
    {
        return counters;
    }

    /** Client requests that did not parse. */
    long malformedRequests()
    {
        return malformed;
    }

    /** Client requests answered REFUSED. */
    long refusedRequests()
    {
        return refused;
    }

    /** Client frames as JSON: accepted, dropped by reason, malformed requests, refusals, replies sent. */
    String countersJson()
    {
        final StringBuilder sb = new StringBuilder("{\"accepted\":").append(counters.accepted())
            .append(",\"replies\":").append(counters.sent()).append(",\"badRequests\":").append(malformed)
            .append(",\"refused\":").append(refused);
        for (final DropReason r : DropReason.values())
        {
            if (counters.dropped(r) > 0)
            {
                sb.append(",\"").append(r.name().toLowerCase(java.util.Locale.ROOT)).append("\":").append(counters.dropped(r));
            }
        }
        return sb.append('}').toString();
    }

    @Override
    public void close()
    {
        CloseHelper.quietCloseAll(publications.values());
        publications.clear();
        CloseHelper.quietClose(subscription);
    }
}
