package io.mmx.runtime.node;

import io.mmx.planner.graph.Graph;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.region.DirectRegionLink;
import io.mmx.rdma.region.RegionHeader;
import io.mmx.rdma.region.RegionMemory;
import io.mmx.rdma.region.RegionResolver;
import io.mmx.runtime.core.RegionLayout;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.*;

/** A missing region is formatted with the incarnation the node was told: 0 new, 1 after a loss. */
class RegionSetupTest
{
    private static long[] format(final boolean lost)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(RegionHeader.HEADER_BYTES + 8 * 64));
        buffer.putLong(RegionHeader.DATA_BYTES_OFFSET, 8 * 64);
        final RegionMemory memory = new RegionMemory(buffer, 0);
        final RegionResolver resolver = owner -> RegionResolver.Resolution.found(memory);
        final PlanMemoryFabric fabric = new PlanMemoryFabric(ConnectionManager.open(Graph.empty(1), 0,
            (self, owner) -> new DirectRegionLink(owner, resolver, () -> { })), System::nanoTime);
        try (fabric)
        {
            RegionSetup.formatIfNew(fabric, 0, 42, lost);
            RegionSetup.formatIfNew(fabric, 0, 42, !lost); // found again: left as it is
        }
        final long[] header = new long[RegionLayout.HEADER_WORDS];
        for (int w = 0; w < header.length; w++)
        {
            header[w] = buffer.getLong(RegionHeader.HEADER_BYTES + 8 * w);
        }
        return header;
    }

    @Test
    void aRegionNewWithTheClusterIsIncarnationZeroAndALostOneIsNot()
    {
        final long[] fresh = format(false);
        assertEquals(RegionHeader.PROTOCOL_MAGIC, fresh[RegionHeader.MAGIC_WORD]);
        assertEquals(0, fresh[RegionLayout.INCARNATION_WORD]);
        assertFalse(RegionLayout.amnesiac(fresh[RegionLayout.INCARNATION_WORD], fresh[RegionLayout.HEAD_WORD]));

        final long[] lost = format(true);
        assertEquals(1, lost[RegionLayout.INCARNATION_WORD]);
        assertTrue(RegionLayout.amnesiac(lost[RegionLayout.INCARNATION_WORD], lost[RegionLayout.HEAD_WORD]),
            "its acceptor stays out of quorums");
    }
}
