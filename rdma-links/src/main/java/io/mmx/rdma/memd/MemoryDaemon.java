package io.mmx.rdma.memd;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.FabricCounters;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.OpType;
import io.mmx.rdma.net.AcceptLoop;
import io.mmx.rdma.region.ClusterKey;
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
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The per-host memory daemon: holds the regions of the host's processes, so that they outlive
 * the processes, and serves one-sided operations on them to the owner and its plan neighbours
 * over TCP ({@link MemdProtocol}). One I/O thread; all state is bounded by the {@link Context}.
 *
 * <p>Several plans at once: when the cluster changes plans, every process starts the new era on
 * fresh regions while the old era's regions are still read by peers finishing it. So regions are
 * kept per plan and era, keyed by (plan digest, era, owner): the same process may own one region under each
 * plan, and they are distinct memory. CREATE and OPEN name a plan by its digest; the daemon
 * serves its launch plan ({@link Context#plan}), the plans given with {@link Context#plans}, and
 * any plan it finds, when first named, in the plans directory ({@link Context#plansDirectory}).
 * A connection carries up to {@link MemdProtocol#MAX_BINDINGS} bindings, and each request names
 * one: a binding is bound to the plan of its last CREATE or OPEN that was granted (binding 0 to the
 * launch plan until then, the others to nothing), and an operation on it reaches that plan's
 * regions, granted by that plan's edges. A refused CREATE or OPEN unbinds its binding, and an
 * operation on an unbound binding is refused {@code REGION_MISMATCH}. So one connection serves an
 * edge in two eras at once, and a live plan change keeps the connections of the edges both plans
 * share. An unknown digest is refused {@code REGION_MISMATCH}. A plan's regions are never
 * released while the daemon runs, opened or not: regions outlive their processes.
 *
 * <p>Identity: every frame is tagged under the requester's process key ({@link
 * io.mmx.rdma.region.ProcessKey}), which the daemon derives from the cluster key; a connection
 * speaks for the process its first authenticated frame names. A process holding only its own key
 * cannot act as another process.
 *
 * <p>Hostile input is dropped and counted, never executed: a frame with a bad length or
 * version closes its connection ({@link FabricCounters.Other#MALFORMED_FRAME}); a frame with a
 * bad tag is answered {@code BAD_CLUSTER_KEY}, and the third on one connection closes it; a
 * replayed request id, a non-neighbour, an address outside the region are refused with their
 * status. Nothing is written for any of them.
 *
 * <p>Hostile connections cannot lock others out. A connection is <em>pending</em> until its
 * first frame with a valid tag: it holds only small buffers, must authenticate within the
 * handshake timeout, and when the pending limit is reached a new connection evicts the oldest
 * pending one. Authenticated connections get full buffers; their number is bounded by the memory
 * budget ({@link Context#maxConnections}) and an idle one is closed after the idle timeout.
 * If the I/O thread fails (an allocation failure included), the daemon stops serving at once,
 * closes every connection and reports the failure through {@link #awaitTermination}; the
 * command line then exits non-zero so that the service manager restarts it.
 */
public final class MemoryDaemon implements AutoCloseable
{
    /** Direct memory of an authenticated connection's buffers (one request in, two responses out). */
    public static final int CONNECTION_BUFFER_BYTES = MemdProtocol.LENGTH_PREFIX + MemdProtocol.MAX_REQUEST +
        2 * (MemdProtocol.LENGTH_PREFIX + MemdProtocol.MAX_RESPONSE);
    /** Bad tags on one connection after which it is closed. */
    public static final int MAX_BAD_TAGS = 3;
    // A pending connection reads frames up to a control request with a small payload, and answers one.
    private static final int PENDING_IN_BYTES = MemdProtocol.LENGTH_PREFIX + MemdProtocol.REQUEST_HEADER + 64 +
        MemdProtocol.TAG_LENGTH;
    private static final int PENDING_OUT_BYTES = MemdProtocol.LENGTH_PREFIX + MemdProtocol.HELLO_LENGTH +
        MemdProtocol.LENGTH_PREFIX + MemdProtocol.RESPONSE_HEADER + MemdProtocol.TAG_LENGTH;

    private final Context context;
    private final PlanDigest planDigest;
    private final ServedPlan launchPlan;
    // Every plan served, by digest: read by the control path and diagnostics, written by the I/O thread.
    /** The regions served, by plan and era (a plan's regions of era 0 are its launch regions). */
    private final ConcurrentHashMap<PlanEra, ServedPlan> plans = new ConcurrentHashMap<>();
    /** The graphs of the plans known, by digest: given at start or learned from the plans directory. */
    private final ConcurrentHashMap<PlanDigest, Graph> graphs = new ConcurrentHashMap<>();
    private final io.mmx.planner.plan.PlanDirectory plansDirectory;
    private final FabricCounters counters = new FabricCounters();
    /**
     * Authenticated connections open per requesting process: a process's node holds one to the daemon
     * of its own region while its JVM lives (its loopback link), and the kernel closes it the moment
     * the JVM dies. Every answer about an owner's region says whether the owner has one
     * ({@link MemdProtocol#FLAG_OWNER_CONNECTED}), so a peer tells a dead owner from a slow one.
     * Daemon thread only.
     */
    private final org.agrona.collections.Int2IntHashMap connectionsOf = new org.agrona.collections.Int2IntHashMap(0);
    private final SecureRandom random = new SecureRandom();
    // Process keys' MACs, derived from the cluster key on first use, one per process of the plans known at start.
    private final Mac[] processMacs;
    private final byte[] tagScratch = new byte[MemdProtocol.TAG_LENGTH];
    // Pending connections are the loop's opening ones: handshake timeout, oldest evicted when full.
    private final AcceptLoop loop;
    private final java.util.ArrayList<Connection> authenticated = new java.util.ArrayList<>();
    private volatile int connectionCount;
    private long nextSweepNs;
    private long regionBytes;
    // Regions held over all plans; written by the I/O thread only.
    private volatile int regionCount;
    // The plans each owner created regions under, latest first (two at most); I/O thread only.
    private final java.util.HashMap<Integer, ServedPlan[]> recentPlansOf = new java.util.HashMap<>();

    private MemoryDaemon(final Context context)
    {
        this.context = context;
        this.planDigest = context.planDigest;
        this.launchPlan = new ServedPlan(context.planDigest, context.plan, 0);
        plans.put(new PlanEra(planDigest, 0), launchPlan);
        graphs.put(planDigest, context.plan);
        int largestN = context.plan.n();
        for (final Graph graph : context.plans)
        {
            final PlanDigest digest = PlanDigest.ofGraph(graph);
            graphs.putIfAbsent(digest, graph);
            largestN = Math.max(largestN, graph.n());
        }
        this.plansDirectory = context.plansDirectory == null ? null :
            new io.mmx.planner.plan.PlanDirectory(context.plansDirectory);
        this.processMacs = new Mac[largestN];
        try
        {
            this.loop = AcceptLoop.bind(context.listen, context.maxPendingConnections,
                java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(context.handshakeTimeoutMs), "mmx-memd");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(listenFailure(context.listen, ex), ex);
        }
        loop.start(new AcceptLoop.Handler()
        {
            @Override
            public AcceptLoop.Peer accepted(final SocketChannel channel, final Selector selector, final long nowNs)
                throws IOException
            {
                final Connection connection = new Connection(channel, nowNs);
                connectionCount++;
                connection.key = channel.register(selector, SelectionKey.OP_READ | SelectionKey.OP_WRITE, connection);
                return connection;
            }

            @Override
            public void afterSelect(final long nowNs)
            {
                closeIdle(nowNs);
            }

            @Override
            public void stopped(final Throwable failure)
            {
                authenticated.clear();
                connectionCount = 0;
            }
        });
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

    // One sentence naming the address and the fix; "in use" is the usual cause, so it gets its own words.
    static String listenFailure(final InetSocketAddress listen, final IOException ex)
    {
        final String where = listen.getHostString() + ":" + listen.getPort();
        if (ex instanceof java.net.BindException && String.valueOf(ex.getMessage()).contains("in use"))
        {
            return "cannot listen on " + where + ": port " + listen.getPort() + " is already in use; stop what holds it " +
                "(ss -ltnp 'sport = :" + listen.getPort() + "' shows it) or pass another port with --listen HOST:PORT";
        }
        return "cannot listen on " + where + " (" + ex.getMessage() + "): pass an address of this host with --listen HOST:PORT";
    }

    /** Validates {@code context} and starts serving on its address. */
    public static MemoryDaemon start(final Context context)
    {
        return new MemoryDaemon(context.conclude());
    }

    /** The address actually bound (useful with port 0). */
    public InetSocketAddress boundAddress()
    {
        return loop.boundAddress();
    }

    /** Refusals and errors, by status, plus malformed frames and refused connections. */
    public FabricCounters counters()
    {
        return counters;
    }

    /** The region of {@code owner} under the launch plan, or null; for diagnostics and tests. */
    public RegionMemory region(final int owner)
    {
        return launchPlan.region(owner);
    }

    /** The region of {@code owner} under the plan with digest {@code plan} in era 0, or null; for diagnostics and tests. */
    public RegionMemory region(final PlanDigest plan, final int owner)
    {
        return region(plan, 0, owner);
    }

    /** The region of {@code owner} under the plan with digest {@code plan} in {@code era}, or null. */
    public RegionMemory region(final PlanDigest plan, final int era, final int owner)
    {
        final ServedPlan served = plans.get(new PlanEra(plan, era));
        return served == null ? null : served.region(owner);
    }

    /** The digest of the launch plan, the one this daemon was started with. */
    public PlanDigest planDigest()
    {
        return planDigest;
    }

    /** The digests of every plan served now: the launch plan, the plans given, those learned from the plans directory. */
    public java.util.Set<PlanDigest> planDigests()
    {
        return java.util.Set.copyOf(graphs.keySet());
    }

    /** Regions held now, over all plans. */
    public int regionCount()
    {
        return regionCount;
    }

    /** Number of client connections open now, pending or authenticated. */
    public int connectionCount()
    {
        return connectionCount;
    }

    /**
     * Waits until the I/O thread has stopped, after {@link #close()} or a failure.
     *
     * @return null after a normal close, else what stopped the I/O thread.
     */
    public Throwable awaitTermination() throws InterruptedException
    {
        return loop.awaitTermination();
    }

    /** What stopped the I/O thread, or null while it runs or after a normal close. */
    public Throwable failure()
    {
        return loop.failure();
    }

    /**
     * Stops serving because a part of this daemon beside its I/O thread failed (verbs mode: the
     * region host): every connection is closed and {@link #awaitTermination()} returns {@code cause},
     * so the daemon exits non-zero instead of staying alive half-served.
     */
    public void stopServing(final Throwable cause)
    {
        loop.stop(cause);
    }

    @Override
    public void close()
    {
        loop.close();
    }

    // Closes authenticated connections idle too long (the loop closes pending ones at the handshake timeout).
    private void closeIdle(final long nowNs)
    {
        if (nowNs - nextSweepNs < 0)
        {
            return;
        }
        nextSweepNs = nowNs + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(Math.max(10, context.idleTimeoutMs / 4));
        final long idleNs = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(context.idleTimeoutMs);
        for (int i = authenticated.size() - 1; i >= 0; i--)
        {
            final Connection connection = authenticated.get(i);
            if (nowNs - connection.lastFrameNs >= idleNs)
            {
                connection.close();
            }
        }
    }

    // The MAC of the process a connection claims to speak for; ids outside the plans known at start get a
    // fresh one (a plan learned later may hold them; otherwise their requests are refused, still tagged for them).
    private Mac processMac(final int process)
    {
        if (process < 0 || process >= processMacs.length)
        {
            return context.clusterKey.processKey(process).newMac();
        }
        if (processMacs[process] == null)
        {
            processMacs[process] = context.clusterKey.processKey(process).newMac();
        }
        return processMacs[process];
    }

    // The regions of the plan a CREATE or OPEN names in the era it names, learning the plan from the plans
    // directory if need be; null when unknown. Control path only: it allocates, and may read files.
    private ServedPlan servedPlan(final PlanDigest digest, final int era)
    {
        final PlanEra key = new PlanEra(digest, era);
        final ServedPlan known = plans.get(key);
        if (known != null)
        {
            return known;
        }
        Graph graph = graphs.get(digest);
        if (graph == null && plansDirectory != null)
        {
            final io.mmx.planner.plan.PlanDirectory.Found found =
                plansDirectory.find(plan -> PlanDigest.ofGraph(plan.graph()).equals(digest));
            graph = found == null ? null : found.plan().graph();
        }
        if (graph == null)
        {
            return null;
        }
        graphs.putIfAbsent(digest, graph);
        final ServedPlan served = new ServedPlan(digest, graph, era);
        plans.put(key, served);
        return served;
    }

    /** A plan's regions of one era: two eras of one graph (a change of placement only) are distinct memory. */
    private record PlanEra(PlanDigest digest, int era)
    {
    }

    /**
     * A plan served in one era: its digest (recorded in its regions' headers), the graph whose edges
     * grant access to its regions, and those regions by owner.
     */
    private static final class ServedPlan
    {
        private final PlanDigest digest;
        private final Graph graph;
        private final AtomicReferenceArray<RegionMemory> regions;

        ServedPlan(final PlanDigest digest, final Graph graph, final int era)
        {
            this.digest = digest;
            this.graph = graph;
            this.regions = new AtomicReferenceArray<>(graph.n());
        }

        RegionMemory region(final int owner)
        {
            return owner >= 0 && owner < regions.length() ? regions.get(owner) : null;
        }

        boolean mayAccess(final int from, final int owner)
        {
            return from >= 0 && from < graph.n() && owner >= 0 && owner < graph.n() &&
                (from == owner || graph.hasEdge(from, owner));
        }
    }

    /**
     * One client connection: its nonce, identity, replay window and bounded buffers. Pending
     * connections hold {@link #PENDING_IN_BYTES} + {@link #PENDING_OUT_BYTES}; the full buffers
     * ({@link #CONNECTION_BUFFER_BYTES}) come with the first authenticated frame.
     */
    private final class Connection implements AcceptLoop.Peer
    {
        private final SocketChannel channel;
        private ByteBuffer in = ByteBuffer.allocateDirect(PENDING_IN_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        private ByteBuffer out = ByteBuffer.allocateDirect(PENDING_OUT_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        private UnsafeBuffer inView = new UnsafeBuffer(in);
        private UnsafeBuffer outView = new UnsafeBuffer(out);
        private final byte[] nonce = new byte[MemdProtocol.NONCE_LENGTH];
        private SelectionKey key;
        private int requester = -1;
        /** The owner the request being answered is about, or -1 (its answer carries no owner flag). */
        private int answeringOwner = -1;
        // Per binding, the plan of its last CREATE or OPEN granted (binding 0: the launch plan until then).
        private final ServedPlan[] bound = new ServedPlan[MemdProtocol.MAX_BINDINGS];
        private long lastRequestId = Long.MIN_VALUE;
        // Until authenticated, the MAC of the requester the current frame names; then the bound requester's.
        private Mac mac;
        private long lastFrameNs;
        private int badTags;
        private boolean isAuthenticated;
        private boolean closed;

        Connection(final SocketChannel channel, final long nowNs)
        {
            this.channel = channel;
            this.lastFrameNs = nowNs;
            this.bound[0] = launchPlan;
            random.nextBytes(nonce);
            out.putInt(MemdProtocol.HELLO_LENGTH);
            out.put(MemdProtocol.VERSION).put(MemdProtocol.KIND_HELLO).putShort((short)0).put(nonce);
        }

        private int maxRequest()
        {
            return isAuthenticated ? MemdProtocol.MAX_REQUEST : PENDING_IN_BYTES - MemdProtocol.LENGTH_PREFIX;
        }

        private int responseRoom()
        {
            return MemdProtocol.LENGTH_PREFIX + (isAuthenticated ? MemdProtocol.MAX_RESPONSE :
                MemdProtocol.RESPONSE_HEADER + MemdProtocol.TAG_LENGTH);
        }

        /**
         * Moves a pending connection to the authenticated set with full buffers, or refuses it when
         * the memory budget's connections are taken. {@code in} is flipped (being parsed) on entry and exit.
         */
        private boolean authenticate(final long requestId)
        {
            loop.opened(this);
            if (authenticated.size() >= context.maxConnections)
            {
                counters.increment(FabricCounters.Other.CONNECTION_REFUSED);
                respond(requestId, OpStatus.BACK_PRESSURED, 0, 0);
                try
                {
                    flush();
                }
                catch (final IOException ignore)
                {
                    // Closing anyway.
                }
                close();
                return false;
            }
            final ByteBuffer bigIn = ByteBuffer.allocateDirect(MemdProtocol.LENGTH_PREFIX + MemdProtocol.MAX_REQUEST)
                .order(ByteOrder.LITTLE_ENDIAN);
            final ByteBuffer bigOut = ByteBuffer.allocateDirect(2 * (MemdProtocol.LENGTH_PREFIX +
                MemdProtocol.MAX_RESPONSE)).order(ByteOrder.LITTLE_ENDIAN);
            bigIn.put(in).flip();
            out.flip();
            bigOut.put(out);
            in = bigIn;
            out = bigOut;
            inView = new UnsafeBuffer(in);
            outView = new UnsafeBuffer(out);
            isAuthenticated = true;
            authenticated.add(this);
            return true;
        }

        @Override
        public void onDropped(final boolean evicted)
        {
            // Evicted for a newer connection, or no authenticated frame within the handshake timeout.
            counters.increment(FabricCounters.Other.CONNECTION_REFUSED);
            close();
        }

        @Override
        public void onReady(final SelectionKey key)
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
                // A burst can hold more requests than the output buffer has room to answer: after each
                // flush that made room, go back to them. Nothing else would: no more may come from a
                // client whose fabric fenced this region when one of them timed out.
                boolean waitingForRoom = true;
                while (!closed && waitingForRoom)
                {
                    waitingForRoom = process();
                    flush();
                    waitingForRoom &= out.remaining() >= responseRoom();
                }
                if (!closed)
                {
                    final boolean roomForResponse = out.remaining() >= responseRoom();
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

        /**
         * Answers the complete requests buffered, while the output buffer has room for an answer.
         *
         * @return true when it stopped for want of room with a complete request still buffered.
         */
        private boolean process()
        {
            boolean waitingForRoom = false;
            in.flip();
            while (!closed && in.remaining() >= MemdProtocol.LENGTH_PREFIX)
            {
                final int length = in.getInt(in.position());
                if (length < MemdProtocol.REQUEST_HEADER + MemdProtocol.TAG_LENGTH || length > maxRequest())
                {
                    malformed();
                    return false;
                }
                if (in.remaining() < MemdProtocol.LENGTH_PREFIX + length)
                {
                    break;
                }
                if (out.remaining() < responseRoom())
                {
                    waitingForRoom = true;
                    break;
                }
                int start = in.position() + MemdProtocol.LENGTH_PREFIX;
                if (in.get(start + MemdProtocol.REQ_VERSION) != MemdProtocol.VERSION)
                {
                    malformed();
                    return false;
                }
                final long requestId = in.getLong(start + MemdProtocol.REQ_ID);
                if (!isAuthenticated)
                {
                    // The first authenticated frame binds the connection to one process: its tag must be
                    // under that process's key, which only that process (and the cluster key's holders) has.
                    mac = processMac(in.getInt(start + MemdProtocol.REQ_REQUESTER));
                }
                if (!MemdProtocol.verify(mac, nonce, in, start, length - MemdProtocol.TAG_LENGTH, tagScratch))
                {
                    respond(requestId, OpStatus.BAD_CLUSTER_KEY, 0, 0);
                    in.position(start + length);
                    if (++badTags >= MAX_BAD_TAGS)
                    {
                        // Answered, so a misconfigured client learns why; then closed, so nobody grinds HMACs here.
                        try
                        {
                            flush();
                        }
                        catch (final IOException ignore)
                        {
                            // Closing anyway.
                        }
                        close();
                        return false;
                    }
                    continue;
                }
                if (!isAuthenticated)
                {
                    if (!authenticate(requestId))
                    {
                        return false;
                    }
                    start = in.position() + MemdProtocol.LENGTH_PREFIX;
                }
                lastFrameNs = System.nanoTime();
                handle(start, length, requestId);
                in.position(start + length);
            }
            if (!closed)
            {
                in.compact();
            }
            return waitingForRoom && !closed;
        }

        // The frame's version and tag are verified.
        private void handle(final int start, final int length, final long requestId)
        {
            answeringOwner = -1;
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
                // One connection speaks for one process (its tags are under that process's key); a frame
                // naming another requester is not from a client we wrote.
                respond(requestId, OpStatus.PROTOCOL_ERROR, 0, 0);
                return;
            }
            if (requester < 0)
            {
                connectionsOf.put(from, connectionsOf.get(from) + 1);
            }
            requester = from;

            final byte op = in.get(start + MemdProtocol.REQ_OP);
            final int binding = in.getShort(start + MemdProtocol.REQ_BINDING) & 0xFFFF;
            if (binding >= MemdProtocol.MAX_BINDINGS)
            {
                respond(requestId, OpStatus.PROTOCOL_ERROR, 0, 0);
                return;
            }
            final int owner = in.getInt(start + MemdProtocol.REQ_OWNER);
            answeringOwner = owner;
            final int bulkLength = in.getInt(start + MemdProtocol.REQ_LENGTH);
            final long offset = in.getLong(start + MemdProtocol.REQ_OFFSET);
            final long operand1 = in.getLong(start + MemdProtocol.REQ_OPERAND1);
            final long operand2 = in.getLong(start + MemdProtocol.REQ_OPERAND2);
            final int payloadLength = length - MemdProtocol.REQUEST_HEADER - MemdProtocol.TAG_LENGTH;
            final int payload = start + MemdProtocol.REQUEST_HEADER;

            if (op == MemdProtocol.OP_CREATE_REGION)
            {
                bound[binding] = createRegion(requestId, from, owner, operand1, operand2, payload, payloadLength);
                return;
            }
            if (op == MemdProtocol.OP_PING)
            {
                respond(requestId, payloadLength == 0 ? OpStatus.OK : OpStatus.PROTOCOL_ERROR, regionCount, 0);
                return;
            }
            if (op == MemdProtocol.OP_OPEN_REGION)
            {
                bound[binding] = openRegion(requestId, from, owner, operand2, payload, payloadLength);
                return;
            }
            final OpType type = OpType.fromCode(op);
            if (type == null || payloadLength != (type == OpType.WRITE_BULK ? bulkLength : 0))
            {
                respond(requestId, OpStatus.PROTOCOL_ERROR, 0, 0);
                return;
            }
            final ServedPlan plan = bound[binding];
            if (plan == null)
            {
                respond(requestId, OpStatus.REGION_MISMATCH, 0, 0);
                return;
            }
            if (!plan.mayAccess(from, owner))
            {
                respond(requestId, OpStatus.REFUSED_NOT_NEIGHBOUR, 0, 0);
                return;
            }
            final RegionMemory region = plan.regions.get(owner);
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

        /** Creates (or confirms) the owner's region; returns the plan the binding is bound to, null if refused. */
        private ServedPlan createRegion(
            final long requestId,
            final int from,
            final int owner,
            final long dataBytes,
            final long era,
            final int payload,
            final int payloadLength)
        {
            if (payloadLength != PlanDigest.LENGTH || era < 0 || era > Integer.MAX_VALUE)
            {
                respond(requestId, OpStatus.PROTOCOL_ERROR, 0, 0);
                return null;
            }
            if (from != owner || owner < 0)
            {
                // Only the owner creates its region.
                respond(requestId, OpStatus.REFUSED_NOT_NEIGHBOUR, 0, 0);
                return null;
            }
            final ServedPlan served = servedPlan(digest(payload), (int)era);
            if (served == null)
            {
                respond(requestId, OpStatus.REGION_MISMATCH, 0, 0);
                return null;
            }
            if (owner >= served.graph.n())
            {
                // Nobody creates a region for a process outside the plan.
                respond(requestId, OpStatus.REFUSED_NOT_NEIGHBOUR, 0, 0);
                return null;
            }
            if (dataBytes < 8 || dataBytes > context.maxRegionBytes || (dataBytes & 7) != 0)
            {
                respond(requestId, OpStatus.BAD_LENGTH, 0, 0);
                return null;
            }
            final RegionMemory existing = served.regions.get(owner);
            if (existing != null)
            {
                // A restarted owner reattaches to its state; a different size is another cluster's region.
                final boolean same = existing.dataBytes() == dataBytes;
                respond(requestId, same ? OpStatus.OK : OpStatus.REGION_MISMATCH, existing.dataBytes(), 0);
                return same ? served : null;
            }
            if (regionCount >= context.maxRegions || regionBytes + dataBytes > context.regionBudgetBytes())
            {
                respond(requestId, OpStatus.BACK_PRESSURED, 0, 0);
                return null;
            }
            regionBytes += RegionHeader.HEADER_BYTES + dataBytes;
            final UnsafeBuffer buffer = new UnsafeBuffer(
                BufferUtil.allocateDirectAligned((int)(RegionHeader.HEADER_BYTES + dataBytes), 64));
            RegionHeader.write(buffer, owner, dataBytes, served.digest, context.clusterKey);
            served.regions.set(owner, new RegionMemory(buffer, owner));
            regionCount++;
            releaseOlderRegions(owner, served);
            respond(requestId, OpStatus.OK, dataBytes, 0);
            return served;
        }

        /**
         * An owner that created a region under a new plan keeps it and its region of the plan before;
         * the ones before those are released. A live plan change's ended era needs its regions only
         * until every node began the next one (seconds), and a daemon that kept every era's would fill
         * up after a few changes. A later operation on a released region is answered REGION_LOST.
         */
        private void releaseOlderRegions(final int owner, final ServedPlan created)
        {
            final ServedPlan[] recent = recentPlansOf.computeIfAbsent(owner, o -> new ServedPlan[2]);
            if (recent[0] == created)
            {
                return;
            }
            final ServedPlan oldest = recent[1];
            recent[1] = recent[0];
            recent[0] = created;
            if (oldest == null || oldest == created || oldest == recent[1])
            {
                return;
            }
            final RegionMemory released = oldest.regions.getAndSet(owner, null);
            if (released != null)
            {
                // The memory goes with its last reference: a connection still bound to it finds the region gone.
                regionBytes -= RegionHeader.HEADER_BYTES + released.dataBytes();
                regionCount--;
            }
        }

        /** Opens the owner's region of a plan; returns the plan the binding is bound to, null if refused. */
        private ServedPlan openRegion(
            final long requestId, final int from, final int owner, final long era, final int payload,
            final int payloadLength)
        {
            if (payloadLength != PlanDigest.LENGTH || era < 0 || era > Integer.MAX_VALUE)
            {
                respond(requestId, OpStatus.PROTOCOL_ERROR, 0, 0);
                return null;
            }
            if (from < 0 || owner < 0)
            {
                respond(requestId, OpStatus.REFUSED_NOT_NEIGHBOUR, 0, 0);
                return null;
            }
            final ServedPlan served = servedPlan(digest(payload), (int)era);
            if (served == null)
            {
                respond(requestId, OpStatus.REGION_MISMATCH, 0, 0);
                return null;
            }
            if (!served.mayAccess(from, owner))
            {
                respond(requestId, OpStatus.REFUSED_NOT_NEIGHBOUR, 0, 0);
                return null;
            }
            // Granted, even before the owner created its region: the binding's operations reach this plan's
            // regions from now on, and are answered REGION_LOST until the region exists.
            final RegionMemory region = served.regions.get(owner);
            if (region == null)
            {
                respond(requestId, OpStatus.REGION_LOST, 0, 0);
                return served;
            }
            respond(requestId, OpStatus.OK, region.dataBytes(), 0);
            return served;
        }

        // Control path only (CREATE, OPEN): allocates.
        private PlanDigest digest(final int payload)
        {
            final byte[] digest = new byte[PlanDigest.LENGTH];
            in.get(payload, digest);
            return PlanDigest.of(digest);
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
            out.put(body + MemdProtocol.RSP_FLAGS, answeringOwner >= 0 && connectionsOf.get(answeringOwner) > 0 ?
                MemdProtocol.FLAG_OWNER_CONNECTED : 0);
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
                if (requester >= 0)
                {
                    final int left = connectionsOf.get(requester) - 1;
                    if (left > 0)
                    {
                        connectionsOf.put(requester, left);
                    }
                    else
                    {
                        connectionsOf.remove(requester);
                    }
                }
                if (isAuthenticated)
                {
                    authenticated.remove(this);
                }
                else
                {
                    loop.closed(this);
                }
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
        private final java.util.List<Graph> plans = new java.util.ArrayList<>();
        private java.nio.file.Path plansDirectory;
        private int maxConnections = -1;
        private int maxPendingConnections = 256;
        private int maxRegions = -1;
        private long maxRegionBytes = 64L * 1024 * 1024;
        private long memoryBytes = -1;
        private int handshakeTimeoutMs = 5_000;
        private int idleTimeoutMs = 300_000;

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

        /**
         * The launch plan: the plan served from the start, and the one a connection's operations reach
         * until its first CREATE or OPEN; its edges grant access to its regions. Required.
         */
        public Context plan(final Graph plan)
        {
            this.plan = plan;
            return this;
        }

        /**
         * More plans to serve from the start, beside the launch plan, each named by {@link
         * PlanDigest#ofGraph(Graph)}: a CREATE or OPEN naming one of them reaches its own regions, and
         * its edges grant access to them. May be called more than once; the plans add up.
         */
        public Context plans(final Graph... plans)
        {
            for (final Graph graph : plans)
            {
                this.plans.add(java.util.Objects.requireNonNull(graph, "plans: a plan is null"));
            }
            return this;
        }

        /**
         * A directory of plan files ({@code *.json}, as {@code topo plan} writes them) to learn plans
         * from: when a CREATE or OPEN names a digest this daemon does not serve, it looks there for a
         * plan whose graph has that digest ({@link PlanDigest#ofGraph(Graph)}) and serves it from then
         * on; files that do not parse are skipped. Whoever may write there may grant access, so only the
         * cluster's operators should. Default: none, and unknown digests are refused.
         */
        public Context plansDirectory(final java.nio.file.Path plansDirectory)
        {
            this.plansDirectory = plansDirectory;
            return this;
        }

        /** The launch plan's digest, recorded in its regions' headers; defaults to {@link PlanDigest#ofGraph(Graph)}. */
        public Context planDigest(final PlanDigest planDigest)
        {
            this.planDigest = planDigest;
            return this;
        }

        /**
         * Direct memory the daemon may use for regions and connection buffers. Default: the JVM's
         * direct-memory limit ({@code -XX:MaxDirectMemorySize}, which defaults to the heap limit).
         */
        public Context memoryBytes(final long memoryBytes)
        {
            this.memoryBytes = memoryBytes;
            return this;
        }

        /**
         * Authenticated connections at once. Default: as many as a quarter of the memory budget
         * holds ({@link #CONNECTION_BUFFER_BYTES} each), at most 1024; at most half of the budget.
         */
        public Context maxConnections(final int maxConnections)
        {
            this.maxConnections = maxConnections;
            return this;
        }

        /** Connections not yet authenticated; when full, a new one evicts the oldest. Default 256. */
        public Context maxPendingConnections(final int maxPendingConnections)
        {
            this.maxPendingConnections = maxPendingConnections;
            return this;
        }

        /** Time a connection has to send its first authenticated frame. Default 5000 ms. */
        public Context handshakeTimeoutMs(final int handshakeTimeoutMs)
        {
            this.handshakeTimeoutMs = handshakeTimeoutMs;
            return this;
        }

        /** An authenticated connection silent this long is closed (its link reconnects). Default 300000 ms. */
        public Context idleTimeoutMs(final int idleTimeoutMs)
        {
            this.idleTimeoutMs = idleTimeoutMs;
            return this;
        }

        /**
         * Regions held at once, over all plans. Default: four times the launch plan's process count;
         * each owner keeps only its regions of the two plans it created regions under last, so that
         * is room to spare. The memory budget bounds them too.
         */
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

        /** The plans directory, or null. */
        public java.nio.file.Path plansDirectory()
        {
            return plansDirectory;
        }

        /** The launch plan (after {@link #conclude()}). */
        public Graph plan()
        {
            return plan;
        }

        /** The launch plan's digest (after {@link #conclude()}). */
        public PlanDigest planDigest()
        {
            return planDigest;
        }

        /** The cluster key. */
        public ClusterKey clusterKey()
        {
            return clusterKey;
        }

        /** The concluded connection limit. */
        public int maxConnections()
        {
            return maxConnections;
        }

        /** The concluded region limit, over all plans. */
        public int maxRegions()
        {
            return maxRegions;
        }

        /** The concluded memory budget. */
        public long memoryBytes()
        {
            return memoryBytes;
        }

        // What regions may take: the budget less every connection's buffers at their limits.
        long regionBudgetBytes()
        {
            return memoryBytes - (long)maxConnections * CONNECTION_BUFFER_BYTES -
                (long)maxPendingConnections * (PENDING_IN_BYTES + PENDING_OUT_BYTES);
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
                problems.append("no plan: pass --plan-edges with the plan's edge list; ");
            }
            if (plansDirectory != null && !java.nio.file.Files.isDirectory(plansDirectory))
            {
                problems.append("--plans ").append(plansDirectory).append(" is not a directory: create it, or pass " +
                    "the directory the plan files are written to; ");
            }
            if (listen == null)
            {
                problems.append("no listen address: pass --listen host:port; ");
            }
            final long budget = memoryBytes < 0 ? jvmDirectMemoryBytes() : memoryBytes;
            if (budget < 4L * CONNECTION_BUFFER_BYTES)
            {
                problems.append("memory budget ").append(budget).append(" bytes is below ")
                    .append(4L * CONNECTION_BUFFER_BYTES).append(" (four connections' buffers): raise --max-memory " +
                    "or the JVM's -XX:MaxDirectMemorySize; ");
            }
            final int connections = maxConnections < 0 ?
                (int)Math.max(1, Math.min(1024, budget / 4 / CONNECTION_BUFFER_BYTES)) : maxConnections;
            if (connections < 1)
            {
                problems.append("--max-connections ").append(maxConnections).append(" must be at least 1; ");
            }
            else if ((long)connections * CONNECTION_BUFFER_BYTES > budget / 2)
            {
                problems.append("--max-connections ").append(connections).append(" need ")
                    .append((long)connections * CONNECTION_BUFFER_BYTES).append(" bytes of buffers, more than half of " +
                    "the memory budget of ").append(budget).append(" bytes: lower --max-connections or raise --max-memory; ");
            }
            if (maxPendingConnections < 1 || maxPendingConnections > 65_536)
            {
                problems.append("--max-pending-connections ").append(maxPendingConnections).append(" must be in 1..65536; ");
            }
            if (handshakeTimeoutMs < 1 || idleTimeoutMs < 1)
            {
                problems.append("--handshake-timeout-ms ").append(handshakeTimeoutMs).append(" and --idle-timeout-ms ")
                    .append(idleTimeoutMs).append(" must both be positive; ");
            }
            if (maxRegions != -1 && maxRegions < 1)
            {
                problems.append("--max-regions ").append(maxRegions).append(" must be at least 1 (leave it out for " +
                    "four times the launch plan's process count); ");
            }
            if (maxRegionBytes < 8 || maxRegionBytes > RegionHeader.MAX_DATA_BYTES)
            {
                problems.append("--max-region-bytes ").append(maxRegionBytes).append(" must be in 8..")
                    .append(RegionHeader.MAX_DATA_BYTES).append("; ");
            }
            if (problems.length() > 0)
            {
                throw new IllegalArgumentException("memd configuration is invalid: " +
                    problems.substring(0, problems.length() - 2));
            }
            memoryBytes = budget;
            maxConnections = connections;
            if (planDigest == null)
            {
                planDigest = PlanDigest.ofGraph(plan);
            }
            if (maxRegions < 0)
            {
                maxRegions = (int)Math.min(Integer.MAX_VALUE, Math.max(1, 4L * plan.n()));
            }
            return this;
        }

        // -XX:MaxDirectMemorySize, or the heap limit it defaults to.
        private static long jvmDirectMemoryBytes()
        {
            try
            {
                final com.sun.management.HotSpotDiagnosticMXBean hotspot = java.lang.management.ManagementFactory
                    .getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
                final long configured = Long.parseLong(hotspot.getVMOption("MaxDirectMemorySize").getValue());
                if (configured > 0)
                {
                    return configured;
                }
            }
            catch (final RuntimeException ex)
            {
                // Not HotSpot: the heap limit is the usual default.
            }
            return Runtime.getRuntime().maxMemory();
        }
    }
}
