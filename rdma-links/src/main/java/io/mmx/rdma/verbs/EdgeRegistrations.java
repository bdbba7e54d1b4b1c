package io.mmx.rdma.verbs;

import io.mmx.planner.plan.PlanDigest;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The registrations a region host holds, per plan edge: each (owner, requester) pair gets its own
 * protection domain, and in it one registration of each of the owner's regions the edge was granted
 * (one per era: a live plan change gives the owner a fresh region, and the ended era's region stays
 * served to peers that are behind). The host creates the edge's queue pairs in that protection
 * domain, so the edge's existing queue pair reaches a new era's region with the new rkey, no other
 * queue pair can use the edge's rkeys (an rkey only works for QPs of its own PD), releasing or
 * revoking one edge deregisters only its memory, and a region that moved (a new mapping) loses every
 * edge's registration of it, deregistered before the new one is made, so no edge keeps reaching the
 * old memory.
 *
 * <p>A protection domain is freed once it holds neither a registration nor a queue pair
 * ({@link #attach}, {@link #detach}): a PD holding queue pairs cannot be freed, and an edge whose
 * eras all ended but whose queue pair is still up gets the next era's registration in the same PD;
 * the edge's last queue pair takes its registrations with it.
 * An edge holds at most {@link #MAX_REGIONS_PER_EDGE} regions; a grant beyond deregisters the one
 * granted longest ago, so an edge whose requester never releases its ended eras (it crashed) does
 * not pin their memory registered for ever.
 *
 * <p>Not thread-safe: the host calls it under the acceptor's lock.
 *
 * @param <P> the native protection domain.
 * @param <M> the native memory registration.
 */
public final class EdgeRegistrations<P, M>
{
    /** Regions of one owner an edge holds at once: the eras that may overlap, as memd's bindings per session. */
    public static final int MAX_REGIONS_PER_EDGE = 4;

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

    /**
     * Which of an owner's regions: the one of era {@code era}, whose header names {@code plan}.
     * Two eras may run the same plan (a change that replaces a host), each on a fresh region.
     */
    public record Region(int era, PlanDigest plan)
    {
    }

    /** One edge's registration of one of the owner's regions, in the edge's protection domain. */
    public record Edge<P, M>(int owner, int requester, Region region, P pd, M mr, int rkey, long address,
        long dataBytes)
    {
    }

    /** The protection domain of the edge requester → owner, in which its queue pairs are created. */
    public record EdgeDomain<P>(int owner, int requester, P pd)
    {
    }

    private record EdgeId(int owner, int requester)
    {
    }

    /** One edge's protection domain, its registrations (oldest grant first) and the queue pairs in it. */
    private static final class Domain<P, M>
    {
        final P pd;
        final LinkedHashMap<Region, Edge<P, M>> regions = new LinkedHashMap<>();
        int queuePairs;

        Domain(final P pd)
        {
            this.pd = pd;
        }
    }

    private final Native<P, M> nativeCalls;
    private final Map<EdgeId, Domain<P, M>> domains = new HashMap<>();
    private final Map<Integer, Edge<P, M>> byRkey = new HashMap<>();

    /** Registrations made through {@code nativeCalls}. */
    public EdgeRegistrations(final Native<P, M> nativeCalls)
    {
        this.nativeCalls = nativeCalls;
    }

    /**
     * The registration of the edge requester → owner for the owner's {@code region} whose data area is
     * at {@code address}: the existing one if it covers that area, else a new one in the edge's
     * protection domain (allocated on the edge's first grant), after deregistering every edge's
     * registration of that region at another address (the region moved).
     *
     * @throws IOException if a native call fails; nothing is left half-made.
     */
    public Edge<P, M> grant(final int owner, final int requester, final Region region, final long address,
        final long dataBytes) throws IOException
    {
        final EdgeId id = new EdgeId(owner, requester);
        final Domain<P, M> known = domains.get(id);
        final Edge<P, M> existing = known == null ? null : known.regions.get(region);
        if (existing != null && existing.address() == address && existing.dataBytes() == dataBytes)
        {
            return existing;
        }
        if (existing != null || movedFrom(owner, region, address))
        {
            // The region moved (a new mapping): every edge into it still points at the old memory.
            revokeRegion(owner, region);
        }
        final boolean fresh = !domains.containsKey(id);
        final Domain<P, M> domain = fresh ? new Domain<>(nativeCalls.allocPd()) : domains.get(id);
        final M mr;
        try
        {
            mr = nativeCalls.register(domain.pd, address, Math.toIntExact(dataBytes));
        }
        catch (final IOException | RuntimeException ex)
        {
            if (fresh)
            {
                nativeCalls.deallocPd(domain.pd);
            }
            throw ex;
        }
        if (fresh)
        {
            domains.put(id, domain);
        }
        final Edge<P, M> edge = new Edge<>(owner, requester, region, domain.pd, mr, nativeCalls.rkey(mr), address,
            dataBytes);
        domain.regions.put(region, edge);
        byRkey.put(edge.rkey(), edge);
        while (domain.regions.size() > MAX_REGIONS_PER_EDGE)
        {
            // The requester did not release an ended era (it crashed, or its release was lost).
            final Iterator<Edge<P, M>> oldest = domain.regions.values().iterator();
            final Edge<P, M> evicted = oldest.next();
            oldest.remove();
            deregister(evicted);
        }
        return edge;
    }

    // True if an edge into owner's region is registered at another address.
    private boolean movedFrom(final int owner, final Region region, final long address)
    {
        for (final Map.Entry<EdgeId, Domain<P, M>> entry : domains.entrySet())
        {
            final Edge<P, M> edge = entry.getKey().owner() == owner ? entry.getValue().regions.get(region) : null;
            if (edge != null && edge.address() != address)
            {
                return true;
            }
        }
        return false;
    }

    /** The registration an rkey was granted for, or null. */
    public Edge<P, M> byRkey(final int rkey)
    {
        return byRkey.get(rkey);
    }

    /** The protection domain of the edge requester → owner, or null when it has none. */
    public P domain(final int owner, final int requester)
    {
        final Domain<P, M> domain = domains.get(new EdgeId(owner, requester));
        return domain == null ? null : domain.pd;
    }

    /**
     * The protection domain of the edge requester → owner, allocated now if it has none: for a queue
     * pair opened ahead of the era whose region it will carry ({@link VerbsHandshake#OP_OPEN}). Attach
     * the queue pair at once ({@link #attach}): a domain holding neither is freed with the next release.
     *
     * @throws IOException if the native allocation fails.
     */
    public EdgeDomain<P> openDomain(final int owner, final int requester) throws IOException
    {
        final EdgeId id = new EdgeId(owner, requester);
        Domain<P, M> domain = domains.get(id);
        if (domain == null)
        {
            domain = new Domain<>(nativeCalls.allocPd());
            domains.put(id, domain);
        }
        return new EdgeDomain<>(owner, requester, domain.pd);
    }

    /** A queue pair of the edge was created in its protection domain: the PD stays until it is destroyed. */
    public void attach(final int owner, final int requester)
    {
        final Domain<P, M> domain = domains.get(new EdgeId(owner, requester));
        if (domain == null)
        {
            throw new IllegalStateException("no protection domain for the edge from process " + requester +
                " to process " + owner + ": create a queue pair only for an edge that was granted");
        }
        domain.queuePairs++;
    }

    /**
     * A queue pair of the edge was destroyed. With its last one the edge's registrations are
     * deregistered and its PD freed: the requester's next queue pair is granted afresh (CONNECT, then
     * BIND for its other eras), so an edge whose requester went away pins no registered memory.
     */
    public void detach(final int owner, final int requester)
    {
        final EdgeId id = new EdgeId(owner, requester);
        final Domain<P, M> domain = domains.get(id);
        if (domain != null && domain.queuePairs > 0)
        {
            domain.queuePairs--;
            if (domain.queuePairs == 0)
            {
                domain.regions.values().forEach(this::deregister);
                domain.regions.clear();
                freeIfEmpty(id, domain);
            }
        }
    }

    /**
     * The requester no longer uses the owner's {@code region} on this edge (its era retired): that one
     * registration is deregistered; the edge's others, and its queue pairs, stay.
     */
    public boolean release(final int owner, final int requester, final Region region)
    {
        final EdgeId id = new EdgeId(owner, requester);
        final Domain<P, M> domain = domains.get(id);
        final Edge<P, M> edge = domain == null ? null : domain.regions.remove(region);
        if (edge == null)
        {
            return false;
        }
        deregister(edge);
        freeIfEmpty(id, domain);
        return true;
    }

    /**
     * Revokes one edge: deregisters every region's registration in its protection domain, and frees
     * the domain unless queue pairs are still in it (destroy them first: it is freed with the last).
     * Other edges of the owner keep working.
     */
    public boolean revoke(final int owner, final int requester)
    {
        final EdgeId id = new EdgeId(owner, requester);
        final Domain<P, M> domain = domains.get(id);
        if (domain == null || domain.regions.isEmpty())
        {
            return false;
        }
        final List<Edge<P, M>> all = new ArrayList<>(domain.regions.values());
        domain.regions.clear();
        all.forEach(this::deregister);
        freeIfEmpty(id, domain);
        return true;
    }

    /** Deregisters every edge's registration of the owner's {@code region} (it was deleted or replaced). */
    public int revokeRegion(final int owner, final Region region)
    {
        int revoked = 0;
        for (final Map.Entry<EdgeId, Domain<P, M>> entry : new ArrayList<>(domains.entrySet()))
        {
            if (entry.getKey().owner() == owner)
            {
                final Edge<P, M> edge = entry.getValue().regions.remove(region);
                if (edge != null)
                {
                    deregister(edge);
                    freeIfEmpty(entry.getKey(), entry.getValue());
                    revoked++;
                }
            }
        }
        return revoked;
    }

    /** Registrations held now, over every edge and era. */
    public int size()
    {
        return byRkey.size();
    }

    /** Protection domains held now: one per edge with a registration or a queue pair. */
    public int domains()
    {
        return domains.size();
    }

    /** Deregisters everything and frees every protection domain (destroy the queue pairs first). */
    public void close()
    {
        for (final Domain<P, M> domain : domains.values())
        {
            domain.regions.values().forEach(this::deregister);
            domain.regions.clear();
            nativeCalls.deallocPd(domain.pd);
        }
        domains.clear();
    }

    private void deregister(final Edge<P, M> edge)
    {
        byRkey.remove(edge.rkey());
        nativeCalls.deregister(edge.mr());
    }

    private void freeIfEmpty(final EdgeId id, final Domain<P, M> domain)
    {
        if (domain.regions.isEmpty() && domain.queuePairs == 0)
        {
            domains.remove(id);
            nativeCalls.deallocPd(domain.pd);
        }
    }
}
