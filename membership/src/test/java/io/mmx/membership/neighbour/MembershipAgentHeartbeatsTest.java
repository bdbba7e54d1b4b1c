package io.mmx.membership.neighbour;

import io.mmx.aeron.transport.AeronTransport;
import io.mmx.aeron.transport.ProcessDirectory;
import io.mmx.aeron.transport.TransportContext;
import io.mmx.membership.MembershipConfig;
import io.mmx.membership.MembershipListener;
import io.mmx.membership.node.MembershipAgent;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.local.LocalRegionStore;
import io.mmx.rdma.region.ClusterKey;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent wiring: one {@link MembershipAgent} hosts a ring of 8 over IPC, each process with its own
 * {@link FabricHeartbeats} over local regions, except process 3, which has none and so never bumps
 * (its region stays at 0). Simulated time, one tick per turn; the seed is fixed (11).
 */
class MembershipAgentHeartbeatsTest
{
    private static final int N = 8;
    private static final int SILENT = 3;
    private static final long TICK_NS = 1_000_000;

    @TempDir
    Path tempDir;

    @Test
    void agentPollsEachProcessHeartbeatsAndOnlyTheSilentOnesNeighboursSuspectIt()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        final int[] us = new int[N];
        final int[] vs = new int[N];
        final int[] hosted = new int[N];
        for (int p = 0; p < N; p++)
        {
            us[p] = p;
            vs[p] = (p + 1) % N;
            hosted[p] = p;
        }
        final Graph plan = Graph.fromEdges(N, us, vs);
        final PlanDigest digest = PlanDigest.ofGraph(plan);
        final ClusterKey regionKey = ClusterKey.ofPassphrase("agent-heartbeat-key-0123456789abcdef");
        final LocalRegionStore store = new LocalRegionStore();
        final int[][] neighbours = new int[N][];
        final FabricHeartbeats[] heartbeats = new FabricHeartbeats[N];
        final MemoryFabric[] fabrics = new MemoryFabric[N];
        for (int p = 0; p < N; p++)
        {
            store.createOrOpen(p, 4096, digest, regionKey);
            neighbours[p] = plan.neighbours(p);
        }
        for (int p = 0; p < N; p++)
        {
            fabrics[p] = new PlanMemoryFabric(ConnectionManager.open(plan, p, store.linkFactory(digest, regionKey)), clock);
            heartbeats[p] = p == SILENT ? null : new FabricHeartbeats(fabrics[p], neighbours[p], 0, 5 * TICK_NS);
        }
        final MembershipConfig config = new MembershipConfig();
        System.out.println("MembershipAgentHeartbeatsTest seed=11");
        try (AeronTransport transport = AeronTransport.launch(new TransportContext()
            .frameKey(io.mmx.aeron.frame.FrameKey.ofHex(5, "000102030405060708090a0b0c0d0e0f"))
            .directory(ProcessDirectory.parse("0-7@127.0.0.1:1")).medium(TransportContext.Medium.IPC)
            .aeronDirectoryName(tempDir.resolve("aeron").toString())))
        {
            final MembershipAgent agent = new MembershipAgent(transport, config, hosted, PlanDigest.of(new byte[32]), neighbours, 11,
                clock, TICK_NS, MembershipListener.NO_OP, null, heartbeats, HostLiveness.NONE);
            final int turns = 3 * config.neighbourStaleTicks();
            for (int turn = 0; turn < turns; turn++)
            {
                clock.advance(TICK_NS);
                agent.doWork();
            }
            for (int p = 0; p < N; p++)
            {
                for (final int q : neighbours[p])
                {
                    assertEquals(q == SILENT && p != SILENT, agent.node(p).isNeighbourSuspected(q),
                        "process " + p + " on neighbour " + q);
                }
                if (p != SILENT)
                {
                    assertTrue(heartbeats[p].bumps() >= turns - 2, "process " + p + " bumped " + heartbeats[p].bumps());
                    assertEquals(0, fabrics[p].counters().errors(), fabrics[p].counters().toString());
                }
            }
            assertFalse(agent.node(SILENT).isNeighbourSuspected(2), "an unmonitored process suspects nobody");
        }
        finally
        {
            for (final MemoryFabric fabric : fabrics)
            {
                fabric.close();
            }
        }
    }
}
