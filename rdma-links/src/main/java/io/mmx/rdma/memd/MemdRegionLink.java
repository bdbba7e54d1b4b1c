package io.mmx.rdma.memd;

import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.CompletionSink;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.OpType;
import io.mmx.rdma.fabric.RegionLink;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.ProcessKey;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import javax.crypto.Mac;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * One authenticated TCP session from a process to the memd holding one owner's region: the
 * memd counterpart of a reliable-connected queue pair on a plan edge. Non-blocking after the
 * handshake; the fabric applies deadlines, so a silent daemon shows up as {@code TIMEOUT}.
 *
 * <p>The session is bound to the plan whose digest it was opened with: memd may hold regions of
 * several plans (an era's and the next one's), and every operation on this link reaches the
 * owner's region of that plan, granted by that plan's edges.
 *
 * <p>A broken connection is reopened from {@link #doWork} at most once per second; operations
 * in flight on it are left to time out, since whether they executed is unknown.
 */
public final class MemdRegionLink implements RegionLink
{
    private static final long RECONNECT_INTERVAL_NS = TimeUnit.SECONDS.toNanos(1);
    private static final int OUT_CAPACITY = 256 * 1024;

    private final PlanDigest plan;
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
    private SocketChannel channel;
    private OpStatus state = OpStatus.NOT_CONNECTED;
    /**
     * Requests written to the connection and not answered yet. When the connection fails they can
     * no longer be answered, so each completes NOT_CONNECTED: the fabric's fence on a timed-out op
     * lifts only when that op completes, and an op lost with its connection would fence its owner
     * for ever.
     */
    private final org.agrona.collections.LongHashSet unanswered = new org.agrona.collections.LongHashSet();
    private CompletionSink fabricSink;
    private String stateMessage = "not connected yet";
    private long lastConnectAttemptNs;
    // Control requests (OPEN, CREATE) use ids far below the fabric's, which start at 1 and rise.
    private long nextControlId = Long.MIN_VALUE + 1;
    private boolean closed;

    /**
     * Opens the session (connect and handshake, bounded by {@code connectTimeoutMs}) as the process
     * {@code key} authenticates. A daemon that cannot be reached gives a link in state NOT_CONNECTED
     * that retries later.
     */
    public MemdRegionLink(
        final ProcessKey key,
        final int owner,
        final InetSocketAddress daemon,
        final PlanDigest plan,
        final int connectTimeoutMs)
    {
        this(key, owner, daemon, plan, connectTimeoutMs, true);
    }

    private MemdRegionLink(
        final ProcessKey key,
        final int owner,
        final InetSocketAddress daemon,
        final PlanDigest plan,
        final int connectTimeoutMs,
        final boolean open)
    {
        this.plan = plan;
        this.self = key.process();
        this.owner = owner;
        this.daemon = daemon;
        this.connectTimeoutMs = connectTimeoutMs;
        this.mac = key.newMac();
        if (open)
        {
            connect();
        }
    }

    /**
     * One authenticated round trip that touches no region ({@link MemdProtocol#OP_PING}), as the
     * process {@code key} authenticates: whether a memd serves at {@code daemon} under this cluster key.
     * Blocking, bounded by {@code timeoutMs} for the connect and for each read.
     *
     * @return the number of regions the daemon holds.
     * @throws IOException naming why it was not served (unreachable, not memd, wrong key, timeout).
     */
    public static long ping(final InetSocketAddress daemon, final ProcessKey key, final int timeoutMs)
        throws IOException
    {
        final MemdRegionLink link = new MemdRegionLink(key, key.process(), daemon, PlanDigest.of64(0), timeoutMs, false);
        try
        {
            link.handshake();
            final long[] value = new long[1];
            final OpStatus status = link.controlCall(MemdProtocol.OP_PING, 0, false, value);
            if (status != OpStatus.OK)
            {
                throw new IOException(status == OpStatus.BAD_CLUSTER_KEY ?
                    "memd " + daemon + " does not accept the key of process " + key.process() +
                    ": use the cluster's key file" : "memd " + daemon + " answered " + status);
            }
            return value[0];
        }
        finally
        {
            link.close();
        }
    }

    /**
     * Asks the daemon to create {@code self}'s region of the plan {@code plan}, or confirms the existing
     * one (after a restart). Each plan has its own region. Blocking, for start-up only.
     *
     * @return OK, or the refusal (REGION_MISMATCH for a plan the daemon does not know or another size,
     *     BAD_CLUSTER_KEY, TIMEOUT, ...).
     */
    public static OpStatus createRegion(
        final InetSocketAddress daemon,
        final ClusterKey key,
        final int self,
        final long dataBytes,
        final PlanDigest plan,
        final long timeoutNs)
    {
        return createRegion(daemon, key.processKey(self), dataBytes, plan, timeoutNs);
    }

    /**
     * Creates the region of the process {@code key} authenticates, or confirms the existing one;
     * see {@link #createRegion(InetSocketAddress, ClusterKey, int, long, PlanDigest, long)}.
     */
    public static OpStatus createRegion(
        final InetSocketAddress daemon,
        final ProcessKey key,
        final long dataBytes,
        final PlanDigest plan,
        final long timeoutNs)
    {
        final MemdRegionLink link = new MemdRegionLink(key, key.process(), daemon, plan,
            (int)Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNs)));
        try
        {
            if (link.channel == null)
            {
                return link.state;
            }
            // Before creation OPEN says REGION_LOST; that is the expected state here.
            link.channel.configureBlocking(true);
            return link.controlCall(MemdProtocol.OP_CREATE_REGION, dataBytes, true, null);
        }
        catch (final IOException ex)
        {
            return OpStatus.NOT_CONNECTED;
        }
        finally
        {
            link.close();
        }
    }

    @Override
    public int owner()
    {
        return owner;
    }

    @Override
    public OpStatus state()
    {
        return state;
    }

    @Override
    public String stateMessage()
    {
        return stateMessage;
    }

    @Override
    public void submit(
        final long correlationId,
        final OpType type,
        final long offset,
        final long operand1,
        final long operand2,
        final MutableDirectBuffer dst,
        final DirectBuffer src,
        final int bufOffset,
        final int length,
        final CompletionSink sink)
    {
        fabricSink = sink;
        if (state == OpStatus.REGION_LOST && !closed)
        {
            // The owner may have created its region since; reconnecting re-runs OPEN.
            CloseHelper.quietClose(channel);
            connect();
        }
        if (state != OpStatus.OK)
        {
            sink.complete(correlationId, state, 0, null, 0);
            return;
        }
        final int payloadLength = type == OpType.WRITE_BULK ? length : 0;
        encode(correlationId, (byte)type.ordinal(), offset, operand1, operand2, src, bufOffset, payloadLength,
            type.isWordOp() ? 0 : length, sink);
        flush();
    }

    @Override
    public int doWork(final CompletionSink sink)
    {
        if (closed)
        {
            return 0;
        }
        fabricSink = sink;
        if (channel == null)
        {
            final long nowNs = System.nanoTime();
            if (nowNs - lastConnectAttemptNs >= RECONNECT_INTERVAL_NS)
            {
                connect();
                return 1;
            }
            return 0;
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
            fail(OpStatus.NOT_CONNECTED, "connection to memd " + daemon + " failed: " + ex.getMessage());
            return 1;
        }
        if (read < 0)
        {
            fail(OpStatus.NOT_CONNECTED, "memd " + daemon + " closed the connection");
            return 1;
        }
        return read == 0 ? 0 : parse(sink);
    }

    @Override
    public void close()
    {
        closed = true;
        state = OpStatus.CLOSED;
        stateMessage = "link to process " + owner + " is closed";
        CloseHelper.quietClose(channel);
        channel = null;
    }

    private void encode(
        final long requestId,
        final byte op,
        final long offset,
        final long operand1,
        final long operand2,
        final DirectBuffer payload,
        final int payloadOffset,
        final int payloadLength,
        final int bulkLength,
        final CompletionSink sink)
    {
        final int signed = MemdProtocol.REQUEST_HEADER + payloadLength;
        if (out.remaining() < MemdProtocol.LENGTH_PREFIX + signed + MemdProtocol.TAG_LENGTH)
        {
            sink.complete(requestId, OpStatus.BACK_PRESSURED, 0, null, 0);
            return;
        }
        final int frame = out.position();
        final int body = frame + MemdProtocol.LENGTH_PREFIX;
        unanswered.add(requestId);
        out.putInt(frame, signed + MemdProtocol.TAG_LENGTH);
        out.put(body + MemdProtocol.REQ_VERSION, MemdProtocol.VERSION);
        out.put(body + MemdProtocol.REQ_OP, op);
        out.putShort(body + 2, (short)0);
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
    }

    private int parse(final CompletionSink sink)
    {
        in.flip();
        int completed = 0;
        while (in.remaining() >= MemdProtocol.LENGTH_PREFIX)
        {
            final int length = in.getInt(in.position());
            if (length < MemdProtocol.RESPONSE_HEADER + MemdProtocol.TAG_LENGTH || length > MemdProtocol.MAX_RESPONSE)
            {
                fail(OpStatus.PROTOCOL_ERROR, "memd " + daemon + " sent a frame of " + length + " bytes: " +
                    "it does not speak memd protocol version " + MemdProtocol.VERSION + ", check the daemon's version");
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
                fail(OpStatus.PROTOCOL_ERROR, "memd " + daemon + " sent a malformed response: check that it runs " +
                    "the same mmx version");
                return completed + 1;
            }
            if (!MemdProtocol.verify(mac, nonce, in, body, length - MemdProtocol.TAG_LENGTH, tagScratch))
            {
                if (status != OpStatus.BAD_CLUSTER_KEY)
                {
                    fail(OpStatus.PROTOCOL_ERROR, "a response from memd " + daemon + " failed authentication: " +
                        "the daemon runs with another cluster key, or the connection is tampered with");
                    return completed + 1;
                }
                // The daemon could not verify us, so we cannot verify it either: both hold different keys.
                status = OpStatus.BAD_CLUSTER_KEY;
            }
            unanswered.remove(requestId);
            sink.complete(requestId, status, in.getLong(body + MemdProtocol.RSP_VALUE),
                payloadLength > 0 ? inView : null, body + MemdProtocol.RESPONSE_HEADER);
            completed++;
            in.position(body + length);
        }
        in.compact();
        return completed;
    }

    private void flush()
    {
        if (channel == null || out.position() == 0)
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
            fail(OpStatus.NOT_CONNECTED, "connection to memd " + daemon + " failed: " + ex.getMessage());
        }
    }

    private void connect()
    {
        lastConnectAttemptNs = System.nanoTime();
        try
        {
            handshake();
            final OpStatus opened = controlCall(MemdProtocol.OP_OPEN_REGION, 0, true, null);
            channel.configureBlocking(false);
            state = opened;
            stateMessage = opened == OpStatus.OK ? "connected to memd " + daemon : openFailure(opened);
        }
        catch (final IOException | RuntimeException ex)
        {
            CloseHelper.quietClose(channel);
            channel = null;
            state = OpStatus.NOT_CONNECTED;
            stateMessage = "cannot reach memd " + daemon + " for the region of process " + owner + ": " +
                ex.getMessage() + "; check that memd runs there and the address in the placement is right";
        }
    }

    // Connects (blocking) and reads HELLO's nonce; on failure the channel is closed and null.
    private void handshake() throws IOException
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
        }
        catch (final IOException | RuntimeException ex)
        {
            CloseHelper.quietClose(ch);
            channel = null;
            throw ex;
        }
    }

    // A blocking request/response on the still-blocking channel: start-up and region checks only.
    private OpStatus controlCall(final byte op, final long operand1, final boolean withPlan, final long[] valueOut)
        throws IOException
    {
        final OpStatus[] result = new OpStatus[1];
        final CompletionSink sink = (id, status, value, payload, payloadOffset) ->
        {
            result[0] = status;
            if (valueOut != null)
            {
                valueOut[0] = value;
            }
        };
        encode(nextControlId++, op, 0, operand1, 0, new UnsafeBuffer(plan.toByteArray()), 0,
            withPlan ? PlanDigest.LENGTH : 0, 0, sink);
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
        parse(sink);
        return result[0] == null ? OpStatus.PROTOCOL_ERROR : result[0];
    }

    private String openFailure(final OpStatus status)
    {
        switch (status)
        {
            case REFUSED_NOT_NEIGHBOUR:
                return "memd " + daemon + " refuses process " + self + " access to the region of process " + owner +
                    ": they are not plan neighbours there, check that memd runs the same plan";
            case REGION_MISMATCH:
                return "memd " + daemon + " does not serve plan " + plan.shortHex() + ": put that plan's file in " +
                    "the daemon's --plans directory, or start it with that plan";
            case REGION_LOST:
                return "memd " + daemon + " holds no region of process " + owner + " yet: its owner must create it";
            case BAD_CLUSTER_KEY:
                return "memd " + daemon + " rejects this process's cluster key: use the cluster's key file";
            default:
                return "memd " + daemon + " answered " + status + " when opening the region of process " + owner;
        }
    }

    private void fail(final OpStatus status, final String message)
    {
        CloseHelper.quietClose(channel);
        channel = null;
        state = status == OpStatus.PROTOCOL_ERROR ? OpStatus.NOT_CONNECTED : status;
        stateMessage = message;
        in.clear();
        out.clear();
        if (!unanswered.isEmpty())
        {
            final long[] lost = new long[unanswered.size()];
            int i = 0;
            for (final org.agrona.collections.LongHashSet.LongIterator it = unanswered.iterator(); it.hasNext(); )
            {
                lost[i++] = it.nextValue();
            }
            unanswered.clear();
            if (fabricSink != null)
            {
                for (final long id : lost)
                {
                    fabricSink.complete(id, OpStatus.NOT_CONNECTED, 0, null, 0);
                }
            }
        }
    }
}
