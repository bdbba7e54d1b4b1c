package io.mmx.runtime.sim;

import io.mmx.runtime.core.AcceptorRecord;
import io.mmx.runtime.core.CoreConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Bounded memory on an endless run, catch-up of lagging learners, and restarts (leader included). */
class ReclamationAndRecoveryTest
{
    static CoreConfig config()
    {
        return new CoreConfig().graph(TestGraphs.cycle(7)).pipelineSlots(16).maxSlotsPerAccept(8).recordMaxEntries(32)
            .decidedCapacity(64).learnerCapacity(256).conclude();
    }

    @Test
    void regionMemoryStaysBoundedOnAnEndlessRun()
    {
        final CoreConfig config = config();
        final Simulation sim = new Simulation(config, FaultPlan.calm(), 5);
        sim.clients(20, 32, Long.MAX_VALUE);
        sim.start(false);
        assertTrue(sim.runUntil(() -> sim.checker().chosenThrough() >= 2_000, 10_000_000));
        final long pagesEarly = sim.regionPagesAllocated();
        assertTrue(sim.runUntil(() -> sim.checker().chosenThrough() >= 40_000, 100_000_000));
        final long pagesLate = sim.regionPagesAllocated();
        System.out.println("pages after 2k slots " + pagesEarly + ", after 40k slots " + pagesLate + " (region " +
            config.layout().regionWords() + " words)");
        assertNull(sim.checker().violation());
        assertEquals(pagesEarly, pagesLate, "region memory must not grow with the log");
        // Every record is within its window; the acceptors the leader uses (thrifty phase 2 asks a
        // quorum plus a margin) have reclaimed everything below the recent decided prefix.
        int recent = 0;
        for (int q = 0; q < sim.n(); q++)
        {
            final AcceptorRecord r = sim.peekAcceptor(q);
            assertTrue(r.count() <= config.recordMaxEntries());
            recent += r.floor() > 39_000 - config.recordMaxEntries() ? 1 : 0;
        }
        assertTrue(recent >= config.quorumSize(), recent + " acceptors reclaimed recently");
    }

    @Test
    void crashedLearnerCatchesUpFromCommitsAndRegions()
    {
        // Decided logs of 256 entries: a reader may use the entries that lie more than a log run
        // (32 slots here) inside the ring, 224 slots back from its end, and p4 misses about 40.
        // With the shared config's 64 entries only 32 would be usable, and a reader that finds
        // the ring moved past the slot it needs skips to a snapshot.
        final CoreConfig config = new CoreConfig().graph(TestGraphs.cycle(7)).pipelineSlots(16).maxSlotsPerAccept(8)
            .recordMaxEntries(32).decidedCapacity(256).learnerCapacity(256).conclude();
        final Simulation sim = new Simulation(config, FaultPlan.calm(), 6);
        sim.clients(50, 8, Long.MAX_VALUE);
        sim.start(false);
        assertTrue(sim.runUntil(() -> sim.checker().chosenThrough() >= 100, 1_000_000));
        sim.crash(4);
        final long at = sim.checker().chosenThrough();
        assertTrue(sim.runUntil(() -> sim.checker().chosenThrough() >= at + 40, 1_000_000));
        sim.restart(4);
        final boolean caughtUp = sim.runUntil(() -> sim.core(4).appliedThrough() >= at + 60, 1_000_000);
        System.out.println("p4 applied " + sim.core(4).appliedThrough() + ", cluster chosen " +
            sim.checker().chosenThrough() + ", skipped " + sim.stats().skippedSlots);
        assertNull(sim.checker().violation());
        assertTrue(caughtUp);
        assertEquals(0, sim.stats().skippedSlots, "the gap fits in the decided logs: nothing skipped");
    }

    @Test
    void leaderCrashAndRestartKeepsTheLogSafeAndLive()
    {
        final Simulation sim = new Simulation(config(), FaultPlan.calm(), 7);
        sim.clients(50, 8, Long.MAX_VALUE);
        sim.start(false);
        for (int round = 0; round < 5; round++)
        {
            final long at = sim.checker().chosenThrough();
            assertTrue(sim.runUntil(() -> sim.checker().chosenThrough() >= at + 50, 2_000_000), "round " + round);
            final int leader = sim.leader();
            sim.crash(leader);
            final long after = sim.checker().chosenThrough();
            assertTrue(sim.runUntil(() -> sim.checker().chosenThrough() >= after + 50, 2_000_000),
                "a new leader must take over after " + leader + " crashed");
            sim.restart(leader);
        }
        assertNull(sim.checker().violation());
    }

    @Test
    void aLostHostTakesItsRegionButTheRestCommits()
    {
        final Simulation sim = new Simulation(config(), FaultPlan.calm(), 8);
        sim.clients(50, 8, Long.MAX_VALUE);
        sim.start(false);
        assertTrue(sim.runUntil(() -> sim.checker().chosenThrough() >= 50, 1_000_000));
        sim.loseHost(3);
        sim.loseHost(5);
        sim.restart(3); // a process whose host is gone cannot come back
        assertFalse(sim.isUp(3));
        assertEquals(5, sim.liveAcceptors(), "acceptors 3 and 5 died with their regions");
        final long at = sim.checker().chosenThrough();
        assertTrue(sim.runUntil(() -> sim.checker().chosenThrough() >= at + 100, 2_000_000));
        assertTrue(sim.stats().memoryTimeouts > 0, "operations on lost regions time out");
        assertNull(sim.checker().violation());
    }
}
