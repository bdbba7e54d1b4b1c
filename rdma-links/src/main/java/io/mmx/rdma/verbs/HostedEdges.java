package io.mmx.rdma.verbs;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.FabricCounters;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.EraRegionResolver;
import io.mmx.rdma.region.RegionHeader;
import io.mmx.rdma.region.RegionResolver;

import java.io.IOException;
import java.net.InetAddress;

/**
 * What a region host holds and decides, without rdma_cm: it finds the regions it serves through an
 * {@link EraRegionResolver} (in memd's verbs mode, the host's shm files of every era, each mapped
 * once), registers each plan edge's access to each era's region once, in the edge's own protection
 * domain ({@link EdgeRegistrations}), answers handshakes ({@link VerbsEdgeAcceptor}) for every plan
 * it serves, admits a connection request only to the edge a grant announced (the caller creates its
 * queue pair in that edge's protection domain and reports it gone with {@link #queuePairClosed}),
 * adds a later era's region to an edge's existing protection domain on a BIND, drops an ended
 * era's on a RELEASE, and revokes edges. {@link DisniRegionHost} drives it with DiSNI's calls; tests
 * drive it with a software NIC, so everything but the native glue runs without a device.
 *
 * <p>Thread-safe: the handshake thread and the connection thread share it under one lock.
 *
 * @param <P> the native protection domain.
 * @param <M> the native memory registration.
 */
public final class HostedEdges<P, M>
{
    private static final int REPLAY_WINDOW = 65536;

    private final EraRegionResolver resolver;
    private final EdgeRegistrations<P, M> registrations;
    private final VerbsEdgeAcceptor acceptor;

    /**
     * A host of one plan's era-0 regions.
     *
     * @param plan       the plan; access is granted along its edges only.
     * @param digest     the plan's digest.
     * @param key        the cluster key (the host derives every process's key from it).
     * @param resolver   the regions served here.
     * @param nic        the native registration calls.
     * @param grantTtlNs how long a grant waits for its connection request.
     */
    public HostedEdges(
        final Graph plan,
        final PlanDigest digest,
        final ClusterKey key,
        final RegionResolver resolver,
        final EdgeRegistrations.Native<P, M> nic,
        final long grantTtlNs)
    {
        this(VerbsEdgeAcceptor.ServedPlans.of(new VerbsEdgeAcceptor.ServedPlan(digest, plan)),
            new VerbsEdgeAcceptor.ServedPlan(digest, plan), key, EraRegionResolver.launchOnly(resolver, digest), nic,
            grantTtlNs);
    }

    /**
     * A host of the regions of every era of every plan {@code plans} finds.
     *
     * @param plans      the plans served; each grants access to its regions along its own edges.
     * @param launch     a plan served (requests naming another plan are refused under it).
     * @param key        the cluster key (the host derives every process's key from it).
     * @param resolver   the regions served here, by era and plan.
     * @param nic        the native registration calls.
     * @param grantTtlNs how long a grant waits for its connection request.
     */
    public HostedEdges(
        final VerbsEdgeAcceptor.ServedPlans plans,
        final VerbsEdgeAcceptor.ServedPlan launch,
        final ClusterKey key,
        final EraRegionResolver resolver,
        final EdgeRegistrations.Native<P, M> nic,
        final long grantTtlNs)
    {
        this.resolver = resolver;
        this.registrations = new EdgeRegistrations<>(nic);
        this.acceptor = new VerbsEdgeAcceptor(plans, launch, key, new VerbsEdgeAcceptor.HostedRegions()
        {
            @Override
            public VerbsEdgeAcceptor.Registration registration(final int owner, final int requester,
                final EdgeRegistrations.Region region)
            {
                return HostedEdges.this.registration(owner, requester, region);
            }

            @Override
            public boolean hasDomain(final int owner, final int requester)
            {
                return registrations.domain(owner, requester) != null;
            }

            @Override
            public boolean release(final int owner, final int requester, final EdgeRegistrations.Region region)
            {
                return registrations.release(owner, requester, region);
            }
        }, new FabricCounters(), REPLAY_WINDOW, grantTtlNs);
    }

