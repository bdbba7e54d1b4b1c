package io.mmx.rdma.verbs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The registrations a region host holds, one per plan edge: each (owner, requester) pair gets its
 * own protection domain and its own registration of the owner's data area, made on the edge's
 * first grant and reused by every later grant on it. The host creates the edge's queue pair in
 * that protection domain, so the edge's rkey is useless to any other queue pair (an rkey only
 * works for QPs of its own PD), revoking one edge deregisters only its memory, and a region that
 * moved (a new mapping) loses every edge's registration, deregistered before the new one is made,
 * so no edge keeps reaching the old memory.
 *
 * <p>Not thread-safe: the host calls it under the acceptor's lock.
 *
 * @param <P> the native protection domain.
 * @param <M> the native memory registration.
 */
public final class EdgeRegistrations<P, M>
{
    /** The native calls: DiSNI on a host, a recording fake in tests. */
    public interface Native<P, M>
    {
        /** {@code ibv_alloc_pd}. */
        P allocPd() throws IOException;

        /** {@code ibv_reg_mr} with local write, remote read, write and atomic access. */
        M register(P pd, long address, int length) throws IOException;

        /** The registration's rkey. */
        int rkey(M mr);

        /** {@code ibv_dereg_mr}. */
        void deregister(M mr);

        /** {@code ibv_dealloc_pd}. */
        void deallocPd(P pd);
    }

    /** One edge's protection domain and registration. */
    public record Edge<P, M>(int owner, int requester, P pd, M mr, int rkey, long address, long dataBytes)
    {
    }

    private record EdgeId(int owner, int requester)
    {
    }

    private final Native<P, M> nativeCalls;
    private final Map<EdgeId, Edge<P, M>> edges = new HashMap<>();
    private final Map<Integer, Edge<P, M>> byRkey = new HashMap<>();

    /** Registrations made through {@code nativeCalls}. */
    public EdgeRegistrations(final Native<P, M> nativeCalls)
    {
        this.nativeCalls = nativeCalls;
    }

    /**
     * The registration of the edge requester → owner for a data area at {@code address}: the
     * existing one if it covers that area, else a new one (after deregistering every registration of
     * the owner's region at another address: the region moved).
     *
     * @throws IOException if the native registration fails; nothing is left half-made.
     */
    public Edge<P, M> grant(final int owner, final int requester, final long address, final long dataBytes)
        throws IOException
    {
        final EdgeId id = new EdgeId(owner, requester);
        final Edge<P, M> existing = edges.get(id);
        if (existing != null && existing.address() == address && existing.dataBytes() == dataBytes)
        {
            return existing;
        }
        if (existing != null || movedFrom(owner, address))
        {
            // The region moved (a new mapping): every edge into it still points at the old memory.
            revokeRegion(owner);
        }
        final P pd = nativeCalls.allocPd();
        final M mr;
        try
        {
            mr = nativeCalls.register(pd, address, Math.toIntExact(dataBytes));
        }
        catch (final IOException | RuntimeException ex)
        {
            nativeCalls.deallocPd(pd);
            throw ex;
        }
        final Edge<P, M> edge = new Edge<>(owner, requester, pd, mr, nativeCalls.rkey(mr), address, dataBytes);
        edges.put(id, edge);
        byRkey.put(edge.rkey(), edge);
        return edge;
    }

    // True if an edge into owner's region is registered at another address.
    private boolean movedFrom(final int owner, final long address)
    {
        for (final Edge<P, M> edge : edges.values())
        {
            if (edge.owner() == owner && edge.address() != address)
            {
                return true;
            }
        }
        return false;
    }

    /** The edge an rkey was granted for, or null. */
    public Edge<P, M> byRkey(final int rkey)
    {
        return byRkey.get(rkey);
    }

    /**
     * Revokes one edge: deregisters its memory and frees its protection domain (destroy the edge's
     * queue pairs first). Other edges of the owner keep working.
     */
    public boolean revoke(final int owner, final int requester)
    {
        return release(new EdgeId(owner, requester));
    }

    /** Revokes every edge into {@code owner}'s region (it was deleted or replaced). */
    public int revokeRegion(final int owner)
    {
        final List<EdgeId> ids = new ArrayList<>();
        for (final EdgeId id : edges.keySet())
        {
            if (id.owner() == owner)
            {
                ids.add(id);
            }
        }
        ids.forEach(this::release);
        return ids.size();
    }

    /** Registrations held now. */
    public int size()
    {
        return edges.size();
    }

    /** Revokes every edge. */
    public void close()
    {
        new ArrayList<>(edges.keySet()).forEach(this::release);
    }

    private boolean release(final EdgeId id)
    {
        final Edge<P, M> edge = edges.remove(id);
        if (edge == null)
        {
            return false;
        }
        byRkey.remove(edge.rkey());
        nativeCalls.deregister(edge.mr());
        nativeCalls.deallocPd(edge.pd());
        return true;
    }
}
