package io.mmx.rdma.memd;

import io.mmx.planner.graph.Graph;
import io.mmx.rdma.fabric.FabricCounters;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.OpType;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.PlanDigest;
import io.mmx.rdma.region.RegionHeader;
import io.mmx.rdma.region.RegionMemory;
import org.agrona.BufferUtil;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;

import javax.crypto.Mac;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The per-host memory daemon: holds the regions of the host's processes, so that they outlive
 * the processes, and serves one-sided operations on them to the owner and its plan neighbours
 * over TCP ({@link MemdProtocol}). One I/O thread; all state is bounded by the {@link Context}.
 *
 * <p>Hostile input is dropped and counted, never executed: a frame with a bad length or
 * version closes its connection ({@link FabricCounters.Other#MALFORMED_FRAME}); a frame with a
 * bad tag is answered {@code BAD_CLUSTER_KEY}; a replayed request id, a non-neighbour, an
 * address outside the region are refused with their status. Nothing is written for any of them.
 */
public final class MemoryDaemon implements AutoCloseable
{
    private final Context context;
    private final PlanDigest planDigest;
    private final Graph plan;
    private final FabricCounters counters = new FabricCounters();
    private final ConcurrentHashMap<Integer, RegionMemory> regions = new ConcurrentHashMap<>();
    private final SecureRandom random = new SecureRandom();
    private final Mac mac;
    private final byte[] tagScratch = new byte[MemdProtocol.TAG_LENGTH];
    private final ServerSocketChannel server;
    private final Selector selector;
    private final Thread thread;
    private volatile boolean running = true;
    private int connectionCount;

    private MemoryDaemon(final Context context)
    {
        this.context = context;
        this.plan = context.plan;
        this.planDigest = context.planDigest;
        this.mac = context.clusterKey.newMac();
        try
        {
            this.selector = Selector.open();
            this.server = ServerSocketChannel.open();
            server.bind(context.listen, 256);
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("memd cannot listen on " + context.listen + ": " + ex.getMessage() +
                "; pick a free port with --listen host:port", ex);
        }
        this.thread = new Thread(this::run, "mmx-memd");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Runs a daemon from the command line; see {@link MemdCommandLine} for the options.
     *
     * @param args the options of {@code mmx memd}.
     */
    public static void main(final String[] args)
    {
        System.exit(MemdCommandLine.run(args, System.out, System.err));
    }

    /** Validates {@code context} and starts serving on its address. */
    public static MemoryDaemon start(final Context context)
    {
        return new MemoryDaemon(context.conclude());
    }

    /** The address actually bound (useful with port 0). */
    public InetSocketAddress boundAddress()
    {
        try
        {
            return (InetSocketAddress)server.getLocalAddress();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** Refusals and errors, by status, plus malformed frames and refused connections. */
    public FabricCounters counters()
    {
        return counters;
    }

    /** The region of {@code owner} held here, or null; for diagnostics and tests. */
    public RegionMemory region(final int owner)
    {
        return regions.get(owner);
    }

    /** The digest of the plan this daemon serves. */
    public PlanDigest planDigest()
    {
        return planDigest;
    }

    /** Number of client connections open now. */
    public int connectionCount()
    {
        return connectionCount;
    }

    @Override
    public void close()
    {
        running = false;
        selector.wakeup();
        try
        {
            thread.join(5_000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void run()
    {
        try
        {
            while (running)
            {
                selector.select(100);
                final Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext())
                {
                    final SelectionKey key = it.next();
                    it.remove();
                    if (!key.isValid())
                    {
                        continue;
                    }
                    if (key.isAcceptable())
                    {
                        accept();
                    }
                    else
                    {
                        ((Connection)key.attachment()).onReady(key);
                    }
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // A bug, not input: report it loudly; input problems are handled per connection.
            System.err.println("memd: I/O loop stopped: " + ex);
            ex.printStackTrace();
        }
        finally
        {
            for (final SelectionKey key : selector.keys())
            {
                CloseHelper.quietClose(key.channel());
            }
            CloseHelper.quietClose(selector);
            CloseHelper.quietClose(server);
        }
    }

    private void accept() throws IOException
    {
        SocketChannel channel;
        while ((channel = server.accept()) != null)
        {
            if (connectionCount >= context.maxConnections)
            {
                counters.increment(FabricCounters.Other.CONNECTION_REFUSED);
                CloseHelper.quietClose(channel);
                continue;
            }
            channel.configureBlocking(false);
            channel.socket().setTcpNoDelay(true);
            final Connection connection = new Connection(channel);
            connectionCount++;
            connection.key = channel.register(selector, SelectionKey.OP_READ | SelectionKey.OP_WRITE, connection);
        }
    }

    /** One client connection: its nonce, identity, replay window and bounded buffers. */
    private final class Connection
    {
        private final SocketChannel channel;
        private final ByteBuffer in = ByteBuffer.allocateDirect(MemdProtocol.LENGTH_PREFIX + MemdProtocol.MAX_REQUEST)
            .order(ByteOrder.LITTLE_ENDIAN);
        private final ByteBuffer out = ByteBuffer.allocateDirect(2 * (MemdProtocol.LENGTH_PREFIX +
            MemdProtocol.MAX_RESPONSE)).order(ByteOrder.LITTLE_ENDIAN);
        private final UnsafeBuffer inView = new UnsafeBuffer(in);
        private final UnsafeBuffer outView = new UnsafeBuffer(out);
        private final byte[] nonce = new byte[MemdProtocol.NONCE_LENGTH];
        private SelectionKey key;
        private int requester = -1;
        private long lastRequestId = Long.MIN_VALUE;
        private boolean closed;

        Connection(final SocketChannel channel)
        {
            this.channel = channel;
            random.nextBytes(nonce);
            out.putInt(MemdProtocol.HELLO_LENGTH);
            out.put(MemdProtocol.VERSION).put(MemdProtocol.KIND_HELLO).putShort((short)0).put(nonce);
        }

        void onReady(final SelectionKey key)
        {
            try
            {
                if (key.isWritable())
                {
                    flush();
                }
                if (!closed && key.isReadable())
                {
                    final int read = channel.read(in);
                    if (read < 0)
                    {
                        if (in.position() > 0)
                        {
                            counters.increment(FabricCounters.Other.MALFORMED_FRAME); // truncated frame
                        }
                        close();
                        return;
                    }
                }
                if (!closed)
                {
                    process();
                    flush();
                }
                if (!closed)
                {
                    final boolean roomForResponse = out.remaining() >= MemdProtocol.LENGTH_PREFIX + MemdProtocol.MAX_RESPONSE;
                    key.interestOps((out.position() > 0 ? SelectionKey.OP_WRITE : 0) |
                        (roomForResponse ? SelectionKey.OP_READ : 0));
                }
            }
            catch (final IOException ex)
            {
                close();
            }
        }

        private void flush() throws IOException
        {
            if (out.position() == 0)
            {
                return;
            }
            out.flip();
            channel.write(out);
            out.compact();
        }

        private void process()
        {
            in.flip();
            while (!closed && in.remaining() >= MemdProtocol.LENGTH_PREFIX)
            {
                final int length = in.getInt(in.position());
                if (length < MemdProtocol.REQUEST_HEADER + MemdProtocol.TAG_LENGTH || length > MemdProtocol.MAX_REQUEST)
                {
                    malformed();
                    return;
                }
                if (in.remaining() < MemdProtocol.LENGTH_PREFIX + length ||
                    out.remaining() < MemdProtocol.LENGTH_PREFIX + MemdProtocol.MAX_RESPONSE)
                {
                    break;
                }
                final int start = in.position() + MemdProtocol.LENGTH_PREFIX;
                handle(start, length);
                in.position(start + length);
            }
            if (!closed)
            {
                in.compact();
            }
        }

        private void handle(final int start, final int length)
        {
            if (in.get(start + MemdProtocol.REQ_VERSION) != MemdProtocol.VERSION)
            {
                malformed();
                return;
            }
            final long requestId = in.getLong(start + MemdProtocol.REQ_ID);
            if (!MemdProtocol.verify(mac, nonce, in, start, length - MemdProtocol.TAG_LENGTH, tagScratch))
            {
                respond(requestId, OpStatus.BAD_CLUSTER_KEY, 0, 0);
                return;
            }
            final int from = in.getInt(start + MemdProtocol.REQ_REQUESTER);
            if (requestId <= lastRequestId)
            {
                counters.increment(FabricCounters.Other.REPLAYED_REQUEST);
                respond(requestId, OpStatus.PROTOCOL_ERROR, 0, 0);
                return;
            }
            lastRequestId = requestId;
            if (requester >= 0 && from != requester)
            {
                // One connection speaks for one process: a switch of identity is not a client we wrote.
                respond(requestId, OpStatus.PROTOCOL_ERROR, 0, 0);
                return;
            }
            requester = from;

            final byte op = in.get(start + MemdProtocol.REQ_OP);
            final int owner = in.getInt(start + MemdProtocol.REQ_OWNER);
            final int bulkLength = in.getInt(start + MemdProtocol.REQ_LENGTH);
            final long offset = in.getLong(start + MemdProtocol.REQ_OFFSET);
            final long operand1 = in.getLong(start + MemdProtocol.REQ_OPERAND1);
            final long operand2 = in.getLong(start + MemdProtocol.REQ_OPERAND2);
            final int payloadLength = length - MemdProtocol.REQUEST_HEADER - MemdProtocol.TAG_LENGTH;
            final int payload = start + MemdProtocol.REQUEST_HEADER;

            if (op == MemdProtocol.OP_CREATE_REGION)
            {
                createRegion(requestId, from, owner, operand1, payload, payloadLength);
                return;
            }
            if (op == MemdProtocol.OP_OPEN_REGION)
            {
                openRegion(requestId, from, owner, payload, payloadLength);
                return;
            }
            final OpType type = OpType.fromCode(op);
            if (type == null || payloadLength != (type == OpType.WRITE_BULK ? bulkLength : 0))
            {
                respond(requestId, OpStatus.PROTOCOL_ERROR, 0, 0);
                return;
            }
            if (!mayAccess(from, owner))
            {
                respond(requestId, OpStatus.REFUSED_NOT_NEIGHBOUR, 0, 0);
                return;
            }
            final RegionMemory region = regions.get(owner);
            if (region == null)
            {
                respond(requestId, OpStatus.REGION_LOST, 0, 0);
                return;
            }
            final OpStatus check = region.check(type, offset, type.isWordOp() ? Long.BYTES : bulkLength);
            if (check != OpStatus.OK)
            {
                respond(requestId, check, 0, 0);
                return;
            }
            switch (type)
            {
                case READ_BULK:
                    region.readBulk(offset, outView,
                        out.position() + MemdProtocol.LENGTH_PREFIX + MemdProtocol.RESPONSE_HEADER, bulkLength);
                    respond(requestId, OpStatus.OK, bulkLength, bulkLength);
                    break;
                case WRITE_BULK:
                    region.writeBulk(offset, inView, payload, bulkLength);
                    respond(requestId, OpStatus.OK, bulkLength, 0);
                    break;
                default:
                    respond(requestId, OpStatus.OK, region.executeWord(type, offset, operand1, operand2), 0);
                    break;
            }
        }

        private void createRegion(
            final long requestId,
            final int from,
            final int owner,
            final long dataBytes,
            final int payload,
            final int payloadLength)
        {
            if (payloadLength != PlanDigest.LENGTH)
            {
                respond(requestId, OpStatus.PROTOCOL_ERROR, 0, 0);
                return;
            }
            if (from != owner || owner < 0 || owner >= plan.n())
            {
                // Only the owner creates its region; nobody creates one for a process outside the plan.
                respond(requestId, OpStatus.REFUSED_NOT_NEIGHBOUR, 0, 0);
                return;
            }
            if (!planDigestMatches(payload))
            {
                respond(requestId, OpStatus.REGION_MISMATCH, 0, 0);
                return;
            }
            if (dataBytes < 8 || dataBytes > context.maxRegionBytes || (dataBytes & 7) != 0)
            {
                respond(requestId, OpStatus.BAD_LENGTH, 0, 0);
                return;
            }
            final RegionMemory existing = regions.get(owner);
            if (existing != null)
            {
                // A restarted owner reattaches to its state; a different size is another cluster's region.
                respond(requestId, existing.dataBytes() == dataBytes ? OpStatus.OK : OpStatus.REGION_MISMATCH,
                    existing.dataBytes(), 0);
                return;
            }
            if (regions.size() >= context.maxRegions)
            {
                respond(requestId, OpStatus.BACK_PRESSURED, 0, 0);
                return;
            }
            final UnsafeBuffer buffer = new UnsafeBuffer(
                BufferUtil.allocateDirectAligned((int)(RegionHeader.HEADER_BYTES + dataBytes), 64));
            RegionHeader.write(buffer, owner, dataBytes, planDigest, context.clusterKey);
            regions.put(owner, new RegionMemory(buffer, owner));
            respond(requestId, OpStatus.OK, dataBytes, 0);
        }

        private void openRegion(
            final long requestId, final int from, final int owner, final int payload, final int payloadLength)
        {
            if (payloadLength != PlanDigest.LENGTH)
            {
                respond(requestId, OpStatus.PROTOCOL_ERROR, 0, 0);
                return;
            }
            if (!mayAccess(from, owner))
            {
                respond(requestId, OpStatus.REFUSED_NOT_NEIGHBOUR, 0, 0);
                return;
            }
            if (!planDigestMatches(payload))
            {
                respond(requestId, OpStatus.REGION_MISMATCH, 0, 0);
                return;
            }
            final RegionMemory region = regions.get(owner);
            if (region == null)
            {
                respond(requestId, OpStatus.REGION_LOST, 0, 0);
                return;
            }
            respond(requestId, OpStatus.OK, region.dataBytes(), 0);
        }

        // Control path only (CREATE, OPEN): allocates.
        private boolean planDigestMatches(final int payload)
        {
            final byte[] digest = new byte[PlanDigest.LENGTH];
            in.get(payload, digest);
            return PlanDigest.of(digest).equals(planDigest);
        }

        private boolean mayAccess(final int from, final int owner)
        {
            return from >= 0 && from < plan.n() && owner >= 0 && owner < plan.n() &&
                (from == owner || plan.hasEdge(from, owner));
        }

        // The payload, if any, is already in place after the header.
        private void respond(final long requestId, final OpStatus status, final long value, final int payloadLength)
        {
            if (status != OpStatus.OK)
            {
                counters.increment(status);
            }
            final int frame = out.position();
            final int body = frame + MemdProtocol.LENGTH_PREFIX;
            final int signed = MemdProtocol.RESPONSE_HEADER + payloadLength;
            out.putInt(frame, signed + MemdProtocol.TAG_LENGTH);
            out.put(body + MemdProtocol.RSP_VERSION, MemdProtocol.VERSION);
            out.put(body + MemdProtocol.RSP_KIND, MemdProtocol.KIND_RESPONSE);
            out.put(body + MemdProtocol.RSP_STATUS, (byte)status.ordinal());
            out.put(body + 3, (byte)0);
            out.putInt(body + MemdProtocol.RSP_PAYLOAD_LENGTH, payloadLength);
            out.putLong(body + MemdProtocol.RSP_ID, requestId);
            out.putLong(body + MemdProtocol.RSP_VALUE, value);
            MemdProtocol.tag(mac, nonce, out, body, signed, tagScratch, 0);
            out.position(body + signed);
            out.put(tagScratch);
        }

        private void malformed()
        {
            counters.increment(FabricCounters.Other.MALFORMED_FRAME);
            close();
        }

        private void close()
        {
            if (!closed)
            {
                closed = true;
                connectionCount--;
                if (key != null)
                {
                    key.cancel();
                }
                CloseHelper.quietClose(channel);
            }
        }
    }

    /**
     * Configuration of a daemon; {@link #conclude()} validates all of it at once.
     */
    public static final class Context
    {
        private InetSocketAddress listen = new InetSocketAddress("0.0.0.0", 7400);
        private ClusterKey clusterKey;
        private Graph plan;
        private PlanDigest planDigest;
        private int maxConnections = 1024;
        private int maxRegions = -1;
        private long maxRegionBytes = 64L * 1024 * 1024;

        /** Address to listen on; port 0 picks a free port. Default 0.0.0.0:7400. */
        public Context listen(final InetSocketAddress listen)
        {
            this.listen = listen;
            return this;
        }

        /** The cluster key; required. */
        public Context clusterKey(final ClusterKey clusterKey)
        {
            this.clusterKey = clusterKey;
            return this;
        }

        /** The plan whose edges grant access; required. */
        public Context plan(final Graph plan)
        {
            this.plan = plan;
            return this;
        }

        /** The plan's digest as recorded in region headers; defaults to {@link PlanDigest#of(Graph)}. */
        public Context planDigest(final PlanDigest planDigest)
        {
            this.planDigest = planDigest;
            return this;
        }

        /** Connection limit, default 1024; each connection costs about 200 KiB of direct memory. */
        public Context maxConnections(final int maxConnections)
        {
            this.maxConnections = maxConnections;
            return this;
        }

        /** Region limit; defaults to the plan's process count. */
        public Context maxRegions(final int maxRegions)
        {
            this.maxRegions = maxRegions;
            return this;
        }

        /** Largest data area of one region. Default 64 MiB. */
        public Context maxRegionBytes(final long maxRegionBytes)
        {
            this.maxRegionBytes = maxRegionBytes;
            return this;
        }

        /**
         * Checks every setting, reporting all problems in one message.
         *
         * @throws IllegalArgumentException naming each invalid setting and its fix.
         */
        public Context conclude()
        {
            final StringBuilder problems = new StringBuilder();
            if (clusterKey == null)
            {
                problems.append("no cluster key: pass --cluster-key-file with the cluster's key file; ");
            }
            if (plan == null)
            {
                problems.append("no plan: pass --plan with the plan's edge list; ");
            }
            if (listen == null)
            {
                problems.append("no listen address: pass --listen host:port; ");
            }
            if (maxConnections < 1)
            {
                problems.append("max connections ").append(maxConnections).append(" must be at least 1; ");
            }
            if (maxRegionBytes < 8 || maxRegionBytes > RegionHeader.MAX_DATA_BYTES)
            {
                problems.append("max region bytes ").append(maxRegionBytes).append(" must be in 8..")
                    .append(RegionHeader.MAX_DATA_BYTES).append("; ");
            }
            if (problems.length() > 0)
            {
                throw new IllegalArgumentException("memd configuration is invalid: " +
                    problems.substring(0, problems.length() - 2));
            }
            if (planDigest == null)
            {
                planDigest = PlanDigest.of(plan);
            }
            if (maxRegions < 0)
            {
                maxRegions = plan.n();
            }
            return this;
        }
    }
}
