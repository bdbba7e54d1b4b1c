package io.mmx.rdma.verbs;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.RdmaEventChannel;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.FabricCounters;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.EraRegionResolver;
import io.mmx.rdma.region.RegionResolver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The passive side of the verbs backend on one host: registers the regions it serves (found
 * through a {@link RegionResolver}, e.g. the host's shm regions, which outlive their owners)
 * with remote read, write and atomic access, answers handshakes on a
 * {@link VerbsHandshakeChannel}, and accepts an rdma_cm connection request only when a grant of
 * its {@link VerbsEdgeAcceptor} announced it; any other request is destroyed unanswered, which
 * the requester sees as REJECTED. {@link HostedEdges} decides and keeps the registrations; this
 * class only makes the native calls. It serves every era of every plan it knows at once
 * ({@link #start(InetSocketAddress, InetSocketAddress, VerbsEdgeAcceptor.ServedPlans,
 * VerbsEdgeAcceptor.ServedPlan, ClusterKey, EraRegionResolver)}): a live plan change registers the
 * new era's region of an edge in the edge's protection domain, where the edge's queue pair reaches it.
 *
 * <p>Access per edge ({@link EdgeRegistrations}): each (owner, requester) edge has its own
 * protection domain holding one registration of the owner's data area and that edge's queue
 * pairs, so its rkeys work only for its own QPs, and revoking one edge leaves the others; the PD is
 * freed when the edge's last registration and queue pair are gone. (Type-2
 * memory windows would bind an rkey to one QP within a shared PD; DiSNI 2.1 does not expose them.)
 * Compiled against DiSNI 2.1, not yet run on RDMA hardware.
 */
public final class DisniRegionHost implements AutoCloseable
{
    private static final long GRANT_TTL_NS = TimeUnit.SECONDS.toNanos(10);
    private static final int POLL_MS = 100;

    private final RdmaEventChannel channel;
    private final RdmaCmId listenId;
    private final IbvCQ cq;
    private final HostedEdges<IbvPd, IbvMr> edges;
    // The queue pairs accepted, with their edge (owner, requester): its PD is freed after its last one.
    private final Map<RdmaCmId, int[]> connections = new HashMap<>();
    private final VerbsHandshakeChannel handshakes;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile java.util.function.Consumer<Throwable> onFailure = (failure) -> { };

