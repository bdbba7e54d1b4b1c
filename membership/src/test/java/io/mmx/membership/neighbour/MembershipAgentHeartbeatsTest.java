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
 * The agent wiring: one {@link MembershipAgent} hosts processes 0-3 of a ring of 8 over IPC; processes
 * 4-7 belong to a second host that does not run, except that the test bumps process 4's heartbeat
 * word itself. Each process has its own {@link FabricHeartbeats} over local regions. Process 3 reads
 * its remote neighbour 4, which beats, and process 0 its remote neighbour 7, which does not; the
 * neighbours on the agent's own host are never read (they stop only with it). Simulated time, one
 * tick per turn; the seed is fixed (11).
 */
class MembershipAgentHeartbeatsTest
{
    private static final int N = 8;
    private static final int[] HOSTED = {0, 1, 2, 3};
    private static final int BEATING_REMOTE = 4;
    private static final long TICK_NS = 1_000_000;

    @TempDir
    Path tempDir;

    @Test
    void agentPollsEachProcessHeartbeatsAndOnlyASilentRemoteNeighbourIsSuspected()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        final int[] us = new int[N];
        final int[] vs = new int[N];
        for (int p = 0; p < N; p++)
        {
            us[p] = p;
            vs[p] = (p + 1) % N;
        }
        final Graph plan = Graph.fromEdges(N, us, vs);
        final PlanDigest digest = PlanDigest.ofGraph(plan);
        final ClusterKey regionKey = ClusterKey.ofPassphrase("agent-heartbeat-key-0123456789abcdef");
        final LocalRegionStore store = new LocalRegionStore();
        final int[][] neighbours = new int[N][];
        final MemoryFabric[] fabrics = new MemoryFabric[N];
        for (int p = 0; p < N; p++)
        {
            store.createOrOpen(p, 4096, digest, regionKey);
            neighbours[p] = plan.neighbours(p);
        }
        for (int p = 0; p < N; p++)
        {
            fabrics[p] = new PlanMemoryFabric(ConnectionManager.open(plan, p, store.linkFactory(digest, regionKey)), clock);
        }
        final FabricHeartbeats[] heartbeats = new FabricHeartbeats[HOSTED.length];
        final int[][] hostedNeighbours = new int[HOSTED.length][];
        for (int i = 0; i < HOSTED.length; i++)
        {
            heartbeats[i] = new FabricHeartbeats(fabrics[HOSTED[i]], neighbours[HOSTED[i]], 0, 5 * TICK_NS);
            hostedNeighbours[i] = neighbours[HOSTED[i]];
        }
        final FabricHeartbeats remote = new FabricHeartbeats(fabrics[BEATING_REMOTE], neighbours[BEATING_REMOTE], 0,
            5 * TICK_NS);
        final MembershipConfig config = new MembershipConfig();
        System.out.println("MembershipAgentHeartbeatsTest seed=11");
        try (AeronTransport transport = AeronTransport.launch(new TransportContext()
            .frameKey(io.mmx.aeron.frame.FrameKey.ofHex(5, "000102030405060708090a0b0c0d0e0f"))
            .directory(ProcessDirectory.parse("0-3@127.0.0.1:1;4-7@127.0.0.1:2")).localEndpoint("127.0.0.1:1")
            .medium(TransportContext.Medium.IPC)
            .aeronDirectoryName(tempDir.resolve("aeron").toString())))
        {
            final MembershipAgent agent = new MembershipAgent(transport, config, HOSTED, PlanDigest.of(new byte[32]),
                hostedNeighbours, 11, clock, TICK_NS, MembershipListener.NO_OP, null, heartbeats, HostLiveness.NONE);
            final int turns = 3 * config.neighbourStaleTicks();
            for (int turn = 0; turn < turns; turn++)
            {
                clock.advance(TICK_NS);
                remote.writeHeartbeat(turn + 1);
                remote.poll();
                agent.doWork();
            }
            for (int i = 0; i < HOSTED.length; i++)
            {
                final int p = HOSTED[i];
                for (final int q : neighbours[p])
                {
                    final boolean silentRemote = q >= 4 && q != BEATING_REMOTE;
                    assertEquals(silentRemote, agent.node(p).isNeighbourSuspected(q), "process " + p + " on neighbour " + q);
                }
                // Replicas mirror suspicions only when this count moved: one change per suspicion, none otherwise.
                final long silent = java.util.Arrays.stream(neighbours[p]).filter(q -> q >= 4 && q != BEATING_REMOTE).count();
                assertEquals(silent, agent.node(p).neighbourSuspicionChanges(), "process " + p + "'s suspicion changes");
                assertTrue(heartbeats[i].bumps() >= turns - 2, "process " + p + " bumped " + heartbeats[i].bumps());
                assertEquals(0, fabrics[p].counters().errors(), fabrics[p].counters().toString());
            }
            // Only the remote neighbours were read: process 0 reads 7, process 3 reads 4, each once an interval.
            final long intervals = turns / config.heartbeatIntervalTicks();
            assertEquals(0, heartbeats[1].completedReads() + heartbeats[2].completedReads(),
                "processes 1 and 2 have only neighbours on their own host");
            assertTrue(heartbeats[0].completedReads() >= intervals - 1 && heartbeats[0].completedReads() <= intervals + 1,
                "process 0 read its one remote neighbour once an interval: " + heartbeats[0].completedReads());
            assertTrue(heartbeats[3].completedReads() >= intervals - 1 && heartbeats[3].completedReads() <= intervals + 1,
                "process 3 read its one remote neighbour once an interval: " + heartbeats[3].completedReads());
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
