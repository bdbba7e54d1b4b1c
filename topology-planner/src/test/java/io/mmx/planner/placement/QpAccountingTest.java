package io.mmx.planner.placement;

import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class QpAccountingTest
{
    @Test
    void ringOverTwoRacksByHand()
    {
        // C8 on 2 racks × 2 hosts × 2 processes: hosts {0,1} {2,3} {4,5} {6,7}, racks {0..3} {4..7}.
        final Graph.Builder ring = Graph.builder(8);
        for (int v = 0; v < 8; v++)
        {
            ring.addEdge(v, (v + 1) % 8);
        }
        final QpAccounting qps = QpAccounting.of(ring.build(), Placement.contiguous(8, 2, 2, 2));
        assertEquals(2, qps.maxQpsPerProcess());
        assertEquals(2.0, qps.meanQpsPerProcess());
        // Each host: (0,1) on-host; 1-2 and 0-7 leave it, one QP each on this NIC.
        for (int h = 0; h < 4; h++)
        {
            assertEquals(2, qps.qpsOnNic(h), "host " + h);
        }
        assertEquals(2, qps.maxQpsPerNic());
        assertEquals(2.0, qps.meanQpsPerNic());
        assertEquals(4, qps.onHostEdges());
        assertEquals(4, qps.crossHostEdges());
        assertEquals(2, qps.crossRackEdges());
        assertEquals(7, qps.fullMeshQpsPerProcess());
        assertEquals(2 * 6, qps.fullMeshQpsPerNic());
    }

    @Test
    void completeGraphNeedsTheFullMesh()
    {
        final Graph.Builder k4 = Graph.builder(4);
        for (int u = 0; u < 4; u++)
        {
            for (int v = u + 1; v < 4; v++)
            {
                k4.addEdge(u, v);
            }
        }
        final QpAccounting qps = QpAccounting.of(k4.build(), Placement.contiguous(4, 1, 2, 2));
        assertEquals(3, qps.maxQpsPerProcess());
        assertEquals(4, qps.maxQpsPerNic());
        assertEquals(qps.fullMeshQpsPerNic(), qps.maxQpsPerNic());
        assertEquals(0, qps.crossRackEdges());
        assertEquals(2, qps.onHostEdges());
    }

    @Test
    void emptyHostsDoNotLowerTheNicMean()
    {
        // 3 processes on hosts of 2: host 1 holds process 2 only, hosts 2 and 3 are empty.
        final Graph path = Graph.builder(3).addEdge(0, 1).addEdge(1, 2).build();
        final QpAccounting qps = QpAccounting.of(path, Placement.contiguous(3, 2, 2, 2));
        assertEquals(1, qps.qpsOnNic(0));
        assertEquals(1, qps.qpsOnNic(1));
        assertEquals(1.0, qps.meanQpsPerNic());
    }

    @Test
    void rejectsAPlacementForAnotherGraph()
    {
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
            () -> QpAccounting.of(Graph.empty(5), Placement.contiguous(4, 1, 1, 4)));
        assertEquals("the placement places 4 processes but the graph has n = 5; use a placement made for this " +
            "graph", error.getMessage());
    }
}
