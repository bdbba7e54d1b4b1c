package io.mmx.rdma.verbs;

import org.agrona.concurrent.UnsafeBuffer;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The registration side of a NIC, in software, for {@link EdgeRegistrations}: protection domains,
 * memory registrations with their rkeys, and queue pairs ({@link SoftwareNic}) created in one
 * protection domain. A queue pair reaches memory only through an rkey that is registered now and
 * belongs to its own protection domain, as an RC QP on hardware does; anything else completes
 * with a remote access error. Thread-safe: fabrics of several threads post at once.
 */
final class SoftwareHca implements EdgeRegistrations.Native<Integer, SoftwareHca.Registration>
{
    /** One ibv_mr: its PD, rkey and memory. */
    record Registration(int pd, int rkey, long address, int length)
    {
    }

    private final Set<Integer> pds = ConcurrentHashMap.newKeySet();
    private final Map<Integer, Registration> byRkey = new ConcurrentHashMap<>();
    private final AtomicInteger nextPd = new AtomicInteger(1);
    private final AtomicInteger nextRkey = new AtomicInteger(0x1000);
    private final AtomicInteger registrationsMade = new AtomicInteger();

    @Override
    public Integer allocPd()
    {
        final int pd = nextPd.getAndIncrement();
        pds.add(pd);
        return pd;
    }

    @Override
    public Registration register(final Integer pd, final long address, final int length)
    {
        if (!pds.contains(pd))
        {
            throw new AssertionError("registration in a freed protection domain " + pd);
        }
        final Registration mr = new Registration(pd, nextRkey.getAndIncrement(), address, length);
        byRkey.put(mr.rkey(), mr);
        registrationsMade.incrementAndGet();
        return mr;
    }

    @Override
    public int rkey(final Registration mr)
    {
        return mr.rkey();
    }

    @Override
    public void deregister(final Registration mr)
    {
        if (byRkey.remove(mr.rkey()) == null)
        {
            throw new AssertionError("rkey " + mr.rkey() + " deregistered twice");
        }
    }

    @Override
    public void deallocPd(final Integer pd)
    {
        if (!pds.remove(pd))
        {
            throw new AssertionError("protection domain " + pd + " freed twice");
        }
    }

    /** A queue pair in protection domain {@code pd}. */
    SoftwareNic queuePair(final int pd)
    {
        return new SoftwareNic((rkey) ->
        {
            final Registration mr = byRkey.get(rkey);
            return mr == null || mr.pd() != pd ? null :
                new SoftwareNic.Area(mr.address(), new UnsafeBuffer(mr.address(), mr.length()));
        });
    }

    /** Registrations live now. */
    int liveRegistrations()
    {
        return byRkey.size();
    }

    /** Registrations made since the start, deregistered or not. */
    int registrationsMade()
    {
        return registrationsMade.get();
    }

    /** The live registration behind {@code rkey}, or null. */
    Registration registration(final int rkey)
    {
        return byRkey.get(rkey);
    }
}
