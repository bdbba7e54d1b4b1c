package io.mmx.runtime.sim;

import io.mmx.runtime.core.CoreConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The core's operator counters in the simulator (seed 3, five processes): proposals count what
 * the leader queued, at most what the clients sent; retransmissions stay at none on a calm network
 * with fast memory and come once messages are lost.
 */
class CoreCountersTest
{
    private static final long SEED = 3;

    @Test
    void proposalsAndRetransmissionsCountWhatTheLeaderDid()
    {
        System.out.println("CoreCountersTest seed " + SEED);
        final Simulation calm = run(FaultPlan.calm());
        long proposals = 0;
        long retransmissions = 0;
        for (int p = 0; p < calm.n(); p++)
        {
            proposals += calm.core(p).proposals();
            retransmissions += calm.core(p).retransmissions();
        }
        assertTrue(proposals > 0 && proposals <= 2_000, "proposals " + proposals + " of 2,000 sent");
        assertEquals(proposals, calm.core(calm.leader()).proposals(), "only the leader queues proposals");
        assertEquals(0, retransmissions, "nothing to send again on a calm network");

        final FaultPlan lossy = FaultPlan.calm();
        lossy.messageLoss = 0.2;
        final Simulation lost = run(lossy);
        long resent = 0;
        for (int p = 0; p < lost.n(); p++)
        {
            resent += lost.core(p).retransmissions();
        }
        assertTrue(resent > 0, "a fifth of the messages lost, and nothing sent again?");
        System.out.println("CoreCountersTest: calm " + proposals + " proposals, 0 retransmissions; 20% loss " + resent +
            " retransmissions");
    }

    private static Simulation run(final FaultPlan faults)
    {
        final CoreConfig config = new CoreConfig().graph(TestGraphs.complete(5)).conclude();
        final Simulation sim = new Simulation(config, faults, SEED);
        sim.clients(50, 16, 2_000);
        sim.start(false);
        assertTrue(sim.runUntil(() -> sim.checker().chosenThrough() >= 199, 20_000_000), "200 slots chosen");
        assertNull(sim.checker().violation());
        return sim;
    }
}
