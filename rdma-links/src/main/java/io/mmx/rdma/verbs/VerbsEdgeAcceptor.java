package io.mmx.rdma.verbs;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.FabricCounters;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.region.ClusterKey;

import java.net.InetAddress;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the host of regions decides, without any native call: which handshake requests get a
 * grant (authenticated by the cluster key, a plan served here, requester is the owner or one of its
 * neighbours in that plan, region of the named era hosted here, nonce not seen before) and which
 * rdma_cm connection requests get a queue pair (only one that a CONNECT grant announced, from the
 * same address and port, before the grant expires). A BIND grant adds another era's region to the
 * edge's existing queue pair (its protection domain), so a live plan change keeps the queue pairs
 * of the edges both plans share; it is refused when the edge has no queue pair here. An OPEN grant
 * announces a queue pair with no region yet, for an edge of a plan served here whose era has no
 * regions yet (connected ahead of the change that adds the edge; the era's region is bound on it
 * later). A RELEASE drops the edge's registration of an ended era's region. Every refusal is counted in
 * {@link #counters()} and creates nothing: no queue pair, no registration, no grant.
 *
 * <p>The host serves several plans at once (the eras that overlap during a change): the request's
 * plan-digest prefix picks the plan, whose full digest its tag must then verify under.
 *
 * <p>Why grants are bound to the requester's rdma_cm source address: DiSNI 2.1 neither delivers
 * the private data of a connect request to the passive side nor sends private data with an
 * accept, so the handshake travels beside the connection ({@link VerbsHandshakeChannel}) and the
 * connection request is matched to it by address. Single-threaded: the host's connection thread.
 */
public final class VerbsEdgeAcceptor
{
    /** Where a hosted region is, as the NIC sees it. */
    public record Registration(long remoteBase, int rkey, long dataBytes)
    {
    }

    /** The regions this host serves, registered with remote read, write and atomic access. */
    public interface HostedRegions
    {
        /**
         * The registration of {@code owner}'s {@code region} for the edge from {@code requester} (each
         * edge has its own protection domain and rkeys), or null if the region is not (yet) hosted here.
         */
        Registration registration(int owner, int requester, EdgeRegistrations.Region region);

        /** Whether the edge requester → owner has a protection domain here, which a BIND adds a region to. */
        boolean hasDomain(int owner, int requester);

        /** Drops the edge's registration of {@code region}; false if it held none. */
        boolean release(int owner, int requester, EdgeRegistrations.Region region);
    }

    /** A plan this host serves: its digest and its graph, whose edges grant access to its regions. */
    public record ServedPlan(PlanDigest digest, Graph graph)
    {
    }

    /** The plans a host serves, found by the first bytes of their digest as a request carries them. */
    @FunctionalInterface
    public interface ServedPlans
    {
        /** The plan whose digest begins with {@code prefix} (8 bytes), or null when none is served here. */
        ServedPlan find(byte[] prefix);

        /** Exactly {@code plan}. */
        static ServedPlans of(final ServedPlan plan)
        {
            return (prefix) -> java.util.Arrays.equals(prefix, 0, prefix.length, plan.digest().toByteArray(), 0,
                prefix.length) ? plan : null;
        }
    }

    /**
     * The verdict on one handshake request.
     *
     * @param status    OK if granted.
     * @param message   one sentence: what was granted, or why not and the fix.
     * @param reply     the bytes to send back, or null when the request was too garbled to answer.
     */
    public record Decision(OpStatus status, String message, byte[] reply)
    {
    }

    private record Seen(int requester, long nonce)
    {
    }

    private record PeerPort(InetAddress address, int port)
    {
    }

    /**
     * An admitted rdma_cm connection request: the edge owner ← requester it is for, and the region its
     * CONNECT grant registered, or null when it was an OPEN (a queue pair with no region yet).
     */
    public record Admitted(int owner, int requester, Registration registration)
    {
    }

    private record Pending(Registration registration, int requester, int owner, long deadlineNs)
    {
    }

    private final ServedPlans plans;
    private final ClusterKey key;
    private final ServedPlan launch;
    private final Map<PlanDigest, VerbsHandshake> codecs = new java.util.HashMap<>();
    private final HostedRegions regions;
    private final FabricCounters counters;
    private final int replayWindow;
    private final long grantTtlNs;
    private final LinkedHashMap<Seen, Boolean> seen = new LinkedHashMap<>();
    private final LinkedHashMap<PeerPort, Pending> pending = new LinkedHashMap<>();

    /**
     * An acceptor of one plan's edges.
     *
     * @param plan         the plan; access is granted along its edges only.
     * @param digest       the plan's digest.
     * @param key          the cluster key.
     * @param regions      the regions hosted here.
     * @param counters     where refusals are counted.
     * @param replayWindow how many recent (requester, nonce) pairs are remembered to refuse replays.
     * @param grantTtlNs   how long a grant waits for its rdma_cm connection request.
     */
    public VerbsEdgeAcceptor(
        final Graph plan,
        final PlanDigest digest,
        final ClusterKey key,
        final HostedRegions regions,
        final FabricCounters counters,
        final int replayWindow,
        final long grantTtlNs)
    {
        this(ServedPlans.of(new ServedPlan(digest, plan)), new ServedPlan(digest, plan), key, regions, counters,
            replayWindow, grantTtlNs);
    }

    /**
     * An acceptor of the edges of every plan {@code plans} finds.
     *
     * @param plans  the plans served; each grants access to its own regions along its own edges.
     * @param launch a plan served, under which requests naming no served plan are refused.
     */
    public VerbsEdgeAcceptor(
        final ServedPlans plans,
        final ServedPlan launch,
        final ClusterKey key,
        final HostedRegions regions,
        final FabricCounters counters,
        final int replayWindow,
        final long grantTtlNs)
    {
        this.plans = plans;
        this.key = key;
        this.launch = launch;
        this.regions = regions;
        this.counters = counters;
        this.replayWindow = replayWindow;
        this.grantTtlNs = grantTtlNs;
    }

    /** Refusals by status, plus garbled requests, replays and unannounced connection requests. */
    public FabricCounters counters()
    {
        return counters;
    }

    /**
     * Decides a handshake request received from {@code from}; a grant is remembered until the
     * requester's rdma_cm connection request arrives from {@code from} and the port it names.
     */
    public Decision onRequest(final byte[] bytes, final int length, final InetAddress from, final long nowNs)
    {
        expire(nowNs);
        final ServedPlan found = length >= VerbsHandshake.REQUEST_LENGTH ? plans.find(java.util.Arrays.copyOfRange(
            bytes, VerbsHandshake.REQ_PLAN_PREFIX, VerbsHandshake.REQ_PLAN_PREFIX + VerbsHandshake.PLAN_PREFIX_LENGTH)) :
            null;
        // A plan not served here is refused by a served plan's codec: REGION_MISMATCH, naming that plan.
        final ServedPlan plan = found == null ? launch : found;
        final VerbsHandshake codec = codec(plan.digest());
        final VerbsHandshake.Request request = codec.parseRequest(bytes, length);
        if (request.status() == OpStatus.PROTOCOL_ERROR)
        {
            counters.increment(FabricCounters.Other.MALFORMED_FRAME);
            return refuse(request.status(), request.message(), null);
        }
        if (request.status() != OpStatus.OK)
        {
            return refuse(request.status(), request.message(), codec.reply(request, request.status(), 0, 0, 0));
        }
        final int requester = request.requester();
        final int owner = request.owner();
        if (seen.putIfAbsent(new Seen(requester, request.nonce()), Boolean.TRUE) != null)
        {
            counters.increment(FabricCounters.Other.REPLAYED_REQUEST);
            return refuse(OpStatus.PROTOCOL_ERROR, "a handshake of process " + requester + " for process " + owner +
                " was replayed (nonce seen before): refused", codec.reply(request, OpStatus.PROTOCOL_ERROR, 0, 0, 0));
        }
        trimSeen();
        if (!mayAccess(plan.graph(), requester, owner))
        {
            return refuse(OpStatus.REFUSED_NOT_NEIGHBOUR, VerbsHandshake.refusalMessage(
                OpStatus.REFUSED_NOT_NEIGHBOUR, requester, owner), codec.reply(request, OpStatus.REFUSED_NOT_NEIGHBOUR,
                0, 0, 0));
        }
        final EdgeRegistrations.Region region = new EdgeRegistrations.Region(request.era(), plan.digest());
        if (request.op() == VerbsHandshake.OP_RELEASE)
        {
            final boolean released = regions.release(owner, requester, region);
            return new Decision(OpStatus.OK, (released ? "released" : "nothing to release:") + " the region of " +
                "process " + owner + " of era " + request.era() + " for process " + requester,
                codec.reply(request, OpStatus.OK, 0, 0, 0));
        }
        if (request.op() == VerbsHandshake.OP_OPEN)
        {
            // No region: the connection request is admitted in the edge's protection domain, made then.
            pending.put(new PeerPort(from, request.cmPort()), new Pending(null, requester, owner, nowNs + grantTtlNs));
            return new Decision(OpStatus.OK, "granted process " + requester + " a queue pair to the regions of " +
                "process " + owner + " ahead of era " + request.era() + ", for its connection from " +
                from.getHostAddress() + ":" + request.cmPort(), codec.reply(request, OpStatus.OK, 0, 0, 0));
        }
        if (request.op() == VerbsHandshake.OP_BIND && !regions.hasDomain(owner, requester))
        {
            return refuse(OpStatus.NOT_CONNECTED, VerbsHandshake.refusalMessage(OpStatus.NOT_CONNECTED, requester,
                owner), codec.reply(request, OpStatus.NOT_CONNECTED, 0, 0, 0));
        }
        final Registration registration = regions.registration(owner, requester, region);
        if (registration == null)
        {
            return refuse(OpStatus.REGION_LOST, VerbsHandshake.refusalMessage(OpStatus.REGION_LOST, requester, owner),
                codec.reply(request, OpStatus.REGION_LOST, 0, 0, 0));
        }
        if (request.op() == VerbsHandshake.OP_BIND)
        {
            return new Decision(OpStatus.OK, "granted process " + requester + " the region of process " + owner +
                " of era " + request.era() + " on its existing queue pair",
                codec.reply(request, OpStatus.OK, registration.remoteBase(), registration.rkey(),
                registration.dataBytes()));
        }
        pending.put(new PeerPort(from, request.cmPort()),
            new Pending(registration, requester, owner, nowNs + grantTtlNs));
        return new Decision(OpStatus.OK, "granted process " + requester + " the region of process " + owner +
            " of era " + request.era() + " for its connection from " + from.getHostAddress() + ":" + request.cmPort(),
            codec.reply(request, OpStatus.OK, registration.remoteBase(), registration.rkey(), registration.dataBytes()));
    }

    /**
     * Admits an rdma_cm connection request from {@code peer}:{@code port} if a grant announced it;
     * returns the edge and the granted registration (none for an OPEN), or null (refused and counted:
     * destroy the request).
     */
    public Admitted admit(final InetAddress peer, final int port, final long nowNs)
    {
        expire(nowNs);
        final Pending grant = pending.remove(new PeerPort(peer, port));
        if (grant == null)
        {
            counters.increment(FabricCounters.Other.CONNECTION_REFUSED);
            return null;
        }
        return new Admitted(grant.owner(), grant.requester(), grant.registration());
    }

    /** Grants waiting for their connection request (diagnostics, tests). */
    public int pendingGrants()
    {
        return pending.size();
    }

    private VerbsHandshake codec(final PlanDigest digest)
    {
        return codecs.computeIfAbsent(digest, (d) -> new VerbsHandshake(key, d));
    }

    private static boolean mayAccess(final Graph plan, final int requester, final int owner)
    {
        return requester >= 0 && requester < plan.n() && owner >= 0 && owner < plan.n() &&
            (requester == owner || plan.hasEdge(requester, owner));
    }

    private Decision refuse(final OpStatus status, final String message, final byte[] reply)
    {
        counters.increment(status);
        return new Decision(status, message, reply);
    }

    private void trimSeen()
    {
        final Iterator<Seen> it = seen.keySet().iterator();
        while (seen.size() > replayWindow && it.hasNext())
        {
            it.next();
            it.remove();
        }
    }

    private void expire(final long nowNs)
    {
        final Iterator<Map.Entry<PeerPort, Pending>> it = pending.entrySet().iterator();
        while (it.hasNext())
        {
            if (it.next().getValue().deadlineNs() - nowNs <= 0)
            {
                it.remove();
            }
        }
    }
}
