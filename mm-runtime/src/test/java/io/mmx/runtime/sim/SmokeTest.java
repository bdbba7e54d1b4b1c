package io.mmx.runtime.sim;

import io.mmx.runtime.core.CoreConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class SmokeTest
{
    @Test
    void fiveProcessesCommitWithoutFaults()
    {
        final CoreConfig config = new CoreConfig().graph(TestGraphs.complete(5)).conclude();
        final Simulation sim = new Simulation(config, FaultPlan.calm(), 1);
        sim.clients(50, 16, 2_000);
        sim.start(false);
        final boolean done = sim.runUntil(() -> sim.checker().chosenThrough() >= 199, 5_000_000);
        System.out.println("chosen " + sim.checker().chosenThrough() + " at " + sim.nowMicros() + "us " +
            sim.stats().perSlot(sim.checker().chosenCount()) + " status " + sim.lastStatus(0));
        assertNull(sim.checker().violation());
        assertTrue(done);
    }
}
