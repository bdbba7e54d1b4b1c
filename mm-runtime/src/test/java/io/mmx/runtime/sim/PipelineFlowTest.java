package io.mmx.runtime.sim;

import io.mmx.planner.graph.Graph;
import io.mmx.runtime.core.CoreConfig;
import io.mmx.runtime.core.Message;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A leader whose pipeline is longer than the acceptor windows' room past the durable floor must
 * hold its next group until the windows have room, not send it to be refused: a refused group
 * waited for a retransmission broadcast to every acceptor, and learners that saw no progress
 * meanwhile asked for catch-ups. A calm run (fixed latencies, no faults, seed 11) does neither.
 */
class PipelineFlowTest
{
    @Test
    void aCalmRunWithAPipelineBeyondTheWindowsNeitherRetransmitsNorCatchesUp()
    {
        final int n = 64;
        final Graph graph = TestGraphs.randomRegular(n, 8, 42);
        // Two groups of 64 in flight beyond the decided prefix, windows of 288 slots: without the
        // hold, the leader ran ahead of the durable floor it relays and its groups were refused.
        final CoreConfig config = new CoreConfig().graph(graph).maxBatch(4).pipelineSlots(128).maxSlotsPerAccept(64)
            .recordMaxEntries(288).catchupBatch(64).learnerCapacity(1024).decidedCapacity(512).conclude();
        final Simulation sim = new Simulation(config, FaultPlan.calm(), 11);
        sim.clients(40, 256, Long.MAX_VALUE);
        sim.start(false);
        final boolean done = sim.runUntil(() -> sim.checker().chosenThrough() >= 2047, 60_000_000L);
        assertNull(sim.checker().violation());
        assertTrue(done, "stuck at " + sim.checker().chosenThrough());
        long retransmissions = 0;
        for (int p = 0; p < n; p++)
        {
            retransmissions += sim.core(p).retransmissions();
        }
        assertEquals(0, retransmissions, "Accept groups broadcast again");
        assertEquals(0, sim.stats().messagesSent[Message.Type.CATCHUP_REQUEST.ordinal()], "catch-up requests");
    }
}
