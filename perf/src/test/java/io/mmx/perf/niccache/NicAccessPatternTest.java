package io.mmx.perf.niccache;

import io.mmx.planner.generate.Generators;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.placement.Placement;
import io.mmx.planner.placement.QpAccounting;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The analytic m&amp;m pattern counts the right QPs and offers the rates DESIGN §4 implies. */
class NicAccessPatternTest
{
    private static final ProtocolRates NO_CRASHES = new ProtocolRates(1000, 1_000_000, 0, 0, 1);

    @Test
    void qpsPerNicAreThePlannersOffHostQpsPlusOneLoopbackPerProcess()
    {
        final Graph graph = Generators.byName("random").generate(256, 8, 3);
        final Placement placement = Placement.contiguous(256, 2, 8, 16);
        final QpAccounting accounting = QpAccounting.of(graph, placement);
        final MmAccessPattern pattern = new MmAccessPattern("d=8", Neighbours.of(graph), placement, NO_CRASHES);
        for (int host = 0; host < placement.hosts(); host++)
        {
            assertEquals(accounting.qpsOnNic(host) + placement.processCountOnHost(host), pattern.qpCount(host),
                "host " + host);
        }
    }

    @Test
    void fullMeshQpsAreProcsTimesOffHostProcessesPlusLoopbacks()
    {
        final Placement placement = Placement.contiguous(64, 1, 16, 4);
        final MmAccessPattern pattern = new MmAccessPattern("full", Neighbours.fullMesh(64), placement, NO_CRASHES);
        assertEquals(4 * (64 - 4) + 4, pattern.qpCount(0));
    }

    @Test
    void offeredRateWithoutCrashesIsHeartbeatsAndOwnCasesOnly()
    {
        // Cycle of 8, 2 processes per host: each host has 2 off-host edges (one per process).
        final Graph cycle = Graph.fromEdges(8, new int[]{0, 1, 2, 3, 4, 5, 6, 7}, new int[]{1, 2, 3, 4, 5, 6, 7, 0});
        final Placement placement = Placement.contiguous(8, 1, 4, 2);
        final MmAccessPattern pattern = new MmAccessPattern("cycle", Neighbours.of(cycle), placement, NO_CRASHES);
        // Per local process: heartbeat WRITE 1000/s + own CAS 1000/s on loopback.
        // Per off-host edge: heartbeat READ 1000/s each way.
        final double expected = 2 * (1000 + 1000) + 2 * (1000 + 1000);
        assertEquals(expected, pattern.offeredOpsPerSec(0), 1e-9);
        assertEquals(2 + 2, pattern.qpCount(0));
    }

    @Test
    void aCrashedNeighbourCostsAReadAWriteAndACasPerSlotOnTheSharedQp()
    {
        final Graph edge = Graph.fromEdges(2, new int[]{0}, new int[]{1});
        final Placement placement = Placement.contiguous(2, 1, 2, 1);
        final ProtocolRates oneCrashed = new ProtocolRates(1000, 1_000_000, 0.5, 0, 9);
        final MmAccessPattern pattern = new MmAccessPattern("edge", Neighbours.of(edge), placement, oneCrashed);
        final int crashed = pattern.isCrashed(0) ? 0 : 1;
        final int live = 1 - crashed;
        // The live NIC: its heartbeat + own CAS (2000), heartbeat READ of the crashed one (1000),
        // and READ + WRITE + CAS per slot on its behalf (3000).
        assertEquals(6000, pattern.offeredOpsPerSec(live), 1e-9);
        // The crashed NIC sees only the live executor's references, on its end of the QP.
        assertEquals(4000, pattern.offeredOpsPerSec(crashed), 1e-9);
    }

    @Test
    void streamReferencesOnlyTheNicsQps()
    {
        final Graph graph = Generators.byName("random").generate(128, 6, 5);
        final Placement placement = Placement.contiguous(128, 1, 32, 4);
        final MmAccessPattern pattern = new MmAccessPattern("d=6", Neighbours.of(graph), placement,
            ProtocolRates.DEFAULT);
        final int qps = pattern.qpCount(3);
        final ReferenceStream stream = pattern.open(3, 42);
        for (int i = 0; i < 10_000; i++)
        {
            final long reference = stream.next();
            assertTrue(reference >= 0);
            final int qp = ReferenceStream.qpId(reference);
            assertTrue(qp >= 0 && qp < qps, "QP " + qp + " of " + qps);
        }
    }

    @Test
    void rejectsAPlacementOfAnotherSize()
    {
        final Graph graph = Generators.byName("random").generate(64, 4, 1);
        assertThrows(IllegalArgumentException.class, () -> new MmAccessPattern("x", Neighbours.of(graph),
            Placement.contiguous(60, 1, 15, 4), ProtocolRates.DEFAULT));
    }
}
