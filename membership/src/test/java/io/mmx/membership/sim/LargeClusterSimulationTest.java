package io.mmx.membership.sim;

import io.mmx.membership.MembershipConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LargeClusterSimulationTest
{
    /** Ticks after the crash within which every live process must follow one live leader. */
    static final long AGREEMENT_BOUND_TICKS = 3_000;

    @Test
    void n4096AgreesOnOneLeaderAfterSixtyPercentCrash()
    {
        final long seed = Long.getLong("mmx.seed", System.nanoTime());
        System.out.println("n=4096 seed=" + seed + " (replay with -Dmmx.seed=" + seed + ")");
        final int n = 4096;
        final long startNs = System.nanoTime();
        final MembershipSimulation sim = new MembershipSimulation(new MembershipSimulation.Options()
            .processes(n).seed(seed).lossRate(0.01).delayTicks(1, 2));
        final long initial = sim.runUntilAgreement(3_000);
        assertTrue(initial >= 0, "initial agreement, seed=" + seed);
        final long sentBefore = sim.messagesSent();
        final long steadyTicks = 200;
        sim.run(steadyTicks);
        final double perProcessPerTick = (sim.messagesSent() - sentBefore) / (double)(n * steadyTicks);

        final int crashedCount = sim.crashRandom(0.6, sim.agreedLeader());
        final long crashTick = sim.nowTick();
        final long sentAtCrash = sim.messagesSent();
        final long ticks = sim.runUntilAgreement(AGREEMENT_BOUND_TICKS);
        final double afterCrashPerLivePerTick =
            (sim.messagesSent() - sentAtCrash) / (double)(sim.liveCount() * Math.max(1, sim.nowTick() - crashTick));
        System.out.printf(
            "n=%d initial agreement %d ticks; steady %.3f msgs/process/tick; crashed %d (leader included); " +
            "agreement on leader %d after %d ticks (lowest live %d); %.3f msgs/live process/tick meanwhile; " +
            "wall %.1f s%n",
            n, initial, perProcessPerTick, crashedCount, sim.agreedLeader(), ticks, sim.lowestLive(),
            afterCrashPerLivePerTick, (System.nanoTime() - startNs) / 1e9);
        assertTrue(ticks >= 0, "no agreement within " + AGREEMENT_BOUND_TICKS + " ticks, seed=" + seed);
        assertEquals(0, sim.malformedMessages());
        assertEquals(0, sim.messagesOverflowed());

        // Memory heartbeats: every live neighbour of a crashed process suspects it within the stale bound
        // (stale ticks of its own reads, plus one read interval and the message delay). Agreement on the
        // leader may come sooner than that (18 ticks after the crash in one run), so wait the bound out.
        final MembershipConfig defaults = new MembershipConfig();
        final long staleBound = defaults.neighbourStaleTicks() + 2L * defaults.heartbeatIntervalTicks() + 2;
        if (sim.nowTick() < crashTick + staleBound)
        {
            sim.run(crashTick + staleBound - sim.nowTick());
        }
        for (int p = 0; p < n; p++)
        {
            if (sim.isCrashed(p))
            {
                for (final int q : sim.neighbours(p))
                {
                    if (!sim.isCrashed(q))
                    {
                        assertTrue(sim.node(q).isNeighbourSuspected(p), q + " must suspect neighbour " + p);
                    }
                }
            }
        }
        assertTrue(perProcessPerTick < 0.25, "O(1) messages per process per tick, got " + perProcessPerTick);
    }
}
