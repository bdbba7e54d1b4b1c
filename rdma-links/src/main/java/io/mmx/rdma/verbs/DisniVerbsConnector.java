package io.mmx.rdma.verbs;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.RdmaVerbs;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.ProcessKey;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * {@link VerbsConnector} over DiSNI 2.1's rdma_cm: one event channel, CM id and RC queue pair
 * per edge, driven through {@link VerbsConnectAttempt}; the handshake travels over
 * {@link VerbsHandshakeChannel} to the host's {@link DisniRegionHost}. Thin on purpose: every
 * decision is in the state machine, every byte in {@link VerbsHandshake}.
 *
 * <p>Blocking: {@link #connect} returns within the connect timeout, as memd's links do. Compiled
 * against DiSNI 2.1, not yet run on RDMA hardware. As a {@link VerbsEdgeConnector} it opens the
 * shared queue pairs of a {@link VerbsQueuePairs} pool, with scratch and a send queue for several
 * eras' bindings.
 */
public final class DisniVerbsConnector implements VerbsConnector, VerbsEdgeConnector
{
    /** Work requests the send queue holds per binding: every slot of a link may be in flight. */
    static final int SEND_QUEUE_DEPTH = VerbsRegionLink.WORD_SLOTS + VerbsRegionLink.BULK_SLOTS;
    /** Attempts per RC retransmission and RNR retry: the maximum rdma_cm allows. */
    static final byte RETRY_COUNT = 7;
    private static final int POLL_MS = 10;

    private final IntFunction<VerbsHostAddress> placement;
    // The handshake codec of each requesting process: its own key only, when the caller holds process keys.
    private final IntFunction<VerbsHandshake> codecOf;
    private final int timeoutMs;
    private final SecureRandom random = new SecureRandom();
    private final DisniPostSend poster;
    private final Map<IbvContext, IbvPd> protectionDomains = new HashMap<>();

    /**
     * @param placement the host of each owner's region.
     * @param key       the cluster key.
     * @param plan      the digest of the plan this process runs.
     * @param timeoutMs bound on one connection set-up.
     */
    public DisniVerbsConnector(
        final IntFunction<VerbsHostAddress> placement, final ClusterKey key, final PlanDigest plan, final int timeoutMs)
    {
        this(placement, sharedCodec(new VerbsHandshake(key, plan)), timeoutMs);
    }

    /**
     * A connector for processes whose keys the caller holds (a node: its hosted processes).
     *
     * @param keys the key of each requesting process, null for a process not hosted here.
     */
    public DisniVerbsConnector(
        final IntFunction<VerbsHostAddress> placement,
        final IntFunction<ProcessKey> keys,
        final PlanDigest plan,
        final int timeoutMs)
    {
        this(placement, perProcessCodecs(keys, plan), timeoutMs);
    }

    private static IntFunction<VerbsHandshake> sharedCodec(final VerbsHandshake codec)
    {
        return (self) -> codec;
    }

    private static IntFunction<VerbsHandshake> perProcessCodecs(final IntFunction<ProcessKey> keys, final PlanDigest plan)
    {
        final Map<Integer, VerbsHandshake> codecs = new HashMap<>();
        return (self) -> codecs.computeIfAbsent(self, (s) ->
        {
            final ProcessKey key = keys.apply(s);
            if (key == null || key.process() != s)
            {
                throw new IllegalArgumentException("no key for process " + s + " here: a node holds the keys of the " +
                    "processes it hosts only");
            }
            return new VerbsHandshake(key, plan);
        });
    }

    /** A connector for a {@link VerbsQueuePairs} pool: each connection names its host and codec. */
    static DisniVerbsConnector forPool(final int timeoutMs)
    {
        return new DisniVerbsConnector((owner) ->
        {
            throw new IllegalStateException("a pool's connector is given each edge's host");
        }, (self) ->
        {
            throw new IllegalStateException("a pool's connector is given each link's codec");
        }, timeoutMs);
    }

    private DisniVerbsConnector(
        final IntFunction<VerbsHostAddress> placement, final IntFunction<VerbsHandshake> codecOf, final int timeoutMs)
    {
        this.placement = placement;
        this.codecOf = codecOf;
        this.timeoutMs = timeoutMs;
        try
        {
            this.poster = DisniPostSend.of(RdmaVerbs.open());
        }
        catch (final IOException ex)
        {
            throw new VerbsUnavailableException("libdisni", "DiSNI cannot open the verbs interface (" +
                ex.getMessage() + "): check the RDMA device with ibv_devinfo");
        }
    }

    @Override
    public Connection connect(final int self, final int owner)
    {
        return connect(codecOf.apply(self), VerbsHandshake.OP_CONNECT, self, owner, placement.apply(owner), 1);
    }

    @Override
    public Connection connect(final VerbsHandshake codec, final byte op, final int self, final int owner,
        final VerbsHostAddress host, final int bindings)
    {
        final Edge edge = new Edge(host, bindings);
        final long startNs = System.nanoTime();
        final VerbsConnectAttempt attempt = new VerbsConnectAttempt(self, owner, host.cm().toString(), codec, op,
            random.nextLong(), startNs, TimeUnit.MILLISECONDS.toNanos(timeoutMs), edge);
        try
        {
            edge.open();
        }
        catch (final IOException ex)
        {
            edge.abort();
            return Connection.failed(OpStatus.NOT_CONNECTED, "the connection of process " + self + " to process " +
                owner + " cannot create an rdma_cm event channel (" + ex.getMessage() + "): check the RDMA device " +
                "with ibv_devinfo and that rdma_ucm is loaded");
        }
        attempt.start();
        while (!attempt.onTick(System.nanoTime()))
        {
            final byte[] request = edge.takeRequest();
            if (request != null)
            {
                exchange(attempt, host.handshake(), request, startNs);
                continue;
            }
            try
            {
                final RdmaCmEvent event = edge.channel.getCmEvent(POLL_MS);
                if (event != null)
                {
                    final CmEvent type = CmEvent.of(event.getEvent());
                    event.ackEvent();
                    if (type != null)
                    {
                        attempt.onCmEvent(type, System.nanoTime());
                    }
                }
            }
            catch (final IOException ex)
            {
                attempt.onCmEvent(CmEvent.CONNECT_ERROR, System.nanoTime());
            }
        }
        if (attempt.state() != VerbsConnectAttempt.State.ESTABLISHED)
        {
            return Connection.failed(attempt.status(), attempt.message());
        }
        final VerbsHandshake.Grant grant = attempt.grant();
        try
        {
            return new Connection(OpStatus.OK, attempt.message(), edge.queuePair(), grant.remoteBase(), grant.rkey(),
                grant.dataBytes(), edge.scratch, edge.scratchMr.getLkey());
        }
        catch (final IOException ex)
        {
            edge.abort();
            return Connection.failed(OpStatus.NOT_CONNECTED, "the connection of process " + self + " to process " +
                owner + " cannot prepare completion polling (" + ex.getMessage() + "); it is retried on the next " +
                "operation");
        }
    }

    private void exchange(
        final VerbsConnectAttempt attempt, final InetSocketAddress handshake, final byte[] request, final long startNs)
    {
        final long leftMs = timeoutMs - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        try
        {
            final byte[] reply = VerbsHandshakeChannel.exchange(handshake, request, (int)Math.max(1, leftMs));
            attempt.onHandshakeReply(reply, reply.length, System.nanoTime());
        }
        catch (final IOException ex)
        {
            attempt.onHandshakeFailed(handshake + ": " + ex.getMessage(), System.nanoTime());
        }
    }

    // Fabrics of several threads may share one connector; the PD cache is its only shared state.
    private synchronized IbvPd protectionDomain(final IbvContext context) throws IOException
    {
        IbvPd pd = protectionDomains.get(context);
        if (pd == null)
        {
            pd = context.allocPd();
            protectionDomains.put(context, pd);
        }
        return pd;
    }

    /** The native resources of one edge, and the steps the state machine asks for. */
    private final class Edge implements VerbsConnectAttempt.Actions
    {
        private final VerbsHostAddress host;
        private final int bindings;
        private RdmaEventChannel channel;
        private RdmaCmId id;
        private IbvCQ cq;
        private IbvQP qp;
        private ByteBuffer scratchMemory;
        private UnsafeBuffer scratch;
        private IbvMr scratchMr;
        private byte[] request;

        Edge(final VerbsHostAddress host, final int bindings)
        {
            this.host = host;
            this.bindings = bindings;
        }

        void open() throws IOException
        {
            channel = RdmaEventChannel.createEventChannel();
            id = channel.createId(RdmaCm.RDMA_PS_TCP);
        }

        byte[] takeRequest()
        {
            final byte[] r = request;
            request = null;
            return r;
        }

        @Override
        public void resolveAddr() throws IOException
        {
            id.resolveAddr(null, host.cm(), timeoutMs);
        }

        @Override
        public void resolveRoute() throws IOException
        {
            id.resolveRoute(timeoutMs);
        }

        @Override
        public int localCmPort() throws IOException
        {
            return ((InetSocketAddress)id.getSource()).getPort();
        }

        @Override
        public void sendHandshake(final byte[] request)
        {
            this.request = request;
        }

        @Override
        public void connect() throws IOException
        {
            final IbvContext context = id.getVerbs();
            final IbvPd pd = protectionDomain(context);
            cq = context.createCQ(null, SEND_QUEUE_DEPTH * bindings, 0);
            final IbvQPInitAttr attr = new IbvQPInitAttr();
            attr.setQp_type((byte)VerbsAbi.IBV_QPT_RC);
            attr.setSend_cq(cq);
            attr.setRecv_cq(cq);
            attr.cap().setMax_send_wr(SEND_QUEUE_DEPTH * bindings);
            attr.cap().setMax_recv_wr(1);
            attr.cap().setMax_send_sge(1);
            attr.cap().setMax_recv_sge(1);
            qp = id.createQP(pd, attr);
            scratchMemory = BufferUtil.allocateDirectAligned(VerbsRegionLink.SCRATCH_BYTES * bindings, 64);
            scratch = new UnsafeBuffer(scratchMemory);
            scratchMr = DisniPostSend.registerRegion(pd, scratch.addressOffset(),
                VerbsRegionLink.SCRATCH_BYTES * bindings);
            final RdmaConnParam param = new RdmaConnParam();
            param.setRetry_count(RETRY_COUNT);
            param.setRnr_retry_count(RETRY_COUNT);
            id.connect(param);
        }

        VerbsQueuePair queuePair() throws IOException
        {
            final DisniQueuePair pair = new DisniQueuePair(poster, qp, cq, SEND_QUEUE_DEPTH * bindings);
            return new VerbsQueuePair()
            {
                @Override
                public boolean post(final long wrAddress)
                {
                    return pair.post(wrAddress);
                }

                @Override
                public int poll(final WorkCompletionHandler handler, final int max)
                {
                    return pair.poll(handler, max);
                }

                @Override
                public void close()
                {
                    pair.close();
                    abort();
                }
            };
        }

        @Override
        public void abort()
        {
            // Reverse order of creation; each release is independent of the others failing.
            if (id != null && qp != null)
            {
                quietly(() -> id.disconnect());
                quietly(() -> id.destroyQP());
            }
            if (scratchMr != null)
            {
                quietly(() -> scratchMr.deregMr().execute().free());
            }
            if (cq != null)
            {
                quietly(() -> cq.destroyCQ());
            }
            if (id != null)
            {
                quietly(() -> id.destroyId());
            }
            if (channel != null)
            {
                quietly(() -> channel.destroyEventChannel());
            }
            qp = null;
            scratchMr = null;
            cq = null;
            id = null;
            channel = null;
        }
    }

    /** Runs a native release, ignoring its failure: the resource is gone or unusable either way. */
    static void quietly(final NativeRelease release)
    {
        try
        {
            release.run();
        }
        catch (final Exception ignore)
        {
            // nothing better to do while tearing down
        }
    }

    /** A native call that releases something. */
    @FunctionalInterface
    interface NativeRelease
    {
        /** Releases it. */
        Object run() throws Exception;
    }
}