    private DisniRegionHost(
        final InetSocketAddress cmListen,
        final InetSocketAddress handshakeListen,
        final VerbsEdgeAcceptor.ServedPlans plans,
        final VerbsEdgeAcceptor.ServedPlan launch,
        final ClusterKey key,
        final EraRegionResolver resolver) throws IOException
    {
        this.channel = RdmaEventChannel.createEventChannel();
        this.listenId = channel.createId(RdmaCm.RDMA_PS_TCP);
        listenId.bindAddr(cmListen);
        listenId.listen(1024);
        final IbvContext context = listenId.getVerbs();
        if (context == null)
        {
            throw new IOException(cmListen + " is not the address of an RDMA interface: bind the verbs host to the IP " +
                "of its RoCE or IPoIB interface");
        }
        this.edges = new HostedEdges<>(plans, launch, key, resolver, new DisniRegistrations(context), GRANT_TTL_NS);
        // Requesters post nothing to the host's side of a QP; one CQ serves them all.
        this.cq = context.createCQ(null, 16, 0);
        this.handshakes = VerbsHandshakeChannel.serve(handshakeListen, (request, length, from) ->
            edges.onHandshake(request, length, from.getAddress(), System.nanoTime()).reply(), 1000,
            (failure) -> onFailure.accept(failure));
        this.thread = new Thread(this::run, "mmx-verbs-host");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Starts serving the regions {@code resolver} finds.
     *
     * @throws VerbsUnavailableException if libdisni, libibverbs or an RDMA device is missing.
     * @throws UncheckedIOException      if the addresses cannot be bound.
     */
    public static DisniRegionHost start(
        final InetSocketAddress cmListen,
        final InetSocketAddress handshakeListen,
        final Graph plan,
        final PlanDigest digest,
        final ClusterKey key,
        final RegionResolver resolver)
    {
        final VerbsEdgeAcceptor.ServedPlan launch = new VerbsEdgeAcceptor.ServedPlan(digest, plan);
        return start(cmListen, handshakeListen, VerbsEdgeAcceptor.ServedPlans.of(launch), launch, key,
            EraRegionResolver.launchOnly(resolver, digest));
    }

    /**
     * Starts serving the regions of every era of every plan {@code plans} finds (memd in verbs mode:
     * the host's shm era directories, the plans of its plans directory).
     *
     * @throws VerbsUnavailableException if libdisni, libibverbs or an RDMA device is missing.
     * @throws UncheckedIOException      if the addresses cannot be bound.
     */
    public static DisniRegionHost start(
        final InetSocketAddress cmListen,
        final InetSocketAddress handshakeListen,
        final VerbsEdgeAcceptor.ServedPlans plans,
        final VerbsEdgeAcceptor.ServedPlan launch,
        final ClusterKey key,
        final EraRegionResolver resolver)
    {
        VerbsBackend.requireAvailable();
        try
        {
            return new DisniRegionHost(cmListen, handshakeListen, plans, launch, key, resolver);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("the verbs host cannot listen on " + cmListen + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * Who hears, once per thread, that the host stopped serving: its handshake or its connection thread
     * failed (memd then stops, so that its service manager restarts it).
     */
    public void onFailure(final java.util.function.Consumer<Throwable> listener)
    {
        this.onFailure = listener;
    }

    /** The handshake listener's address. */
    public InetSocketAddress handshakeAddress()
    {
        return handshakes.boundAddress();
    }

    /** Refusals: by status, plus garbled handshakes, replays and unannounced connection requests. */
    public FabricCounters counters()
    {
        return edges.counters();
    }

    /** The DiSNI calls behind {@link EdgeRegistrations}. */
    private static final class DisniRegistrations implements EdgeRegistrations.Native<IbvPd, IbvMr>
    {
        private final IbvContext context;

        DisniRegistrations(final IbvContext context)
        {
            this.context = context;
        }

        @Override
        public IbvPd allocPd() throws IOException
        {
            return context.allocPd();
        }

        @Override
        public IbvMr register(final IbvPd pd, final long address, final int length) throws IOException
        {
            return DisniPostSend.registerRegion(pd, address, length);
        }

        @Override
        public int rkey(final IbvMr mr)
        {
            return mr.getRkey();
        }

        @Override
        public void deregister(final IbvMr mr)
        {
            DisniVerbsConnector.quietly(() -> mr.deregMr().execute().free());
        }

        @Override
        public void deallocPd(final IbvPd pd)
        {
            DisniVerbsConnector.quietly(pd::deallocPd);
        }
    }

    private void run()
    {
        while (running)
        {
            try
            {
                final RdmaCmEvent event = channel.getCmEvent(POLL_MS);
                if (event == null)
                {
                    continue;
                }
                final CmEvent type = CmEvent.of(event.getEvent());
                final RdmaCmId id = event.getConnIdPriv();
                event.ackEvent();
                if (type == CmEvent.CONNECT_REQUEST)
                {
                    onConnectRequest(id);
                }
                else if (type == CmEvent.DISCONNECTED && id != null)
                {
                    final int[] edge = connections.remove(id);
                    DisniVerbsConnector.quietly(id::destroyQP);
                    DisniVerbsConnector.quietly(id::destroyId);
                    if (edge != null)
                    {
                        edges.queuePairClosed(edge[0], edge[1]);
                    }
                }
            }
            catch (final IOException ex)
            {
                // One connection request that could not be accepted; its requester times out and retries.
                if (!running)
                {
                    return;
                }
            }
            catch (final RuntimeException | Error ex)
            {
                // A bug or an exhausted JVM: no connection would be accepted from now on, so say so.
                if (running)
                {
                    onFailure.accept(ex);
                }
                return;
            }
        }
    }

    private void onConnectRequest(final RdmaCmId id) throws IOException
    {
        final InetSocketAddress peer = (InetSocketAddress)id.getDestination();
        final EdgeRegistrations.EdgeDomain<IbvPd> edge = edges.admit(peer.getAddress(), peer.getPort(),
            System.nanoTime());
        if (edge == null)
        {
            // No grant (or the edge was revoked since): nothing is created, and DiSNI 2.1 has no rdma_reject,
            // so the request is destroyed.
            DisniVerbsConnector.quietly(id::destroyId);
            return;
        }
        final IbvQPInitAttr attr = new IbvQPInitAttr();
        attr.setQp_type((byte)VerbsAbi.IBV_QPT_RC);
        attr.setSend_cq(cq);
        attr.setRecv_cq(cq);
        attr.cap().setMax_send_wr(1);
        attr.cap().setMax_recv_wr(1);
        attr.cap().setMax_send_sge(1);
        attr.cap().setMax_recv_sge(1);
        try
        {
            id.createQP(edge.pd(), attr); // in the edge's PD: only this edge's rkeys work on it
            final RdmaConnParam param = new RdmaConnParam();
            param.setRetry_count(DisniVerbsConnector.RETRY_COUNT);
            param.setRnr_retry_count(DisniVerbsConnector.RETRY_COUNT);
            id.accept(param);
        }
        catch (final IOException | RuntimeException ex)
        {
            DisniVerbsConnector.quietly(id::destroyQP);
            DisniVerbsConnector.quietly(id::destroyId);
            edges.queuePairClosed(edge.owner(), edge.requester());
            throw ex;
        }
        connections.put(id, new int[]{edge.owner(), edge.requester()});
    }

    @Override
    public void close()
    {
        running = false;
        handshakes.close();
        try
        {
            thread.join(POLL_MS * 5L);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        for (final RdmaCmId id : connections.keySet())
        {
            DisniVerbsConnector.quietly(id::disconnect);
            DisniVerbsConnector.quietly(id::destroyQP);
            DisniVerbsConnector.quietly(id::destroyId);
        }
        edges.close();
        DisniVerbsConnector.quietly(cq::destroyCQ);
        DisniVerbsConnector.quietly(listenId::destroyId);
        DisniVerbsConnector.quietly(channel::destroyEventChannel);
    }
}
