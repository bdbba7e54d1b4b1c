package io.mmx.rdma.verbs;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * Hosted regions for acceptor tests: the registration {@code registrations} gives for an edge (the
 * same whatever the era), a protection domain for every edge granted so far, and the releases asked for.
 */
final class FakeRegions implements VerbsEdgeAcceptor.HostedRegions
{
    private final BiFunction<Integer, Integer, VerbsEdgeAcceptor.Registration> registrations;
    final Set<List<Integer>> domains = new HashSet<>();
    final List<EdgeRegistrations.Region> released = new ArrayList<>();
    final List<EdgeRegistrations.Region> granted = new ArrayList<>();

    FakeRegions(final BiFunction<Integer, Integer, VerbsEdgeAcceptor.Registration> registrations)
    {
        this.registrations = registrations;
    }

    @Override
    public VerbsEdgeAcceptor.Registration registration(final int owner, final int requester,
        final EdgeRegistrations.Region region)
    {
        final VerbsEdgeAcceptor.Registration r = registrations.apply(owner, requester);
        if (r != null)
        {
            domains.add(List.of(owner, requester));
            granted.add(region);
        }
        return r;
    }

    @Override
    public boolean hasDomain(final int owner, final int requester)
    {
        return domains.contains(List.of(owner, requester));
    }

    @Override
    public boolean release(final int owner, final int requester, final EdgeRegistrations.Region region)
    {
        released.add(region);
        return true;
    }
}
