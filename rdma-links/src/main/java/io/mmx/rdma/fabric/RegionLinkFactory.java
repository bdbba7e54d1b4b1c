package io.mmx.rdma.fabric;

/**
 * Opens {@link RegionLink}s for one backend. {@link ConnectionManager} calls it only for the
 * owner itself and the owner's plan neighbours, which is what keeps QP counts at degree + 1.
 */
@FunctionalInterface
public interface RegionLinkFactory
{
    /**
     * Opens a link from {@code self} to the region of {@code owner}. A peer that is not reachable
     * yet gives a link whose {@link RegionLink#state()} says so; it does not throw.
     */
    RegionLink open(int self, int owner);
}
