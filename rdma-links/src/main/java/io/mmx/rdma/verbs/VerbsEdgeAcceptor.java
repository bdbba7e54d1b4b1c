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
 * grant (authenticated by the cluster key, same plan, requester is the owner or one of its plan
 * neighbours, region hosted here, nonce not seen before) and which rdma_cm connection requests
 * get a queue pair (only one that a grant announced, from the same address and port, before the
 * grant expires). Every refusal is counted in {@link #counters()} and creates nothing: no queue
 * pair, no registration, no grant.
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
    @FunctionalInterface
    public interface HostedRegions
    {
        /**
         * The registration of {@code owner}'s region for the edge from {@code requester} (each edge has
         * its own rkey), or null if the region is not (yet) hosted here.
         */
        Registration registration(int owner, int requester);
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

    private record Pending(Registration registration, int requester, int owner, long deadlineNs)
    {
    }

    private final Graph plan;
    private final VerbsHandshake codec;
    private final HostedRegions regions;
    private final FabricCounters counters;
    private final int replayWindow;
    private final long grantTtlNs;
    private final LinkedHashMap<Seen, Boolean> seen = new LinkedHashMap<>();
    private final LinkedHashMap<PeerPort, Pending> pending = new LinkedHashMap<>();

    /**
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
        this.plan = plan;
        this.codec = new VerbsHandshake(key, digest);
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
        if (!mayAccess(requester, owner))
        {
            return refuse(OpStatus.REFUSED_NOT_NEIGHBOUR, VerbsHandshake.refusalMessage(
                OpStatus.REFUSED_NOT_NEIGHBOUR, requester, owner), codec.reply(request, OpStatus.REFUSED_NOT_NEIGHBOUR,
                0, 0, 0));
        }
        final Registration registration = regions.registration(owner, requester);
        if (registration == null)
        {
            return refuse(OpStatus.REGION_LOST, VerbsHandshake.refusalMessage(OpStatus.REGION_LOST, requester, owner),
                codec.reply(request, OpStatus.REGION_LOST, 0, 0, 0));
        }
        pending.put(new PeerPort(from, request.cmPort()),
            new Pending(registration, requester, owner, nowNs + grantTtlNs));
        return new Decision(OpStatus.OK, "granted process " + requester + " the region of process " + owner +
            " for its connection from " + from.getHostAddress() + ":" + request.cmPort(),
            codec.reply(request, OpStatus.OK, registration.remoteBase(), registration.rkey(), registration.dataBytes()));
    }

    /**
     * Admits an rdma_cm connection request from {@code peer}:{@code port} if a grant announced it;
     * returns the granted registration, or null (refused and counted: destroy the request).
     */
    public Registration admit(final InetAddress peer, final int port, final long nowNs)
    {
        expire(nowNs);
        final Pending grant = pending.remove(new PeerPort(peer, port));
        if (grant == null)
        {
            counters.increment(FabricCounters.Other.CONNECTION_REFUSED);
            return null;
        }
        return grant.registration();
    }

    /** Grants waiting for their connection request (diagnostics, tests). */
    public int pendingGrants()
    {
        return pending.size();
    }

    private boolean mayAccess(final int requester, final int owner)
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