    /** Refusals: by status, plus garbled handshakes, replays and unannounced connection requests. */
    public FabricCounters counters()
    {
        return acceptor.counters();
    }

    /** Decides a handshake request received over TCP from {@code from}. */
    public synchronized VerbsEdgeAcceptor.Decision onHandshake(
        final byte[] request, final int length, final InetAddress from, final long nowNs)
    {
        return acceptor.onRequest(request, length, from, nowNs);
    }

    /**
     * The edge an rdma_cm connection request from {@code peer}:{@code port} was granted, with its
     * protection domain, or null (no grant, the edge was revoked since, or its domain could not be
     * made: refused and counted, destroy the request). Create the connection's queue pair in that
     * domain. An OPEN's queue pair gets the edge's domain (allocated now if the edge has none) with
     * no region in it yet.
     */
    public synchronized EdgeRegistrations.EdgeDomain<P> admit(final InetAddress peer, final int port,
        final long nowNs)
    {
        final VerbsEdgeAcceptor.Admitted admitted = acceptor.admit(peer, port, nowNs);
        if (admitted == null)
        {
            return null;
        }
        final EdgeRegistrations.EdgeDomain<P> domain;
        if (admitted.registration() == null)
        {
            try
            {
                domain = registrations.openDomain(admitted.owner(), admitted.requester());
            }
            catch (final IOException ex)
            {
                counters().increment(io.mmx.rdma.fabric.FabricCounters.Other.CONNECTION_REFUSED);
                return null;
            }
        }
        else
        {
            final EdgeRegistrations.Edge<P, M> edge = registrations.byRkey(admitted.registration().rkey());
            if (edge == null)
            {
                return null;
            }
            domain = new EdgeRegistrations.EdgeDomain<>(edge.owner(), edge.requester(), edge.pd());
        }
        registrations.attach(domain.owner(), domain.requester());
        return domain;
    }

    /**
     * A queue pair {@link #admit} returned for the edge requester → owner was destroyed: the edge's
     * protection domain is freed once it holds neither registrations nor queue pairs.
     */
    public synchronized void queuePairClosed(final int owner, final int requester)
    {
        registrations.detach(owner, requester);
    }

    /**
     * Revokes the edge requester → owner: its registration is deregistered, so its rkey stops
     * working, and the other edges of the owner keep theirs. Destroy the edge's queue pairs first
     * (a protection domain holding queue pairs cannot be freed). A later handshake on the edge, if
     * the plan still allows it, gets a new registration and a new rkey.
     */
    public synchronized boolean revoke(final int owner, final int requester)
    {
        return registrations.revoke(owner, requester);
    }

    /** Registrations held now: one per edge and era granted and not released or revoked. */
    public synchronized int registrations()
    {
        return registrations.size();
    }

    /** Protection domains held now: one per edge with a registration or a queue pair. */
    public synchronized int domains()
    {
        return registrations.domains();
    }

    /** Deregisters everything (destroy the queue pairs first). */
    public synchronized void close()
    {
        registrations.close();
    }

    // Called under the lock, from the acceptor; control path only.
    private VerbsEdgeAcceptor.Registration registration(final int owner, final int requester,
        final EdgeRegistrations.Region region)
    {
        final RegionResolver.Resolution r = resolver.resolve(owner, region.era(), region.plan());
        if (r.status() != OpStatus.OK)
        {
            return null;
        }
        try
        {
            final long dataAddress = r.memory().buffer().addressOffset() + RegionHeader.HEADER_BYTES;
            final EdgeRegistrations.Edge<P, M> edge =
                registrations.grant(owner, requester, region, dataAddress, r.memory().dataBytes());
            return new VerbsEdgeAcceptor.Registration(dataAddress, edge.rkey(), r.memory().dataBytes());
        }
        catch (final IOException ex)
        {
            return null;
        }
    }
}
