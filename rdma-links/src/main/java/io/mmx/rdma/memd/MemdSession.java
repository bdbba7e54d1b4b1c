package io.mmx.rdma.memd;

import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.CompletionSink;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.OpType;
import io.mmx.rdma.region.ProcessKey;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import javax.crypto.Mac;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * One authenticated TCP session from a process to the memd holding one owner's regions: the memd
 * counterpart of a reliable-connected queue pair on a plan edge. It carries up to
 * {@link MemdProtocol#MAX_BINDINGS} bindings, each to the owner's region under one plan, the way a
 * queue pair reaches several registered regions; each {@link MemdRegionLink} is one binding. A live
 * plan change keeps the session of an edge both plans share, and binds the new era's region on it
 * while the ended era's binding still serves peers that are behind.
 *
 * <p>Non-blocking after the handshake; the fabric applies deadlines, so a silent daemon shows up as
 * {@code TIMEOUT}. The session numbers its requests itself (the daemon wants them rising on a
 * connection, and two eras' fabrics number theirs independently) and hands each answer to the sink
 * of the operation that asked. A binding made on a fresh session waits for the daemon's answer; one
 * made on a session in use sends its OPEN and returns, and operations sent behind it are served
 * after it (or refused with it: the daemon never serves them from another plan).
 *
 * <p>A broken connection is reopened from {@link #doWork} at most once per second, and every
 * binding opened again; operations in flight on it complete {@code NOT_CONNECTED}, since whether
 * they executed is unknown. Single-threaded: one agent submits and polls every binding.
 */
final class MemdSession implements AutoCloseable
{
    private static final long RECONNECT_INTERVAL_NS = TimeUnit.SECONDS.toNanos(1);
    private static final int OUT_CAPACITY = 256 * 1024;

    /** An answer awaited: the binding and the operation (or OPEN, with no sink) it belongs to. */
    private static final class Pending
    {
        int binding;
        long correlationId;
        /** The asking operation's sink; null for an OPEN or CREATE, or once its binding was released. */
        CompletionSink sink;
        boolean control;
        /** The plan a control request opens or creates the region of (its binding may be reused since). */
        PlanDigest plan;
        /** A control request's answer, once it came. */
        boolean answered;
        OpStatus status;
        long value;
    }

    private final MemdSessions pool;
    private final int self;
    private final int owner;
    private final InetSocketAddress daemon;
    private final int connectTimeoutMs;
    private final Mac mac;
    private final byte[] tagScratch = new byte[MemdProtocol.TAG_LENGTH];
    private final byte[] nonce = new byte[MemdProtocol.NONCE_LENGTH];
    private final ByteBuffer in = ByteBuffer.allocateDirect(MemdProtocol.LENGTH_PREFIX + MemdProtocol.MAX_RESPONSE)
        .order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer out = ByteBuffer.allocateDirect(OUT_CAPACITY).order(ByteOrder.LITTLE_ENDIAN);
    private final UnsafeBuffer inView = new UnsafeBuffer(in);
    private final UnsafeBuffer outView = new UnsafeBuffer(out);
    private final PlanDigest[] plans = new PlanDigest[MemdProtocol.MAX_BINDINGS];
    private final int[] eras = new int[MemdProtocol.MAX_BINDINGS];
    private final OpStatus[] bindingState = new OpStatus[MemdProtocol.MAX_BINDINGS];
    private final String[] bindingMessage = new String[MemdProtocol.MAX_BINDINGS];
    private final Long2ObjectHashMap<Pending> pending = new Long2ObjectHashMap<>();
    private final ArrayDeque<Pending> spare = new ArrayDeque<>();
    private SocketChannel channel;
    /** Whether the channel is still blocking: right after the handshake, before anything is in flight. */
    private boolean blocking;
    private String connectionMessage = "not connected yet";
    private long lastConnectAttemptNs;
    private long nextRequestId = 1;
    private int bindings;
    private boolean closed;
    /**
     * What the daemon's latest authenticated answer said of the owner's connection: 1 open, 0 none, -1
     * no answer yet. Written and read by the thread that drives the session (the node's agent).
     */
    private int ownerConnected = -1;
    /** When a read last brought answers ({@link System#nanoTime}, taken once per read, not per answer). */
    private long ownerAnsweredNs;

    /**
     * Connects and authenticates (bounded by {@code connectTimeoutMs}) as the process {@code key} names.
     * A daemon that cannot be reached gives a session without a connection, whose bindings are
     * NOT_CONNECTED and which retries from {@link #doWork}.
     *
     * @param pool where the session returns when its last binding is released, or null.
     */
    MemdSession(final MemdSessions pool, final ProcessKey key, final int owner, final InetSocketAddress daemon,
        final int connectTimeoutMs, final boolean connect)
    {
        this.pool = pool;
        this.self = key.process();
        this.owner = owner;
        this.daemon = daemon;
        this.connectTimeoutMs = connectTimeoutMs;
        this.mac = key.newMac();
        if (connect)
        {
            lastConnectAttemptNs = System.nanoTime();
            try
            {
                handshake();
            }
            catch (final IOException | RuntimeException ex)
            {
                unreachable(ex);
            }
        }
    }

    int self()
    {
        return self;
    }

    int owner()
    {
        return owner;
    }

    InetSocketAddress daemon()
    {
        return daemon;
    }

    /** Whether the session has a connection now. */
    boolean connected()
    {
        return channel != null;
    }

    /**
     * Binds {@code plan}'s region of the owner to a free binding and returns it. On a fresh connection
     * the daemon's answer is awaited (the binding's state tells it); on one in use the OPEN is sent
     * and operations may follow it at once.
     *
     * @throws IllegalStateException when every binding is taken.
     */
    int bind(final PlanDigest plan, final int era)
    {
        int binding = -1;
        for (int b = 0; b < plans.length && binding < 0; b++)
        {
            binding = plans[b] == null ? b : -1;
        }
        if (binding < 0)
        {
            throw new IllegalStateException("the memd session of process " + self + " to the region of process " +
                owner + " already carries " + plans.length + " plans' regions: at most " + plans.length +
                " eras can overlap; wait for the ended eras to retire before another plan change");
        }
        plans[binding] = plan;
        eras[binding] = era;
        bindings++;
        bindingState[binding] = OpStatus.OK;
        bindingMessage[binding] = "opening the region of process " + owner + " of plan " + plan.shortHex() +
            " in era " + era + " on memd " + daemon;
        if (channel != null)
        {
            open(binding);
        }
        return binding;
    }

    /**
     * Releases {@code binding}: answers still due to its operations are dropped, and the session
     * closes (and leaves its pool) with its last binding.
     */
    void release(final int binding)
    {
        if (plans[binding] == null)
        {
            return;
        }
        plans[binding] = null;
        bindings--;
        for (final Pending p : pending.values())
        {
            if (p.binding == binding)
            {
                p.sink = null;
            }
        }
        if (bindings == 0)
        {
            close();
        }
    }

    OpStatus state(final int binding)
    {
        return channel == null ? (closed ? OpStatus.CLOSED : OpStatus.NOT_CONNECTED) : bindingState[binding];
    }

    String stateMessage(final int binding)
    {
        return channel == null ? connectionMessage : bindingMessage[binding];
    }

    PlanDigest plan(final int binding)
    {
        return plans[binding];
    }

    /** Sends one operation on {@code binding}; its outcome goes to {@code sink}, possibly at once. */
    void submit(final int binding, final long correlationId, final OpType type, final long offset,
        final long operand1, final long operand2, final DirectBuffer src, final int bufOffset, final int length,
        final CompletionSink sink)
    {
        final OpStatus state = state(binding);
        if (state != OpStatus.OK && state != OpStatus.REGION_LOST)
        {
            // Refused for good (not a neighbour, unknown plan, wrong key) or no connection: nothing is sent.
            sink.complete(correlationId, state, 0, null, 0);
            return;
        }
        if (blocking && !goNonBlocking())
        {
            sink.complete(correlationId, OpStatus.NOT_CONNECTED, 0, null, 0);
            return;
        }
        final int payloadLength = type == OpType.WRITE_BULK ? length : 0;
        if (!encode(binding, (byte)type.ordinal(), offset, operand1, operand2, src, bufOffset, payloadLength,
            type.isWordOp() ? 0 : length, operation(binding, correlationId, sink)))
        {
            sink.complete(correlationId, OpStatus.BACK_PRESSURED, 0, null, 0);
            return;
        }
        flush();
    }

    /** Progresses I/O and hands answers to their operations' sinks; returns the work done. */
    int doWork()
    {
        if (closed)
        {
            return 0;
        }
        if (channel == null)
        {
            final long nowNs = System.nanoTime();
            if (nowNs - lastConnectAttemptNs >= RECONNECT_INTERVAL_NS)
            {
                reconnect();
                return 1;
            }
            return 0;
        }
        if (blocking)
        {
            return 0; // nothing sent yet
        }
        flush();
        if (channel == null)
        {
            return 0;
        }
        final int read;
        try
        {
            read = channel.read(in);
        }
        catch (final IOException ex)
        {
            fail("connection to memd " + daemon + " failed: " + ex.getMessage());
            return 1;
        }
        if (read < 0)
        {
            fail("memd " + daemon + " closed the connection");
            return 1;
        }
        return read == 0 ? 0 : parse();
    }

    /**
     * What the daemon said of the owner in its latest answer, if that came at or after {@code sinceNs}
     * ({@link System#nanoTime}): 1 the owner's node holds a connection to it (its JVM runs), 0 none,
     * -1 no answer since then. The driving thread only.
     */
    int ownerConnected(final long sinceNs)
    {
        final int said = ownerConnected;
        return said >= 0 && ownerAnsweredNs - sinceNs >= 0 ? said : -1;
    }

    /** When the latest answers came ({@link System#nanoTime}), or 0 before any. The driving thread only. */
    long ownerAnsweredNs()
    {
        return ownerAnsweredNs;
    }

    /** Closes a session that lost the race to join its pool: the pool never counted it. */
    void closeUncounted()
    {
        closed = true;
        CloseHelper.quietClose(channel);
        channel = null;
    }

    /** Closes the connection; the pool forgets the session. Operations in flight are abandoned. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        connectionMessage = "the session to memd " + daemon + " for the region of process " + owner + " is closed";
        CloseHelper.quietClose(channel);
        channel = null;
        pending.clear();
        if (pool != null)
        {
            pool.closed(this);
        }
    }

    /**
     * A blocking request without a plan (PING), or CREATE of {@code plan}'s region of {@code era} on
     * binding 0, on a fresh connection: tools and start-up only.
     *
     * @param valueOut receives the answer's value, or null.
     * @return the daemon's status, or PROTOCOL_ERROR for no answer.
     */
    OpStatus call(final byte op, final PlanDigest plan, final int era, final long operand1, final long[] valueOut)
        throws IOException
    {
        if (channel == null)
        {
            throw new IOException(connectionMessage);
        }
        final Pending answer = control(0, plan);
        encodeControl(op, 0, plan, operand1, era, answer);
        final OpStatus status = awaitControl(answer);
        if (valueOut != null)
        {
            valueOut[0] = answer.value;
        }
        return status;
    }

    private void open(final int binding)
    {
        final Pending answer = control(binding, plans[binding]);
        if (!blocking)
        {
            if (!encodeControl(MemdProtocol.OP_OPEN_REGION, binding, plans[binding], 0, eras[binding], answer))
            {
                fail("the session to memd " + daemon + " has no room to open a region: its output is full");
                return;
            }
            flush();
            return;
        }
        try
        {
            encodeControl(MemdProtocol.OP_OPEN_REGION, binding, plans[binding], 0, eras[binding], answer);
            awaitControl(answer);
        }
        catch (final IOException ex)
        {
            fail("cannot open the region of process " + owner + " on memd " + daemon + ": " + ex.getMessage());
        }
    }

    // Control requests are rare (a binding, a reconnect): their records are not reused.
    private static Pending control(final int binding, final PlanDigest plan)
    {
        final Pending p = new Pending();
        p.binding = binding;
        p.plan = plan;
        p.control = true;
        return p;
    }

    private Pending operation(final int binding, final long correlationId, final CompletionSink sink)
    {
        final Pending p = spare.isEmpty() ? new Pending() : spare.poll();
        p.binding = binding;
        p.correlationId = correlationId;
        p.sink = sink;
        return p;
    }

    // CREATE and OPEN name the plan (payload) and the era (operand 2): each era has regions of its own.
    private boolean encodeControl(final byte op, final int binding, final PlanDigest plan, final long operand1,
        final int era, final Pending answer)
    {
        final boolean withPlan = plan != null && op != MemdProtocol.OP_PING;
        return encode(binding, op, 0, operand1, withPlan ? era : 0,
            withPlan ? new UnsafeBuffer(plan.toByteArray()) : null, 0, withPlan ? PlanDigest.LENGTH : 0, 0, answer);
    }

    // A blocking round trip on the still-blocking channel, of the one request just encoded.
    private OpStatus awaitControl(final Pending answer) throws IOException
    {
        out.flip();
        while (out.hasRemaining())
        {
            channel.write(out);
        }
        out.clear();
        final DataInputStream stream = new DataInputStream(channel.socket().getInputStream());
        final byte[] prefix = new byte[MemdProtocol.LENGTH_PREFIX];
        stream.readFully(prefix);
        final int length = ByteBuffer.wrap(prefix).order(ByteOrder.LITTLE_ENDIAN).getInt();
        if (length < MemdProtocol.RESPONSE_HEADER + MemdProtocol.TAG_LENGTH || length > MemdProtocol.MAX_RESPONSE)
        {
            throw new IOException("memd answered with a frame of " + length + " bytes: not memd protocol version " +
                MemdProtocol.VERSION);
        }
        final byte[] body = new byte[length];
        stream.readFully(body);
        in.clear();
        in.put(prefix).put(body);
        parse();
        return answer.answered ? answer.status : OpStatus.PROTOCOL_ERROR;
    }

    private boolean goNonBlocking()
    {
        try
        {
            channel.configureBlocking(false);
            blocking = false;
            return true;
        }
        catch (final IOException ex)
        {
            fail("cannot use the connection to memd " + daemon + ": " + ex.getMessage());
            return false;
        }
    }

    private boolean encode(final int binding, final byte op, final long offset, final long operand1,
        final long operand2, final DirectBuffer payload, final int payloadOffset, final int payloadLength,
        final int bulkLength, final Pending p)
    {
        final int signed = MemdProtocol.REQUEST_HEADER + payloadLength;
        if (out.remaining() < MemdProtocol.LENGTH_PREFIX + signed + MemdProtocol.TAG_LENGTH)
        {
            p.sink = null;
            if (!p.control)
            {
                spare.add(p);
            }
            return false;
        }
        final long requestId = nextRequestId++;
        pending.put(requestId, p);
        final int frame = out.position();
        final int body = frame + MemdProtocol.LENGTH_PREFIX;
        out.putInt(frame, signed + MemdProtocol.TAG_LENGTH);
        out.put(body + MemdProtocol.REQ_VERSION, MemdProtocol.VERSION);
        out.put(body + MemdProtocol.REQ_OP, op);
        out.putShort(body + MemdProtocol.REQ_BINDING, (short)binding);
        out.putInt(body + MemdProtocol.REQ_REQUESTER, self);
        out.putLong(body + MemdProtocol.REQ_ID, requestId);
        out.putInt(body + MemdProtocol.REQ_OWNER, owner);
        out.putInt(body + MemdProtocol.REQ_LENGTH, op == MemdProtocol.OP_CREATE_REGION ? 0 : bulkLength);
        out.putLong(body + MemdProtocol.REQ_OFFSET, offset);
        out.putLong(body + MemdProtocol.REQ_OPERAND1, operand1);
        out.putLong(body + MemdProtocol.REQ_OPERAND2, operand2);
        if (payloadLength > 0)
        {
            outView.putBytes(body + MemdProtocol.REQUEST_HEADER, payload, payloadOffset, payloadLength);
        }
        MemdProtocol.tag(mac, nonce, out, body, signed, tagScratch, 0);
        out.position(body + signed);
        out.put(tagScratch);
        return true;
    }

    private int parse()
    {
        in.flip();
        int completed = 0;
        boolean answered = false;
        while (in.remaining() >= MemdProtocol.LENGTH_PREFIX)
        {
            final int length = in.getInt(in.position());
            if (length < MemdProtocol.RESPONSE_HEADER + MemdProtocol.TAG_LENGTH || length > MemdProtocol.MAX_RESPONSE)
            {
                fail("memd " + daemon + " sent a frame of " + length + " bytes: it does not speak memd protocol " +
                    "version " + MemdProtocol.VERSION + ", check the daemon's version");
                return completed + 1;
            }
            if (in.remaining() < MemdProtocol.LENGTH_PREFIX + length)
            {
                break;
            }
            final int body = in.position() + MemdProtocol.LENGTH_PREFIX;
            final int payloadLength = in.getInt(body + MemdProtocol.RSP_PAYLOAD_LENGTH);
            final long requestId = in.getLong(body + MemdProtocol.RSP_ID);
            OpStatus status = OpStatus.fromCode(in.get(body + MemdProtocol.RSP_STATUS) & 0xFF);
            if (in.get(body + MemdProtocol.RSP_VERSION) != MemdProtocol.VERSION ||
                in.get(body + MemdProtocol.RSP_KIND) != MemdProtocol.KIND_RESPONSE ||
                payloadLength != length - MemdProtocol.RESPONSE_HEADER - MemdProtocol.TAG_LENGTH)
            {
                fail("memd " + daemon + " sent a malformed response: check that it runs the same mmx version");
                return completed + 1;
            }
            if (!MemdProtocol.verify(mac, nonce, in, body, length - MemdProtocol.TAG_LENGTH, tagScratch))
            {
                if (status != OpStatus.BAD_CLUSTER_KEY)
                {
                    fail("a response from memd " + daemon + " failed authentication: the daemon runs with " +
                        "another cluster key, or the connection is tampered with");
                    return completed + 1;
                }
                // The daemon could not verify us, so we cannot verify it either: both hold different keys.
                status = OpStatus.BAD_CLUSTER_KEY;
            }
            final long value = in.getLong(body + MemdProtocol.RSP_VALUE);
            if (status != OpStatus.BAD_CLUSTER_KEY)
            {
                ownerConnected = (in.get(body + MemdProtocol.RSP_FLAGS) & MemdProtocol.FLAG_OWNER_CONNECTED) != 0 ? 1 : 0;
                answered = true;
            }
            final Pending p = pending.remove(requestId);
            if (p != null)
            {
                answered(p, status, value, payloadLength > 0 ? inView : null, body + MemdProtocol.RESPONSE_HEADER);
                completed++;
            }
            in.position(body + length);
        }
        in.compact();
        if (answered)
        {
            ownerAnsweredNs = System.nanoTime(); // one clock read per batch of answers
        }
        return completed;
    }

    private void answered(final Pending p, final OpStatus status, final long value, final DirectBuffer payload,
        final int payloadOffset)
    {
        final int binding = p.binding;
        if (p.control)
        {
            p.answered = true;
            p.status = status;
            p.value = value;
            if (plans[binding] != null && plans[binding] == p.plan)
            {
                bindingState[binding] = status;
                bindingMessage[binding] = status == OpStatus.OK ? "connected to memd " + daemon :
                    openFailure(binding, status);
            }
            return;
        }
        if (p.sink != null)
        {
            if ((status == OpStatus.OK || status == OpStatus.REGION_LOST) && bindingState[binding] != status)
            {
                // The owner created its region since the OPEN, or a daemon restarted without it.
                bindingState[binding] = status;
                bindingMessage[binding] = status == OpStatus.OK ? "connected to memd " + daemon :
                    openFailure(binding, status);
            }
            final CompletionSink sink = p.sink;
            p.sink = null;
            spare.add(p);
            sink.complete(p.correlationId, status, value, payload, payloadOffset);
            return;
        }
        spare.add(p); // its binding was released
    }

    private void flush()
    {
        if (channel == null || out.position() == 0 || blocking)
        {
            return;
        }
        try
        {
            out.flip();
            channel.write(out);
            out.compact();
        }
        catch (final IOException ex)
        {
            fail("connection to memd " + daemon + " failed: " + ex.getMessage());
        }
    }

    private void reconnect()
    {
        lastConnectAttemptNs = System.nanoTime();
        try
        {
            handshake();
        }
        catch (final IOException | RuntimeException ex)
        {
            unreachable(ex);
            return;
        }
        for (int b = 0; b < plans.length && channel != null; b++)
        {
            if (plans[b] != null)
            {
                open(b);
            }
        }
    }

    private void unreachable(final Exception ex)
    {
        CloseHelper.quietClose(channel);
        channel = null;
        connectionMessage = "cannot reach memd " + daemon + " for the region of process " + owner + ": " +
            ex.getMessage() + "; check that memd runs there and the address in the placement is right";
    }

    // Connects (blocking) and reads HELLO's nonce; on failure the channel is closed and null.
    void handshake() throws IOException
    {
        SocketChannel ch = null;
        try
        {
            ch = SocketChannel.open();
            ch.socket().connect(daemon, connectTimeoutMs);
            ch.socket().setSoTimeout(connectTimeoutMs);
            ch.socket().setTcpNoDelay(true);
            final DataInputStream hello = new DataInputStream(ch.socket().getInputStream());
            final byte[] frame = new byte[MemdProtocol.LENGTH_PREFIX + MemdProtocol.HELLO_LENGTH];
            hello.readFully(frame);
            final ByteBuffer b = ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
            if (b.getInt(0) != MemdProtocol.HELLO_LENGTH || b.get(4) != MemdProtocol.VERSION ||
                b.get(5) != MemdProtocol.KIND_HELLO)
            {
                throw new IOException("the peer is not a memd speaking protocol version " + MemdProtocol.VERSION +
                    " (run the same mmx version on memd and its clients)");
            }
            b.get(8, nonce);
            in.clear();
            out.clear();
            channel = ch;
            blocking = true;
        }
        catch (final IOException | RuntimeException ex)
        {
            CloseHelper.quietClose(ch);
            channel = null;
            throw ex;
        }
    }

    private String openFailure(final int binding, final OpStatus status)
    {
        switch (status)
        {
            case REFUSED_NOT_NEIGHBOUR:
                return "memd " + daemon + " refuses process " + self + " access to the region of process " + owner +
                    ": they are not plan neighbours there, check that memd runs the same plan";
            case REGION_MISMATCH:
                return "memd " + daemon + " does not serve plan " + plans[binding].shortHex() + ": put that plan's " +
                    "file in the daemon's --plans directory, or start it with that plan";
            case REGION_LOST:
                return "memd " + daemon + " holds no region of process " + owner + " yet: its owner must create it";
            case BAD_CLUSTER_KEY:
                return "memd " + daemon + " rejects this process's cluster key: use the cluster's key file";
            default:
                return "memd " + daemon + " answered " + status + " when opening the region of process " + owner;
        }
    }

    // The connection is gone: every operation awaiting an answer completes NOT_CONNECTED (the fabric's
    // fence on a timed-out operation lifts only when it completes, and one lost with its connection
    // would fence its owner for ever).
    private void fail(final String message)
    {
        CloseHelper.quietClose(channel);
        channel = null;
        blocking = false;
        connectionMessage = message;
        in.clear();
        out.clear();
        if (pending.isEmpty())
        {
            return;
        }
        final Pending[] lost = pending.values().toArray(new Pending[0]);
        pending.clear();
        for (final Pending p : lost)
        {
            final CompletionSink sink = p.sink;
            p.sink = null;
            if (p.control)
            {
                continue;
            }
            spare.add(p);
            if (sink != null)
            {
                sink.complete(p.correlationId, OpStatus.NOT_CONNECTED, 0, null, 0);
            }
        }
    }
}
