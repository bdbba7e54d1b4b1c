package io.mmx.rdma.local;

import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.RegionLink;
import io.mmx.rdma.fabric.RegionLinkFactory;
import io.mmx.rdma.region.RegionKeyCheck;
import io.mmx.rdma.region.DirectRegionLink;
import io.mmx.rdma.region.RegionHeader;
import io.mmx.rdma.region.RegionMemory;
import io.mmx.rdma.region.RegionResolver;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Regions held in this JVM's off-heap memory: the backend for the simulator and unit tests.
 * A region outlives its owner's fabric (closing a fabric does not free it), as R_q outlives q.
 * Thread-safe: fabrics of many simulated processes may share one store.
 */
public final class LocalRegionStore
{
    private final ConcurrentHashMap<Integer, RegionMemory> regions = new ConcurrentHashMap<>();

    /**
     * Creates {@code owner}'s region, or returns the existing one if it matches (a restarted owner
     * finds its state again).
     *
     * @throws IllegalStateException if a region of that owner exists with another plan, key or size.
     */
    public RegionMemory createOrOpen(final int owner, final long dataBytes, final PlanDigest plan, final RegionKeyCheck key)
    {
        RegionHeader.checkDataBytes(dataBytes);
        final RegionMemory memory = regions.computeIfAbsent(owner, (o) ->
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(
                BufferUtil.allocateDirectAligned((int)(RegionHeader.HEADER_BYTES + dataBytes), 64));
            RegionHeader.write(buffer, owner, dataBytes, plan, key);
            return new RegionMemory(buffer, owner);
        });
        final RegionHeader.Verdict verdict = RegionHeader.validate(
            memory.buffer(), memory.buffer().capacity(), owner, plan, key, "local region of process " + owner);
        if (!verdict.ok() || memory.dataBytes() != dataBytes)
        {
            throw new IllegalStateException(verdict.ok() ? "local region of process " + owner + " exists with " +
                memory.dataBytes() + " data bytes, not " + dataBytes + ": use one region size for the whole cluster" :
                verdict.message());
        }
        return memory;
    }

    /** Removes {@code owner}'s region; links that resolve it afterwards see REGION_LOST. */
    public void destroy(final int owner)
    {
        regions.remove(owner);
    }

    /** A resolver that validates regions against {@code plan} and {@code key}. */
    public RegionResolver resolver(final PlanDigest plan, final RegionKeyCheck key)
    {
        return (owner) ->
        {
            final RegionMemory memory = regions.get(owner);
            if (memory == null)
            {
                return RegionResolver.Resolution.failed(OpStatus.REGION_LOST, "process " + owner +
                    " has no local region: it must create it with createOrOpen before neighbours use it");
            }
            final RegionHeader.Verdict verdict = RegionHeader.validate(
                memory.buffer(), memory.buffer().capacity(), owner, plan, key, "local region of process " + owner);
            return verdict.ok() ?
                RegionResolver.Resolution.found(memory) : RegionResolver.Resolution.failed(verdict.status(), verdict.message());
        };
    }

    /** A link factory for fabrics of this store under {@code plan} and {@code key}. */
    public RegionLinkFactory linkFactory(final PlanDigest plan, final RegionKeyCheck key)
    {
        final RegionResolver resolver = resolver(plan, key);
        return (self, owner) -> (RegionLink)new DirectRegionLink(owner, resolver, () -> {});
    }
}
