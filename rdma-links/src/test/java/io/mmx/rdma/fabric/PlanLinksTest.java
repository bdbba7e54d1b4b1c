package io.mmx.rdma.fabric;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.local.LocalRegionStore;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.shm.ShmRegionStore;
import org.agrona.IoUtil;
import org.agrona.concurrent.SystemNanoClock;
import org.jgrapht.generate.RandomRegularGraphGenerator;
import org.jgrapht.graph.DefaultEdge;
import org.jgrapht.graph.SimpleGraph;
import org.jgrapht.util.SupplierUtil;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static io.mmx.rdma.fabric.FabricTestSupport.OP_TIMEOUT_NS;
import static io.mmx.rdma.fabric.FabricTestSupport.await;
import static io.mmx.rdma.fabric.FabricTestSupport.status;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A plan of n = 64, degree 8, opened by all 64 processes, holds exactly the plan's edges:
 * each process opens degree links plus its loopback, 64 * 8 = 512 endpoint connections, 256 edges.
 * Run on local and on shm regions (the link accounting is the ConnectionManager's, the same for all).
 */
class PlanLinksTest
{
    private static final int N = 64;
    private static final int DEGREE = 8;

    static Graph randomRegular(final int n, final int degree, final long seed)
    {
        final SimpleGraph<Integer, DefaultEdge> g = new SimpleGraph<>(
            SupplierUtil.createIntegerSupplier(), SupplierUtil.createDefaultEdgeSupplier(), false);
        new RandomRegularGraphGenerator<Integer, DefaultEdge>(n, degree, seed).generateGraph(g);
        final Graph.Builder builder = Graph.builder(n);
        for (final DefaultEdge e : g.edgeSet())
        {
            builder.addEdge(g.getEdgeSource(e), g.getEdgeTarget(e));
        }
        return builder.build();
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "shm"})
    void sixtyFourProcessesHoldExactlyThePlansEdges(final String backendName) throws Exception
    {
        final long seed = 20261121L;
        System.out.println("PlanLinksTest seed=" + seed);
        final Graph plan = randomRegular(N, DEGREE, seed);
        assertEquals(DEGREE, plan.regularDegree(), "seed " + seed);
        final PlanDigest digest = PlanDigest.ofGraph(plan);
        final ClusterKey key = ClusterKey.ofPassphrase("plan-links-test-key-0123456789");
        final Path shmDir = Files.createTempDirectory(
            Files.isWritable(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir")),
            "mmx-planlinks-");
        final RegionLinkFactory backend;
        if ("shm".equals(backendName))
        {
            final ShmRegionStore store = new ShmRegionStore(shmDir);
            for (int q = 0; q < N; q++)
            {
                store.createOrOpen(q, 4096, digest, key).close();
            }
            backend = store.linkFactory(digest, key);
        }
        else
        {
            final LocalRegionStore store = new LocalRegionStore();
            for (int q = 0; q < N; q++)
            {
                store.createOrOpen(q, 4096, digest, key);
            }
            backend = store.linkFactory(digest, key);
        }

        final Set<Long> opened = new HashSet<>();
        final AtomicInteger opens = new AtomicInteger();
        final RegionLinkFactory counting = (self, owner) ->
        {
            assertTrue(self == owner || plan.hasEdge(self, owner),
                "process " + self + " opened a link to non-neighbour " + owner);
            assertTrue(opened.add(((long)self << 32) | owner), "link " + self + "->" + owner + " opened twice");
            opens.incrementAndGet();
            return backend.open(self, owner);
        };

        final List<PlanMemoryFabric> fabrics = new ArrayList<>();
        try
        {
            int endpointConnections = 0;
            int loopbacks = 0;
            final Set<Long> edgesHeld = new HashSet<>();
            for (int p = 0; p < N; p++)
            {
                final PlanMemoryFabric fabric =
                    new PlanMemoryFabric(ConnectionManager.open(plan, p, counting), SystemNanoClock.INSTANCE, 64);
                fabrics.add(fabric);
                final ConnectionManager links = fabric.connections();
                assertEquals(plan.degree(p), links.remoteConnectionCount(), "process " + p + " holds its degree");
                assertEquals(plan.degree(p) + 1, links.connectionCount(), "plus the loopback");
                assertArrayEquals(plan.neighbours(p), links.linkedPeers());
                endpointConnections += links.remoteConnectionCount();
                loopbacks += links.connectionCount() - links.remoteConnectionCount();
                for (final int q : links.linkedPeers())
                {
                    edgesHeld.add(((long)Math.min(p, q) << 32) | Math.max(p, q));
                }
            }
            assertEquals(N * DEGREE, endpointConnections, "64 * 8 endpoint connections");
            assertEquals(plan.edgeCount(), endpointConnections / 2, "each edge held at both ends");
            assertEquals(plan.edgeCount(), edgesHeld.size(), "the held edges are exactly the plan's");
            assertEquals(N, loopbacks);
            assertEquals(N * DEGREE + N, opens.get(), "no link opened beyond plan edges and loopbacks");

            // Every link works, and nothing else does: each process adds 1 to slot p of every neighbour.
            for (int p = 0; p < N; p++)
            {
                final MemoryFabric fabric = fabrics.get(p);
                for (final int q : plan.neighbours(p))
                {
                    assertEquals(OpStatus.OK, status(fabric, fabric.fetchAndAdd(q, 8L * p, 1, OP_TIMEOUT_NS)));
                }
                int stranger = (p + 1) % N;
                while (stranger == p || plan.hasEdge(p, stranger))
                {
                    stranger = (stranger + 1) % N;
                }
                assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR,
                    status(fabric, fabric.fetchAndAdd(stranger, 8L * p, 1, OP_TIMEOUT_NS)));
            }
            for (int q = 0; q < N; q++)
            {
                for (int p = 0; p < N; p++)
                {
                    final long expected = plan.hasEdge(p, q) ? 1 : 0;
                    assertEquals(expected, await(fabrics.get(q), fabrics.get(q).read(q, 8L * p, OP_TIMEOUT_NS)).value(),
                        "slot " + p + " of region " + q);
                }
            }
        }
        finally
        {
            fabrics.forEach(PlanMemoryFabric::close);
            IoUtil.delete(shmDir.toFile(), true);
        }
    }
}
