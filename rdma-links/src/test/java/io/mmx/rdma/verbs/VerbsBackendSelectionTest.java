package io.mmx.rdma.verbs;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.RegionResolver;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * Selecting the verbs backend: on a machine without RDMA it refuses at once with the preflight's
 * one sentence; with a connector it opens queue pairs to the plan neighbours and the loopback only.
 */
class VerbsBackendSelectionTest
{
    private static final ClusterKey KEY = ClusterKey.ofPassphrase("verbs selection test key");
    private static final InetSocketAddress NOWHERE = new InetSocketAddress("127.0.0.1", 7471);

    @Test
    void selectingVerbsWithoutRdmaRefusesWithOneClearMessage()
    {
        final VerbsPreflight.Result preflight = VerbsPreflight.check();
        assumeFalse(preflight.ok(), "this machine has libdisni, libibverbs and an RDMA device: nothing to refuse");
        final Graph plan = Graph.fromEdges(2, new int[]{0}, new int[]{1});
        final VerbsUnavailableException ex = assertThrows(VerbsUnavailableException.class, () -> VerbsLinkFactory.open(
            (owner) -> new VerbsHostAddress(NOWHERE, NOWHERE), KEY, PlanDigest.ofGraph(plan), 1000));
        System.out.println("verbs backend on this machine: " + ex.getMessage());
        assertEquals(preflight.message(), ex.getMessage());
        assertEquals(preflight.missing(), ex.missing());
        assertTrue(ex.getMessage().contains(ex.missing().equals("rdma-device") ? "RDMA device" : ex.missing()),
            ex.getMessage());
        assertEquals(1, ex.getMessage().split("\\. ").length, "one sentence");

        final VerbsUnavailableException host = assertThrows(VerbsUnavailableException.class, () ->
            DisniRegionHost.start(NOWHERE, NOWHERE, plan, PlanDigest.ofGraph(plan), KEY,
                (owner) -> RegionResolver.Resolution.failed(OpStatus.REGION_LOST, "none")));
        assertEquals(preflight.message(), host.getMessage(), "the host side refuses the same way");

        final VerbsUnavailableException pool = assertThrows(VerbsUnavailableException.class, () ->
            VerbsQueuePairs.open(1000));
        assertEquals(preflight.message(), pool.getMessage(), "so does a node's pool of queue pairs");
        final VerbsEdgeAcceptor.ServedPlan launch = new VerbsEdgeAcceptor.ServedPlan(PlanDigest.ofGraph(plan), plan);
        final VerbsUnavailableException eras = assertThrows(VerbsUnavailableException.class, () ->
            DisniRegionHost.start(NOWHERE, NOWHERE, new VerbsServedPlans(launch, null), launch, KEY,
                (owner, era, digest) -> RegionResolver.Resolution.failed(OpStatus.REGION_LOST, "none")));
        assertEquals(preflight.message(), eras.getMessage(), "and the host of several eras");
    }

    @Test
    void queuePairsGoToPlanNeighboursAndTheLoopbackOnly()
    {
        final SplittableRandom random = new SplittableRandom(11);
        System.out.println("VerbsBackendSelectionTest seed 11");
        final int n = 32;
        final Graph.Builder builder = Graph.builder(n);
        final boolean[][] added = new boolean[n][n];
        for (int i = 0; i < 80; i++)
        {
            final int u = random.nextInt(n);
            final int v = random.nextInt(n);
            if (u != v && !added[u][v])
            {
                added[u][v] = true;
                added[v][u] = true;
                builder.addEdge(u, v);
            }
        }
        final Graph plan = builder.build();
        for (int self = 0; self < n; self++)
        {
            final List<Integer> connected = new ArrayList<>();
            final VerbsLinkFactory factory = new VerbsLinkFactory((s, owner) ->
            {
                connected.add(owner);
                return VerbsConnector.Connection.failed(OpStatus.REGION_LOST, "not created yet");
            });
            try (ConnectionManager links = ConnectionManager.open(plan, self, factory))
            {
                assertEquals(plan.degree(self) + 1, links.connectionCount());
                assertEquals(plan.degree(self) + 1, connected.size(), "one queue pair per link");
                assertEquals(self, connected.get(0), "the loopback queue pair to the own region");
                for (final int owner : connected.subList(1, connected.size()))
                {
                    assertTrue(plan.hasEdge(self, owner), self + " connected to non-neighbour " + owner);
                }
                assertEquals(OpStatus.REGION_LOST, links.link(self).state());
            }
        }
    }
}
