package io.mmx.runtime.sim;

import io.mmx.runtime.core.CoreConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Seed sweep ({@link SeedSweep}): faults with every checker on, then heal; commits resume above
 * the line, and a live leader says it is blocked at or below it. Replay one seed with
 * {@code mvn -pl mm-runtime -am test -Dtest=SimulationSweepTest -Dsurefire.failIfNoSpecifiedTests=false -Dmmx.sim.seed=SEED},
 * or {@code bin/mmx sim --seeds SEED-SEED}; long sweeps belong to {@code bin/mmx sim}.
 */
class SimulationSweepTest
{
    static final int SMALL_SEEDS = Integer.getInteger("mmx.sim.seeds", 300);

    /** Runs one seed; returns null or a failure description. */
    static String runSeed(final long seed, final int forcedN, final boolean verbose)
    {
        final SeedSweep.Options options = new SeedSweep.Options();
        options.n = forcedN;
        options.verbose = verbose;
        return SeedSweep.run(seed, options).description();
    }

    static String replay(final long seed)
    {
        return "replay: mvn -pl mm-runtime -am test -Dtest=SimulationSweepTest -Dsurefire.failIfNoSpecifiedTests=false " +
            "-Dmmx.sim.seed=" + seed + "   or: bin/mmx sim --seeds " + seed + "-" + seed;
    }

    @Test
    void largeClustersSurviveAFewSeeds()
    {
        if (Long.getLong("mmx.sim.seed") != null)
        {
            return;
        }
        final int seeds = Integer.getInteger("mmx.sim.largeSeeds", 3);
        final long first = Long.getLong("mmx.sim.largeSeed", 9_000L);
        for (long seed = first; seed < first + seeds; seed++)
        {
            final long t0 = System.nanoTime();
            final String failure = runSeed(seed, 1024, false);
            System.out.printf("n=1024 seed %d: %s in %.1f s%n", seed, failure == null ? "ok" : "FAILED",
                (System.nanoTime() - t0) / 1e9);
            if (failure != null)
            {
                fail(failure + "\nreplay: mvn -pl mm-runtime -am test -Dtest=SimulationSweepTest#largeClustersSurviveAFewSeeds " +
                    "-Dsurefire.failIfNoSpecifiedTests=false -Dmmx.sim.largeSeed=" + seed);
            }
        }
    }

    @Test
    void smallClustersSurviveEverySeed()
    {
        final Long only = Long.getLong("mmx.sim.seed");
        if (only != null)
        {
            final String failure = runSeed(only, 0, true);
            assertNull(failure, failure + "\n" + replay(only));
            return;
        }
        final long base = Long.getLong("mmx.sim.seedBase", 1_000L);
        System.out.println("sweep: seeds " + base + ".." + (base + SMALL_SEEDS - 1));
        for (long seed = base; seed < base + SMALL_SEEDS; seed++)
        {
            final String failure = runSeed(seed, 0, false);
            if (failure != null)
            {
                fail(failure + "\n" + replay(seed));
            }
        }
    }

    @Test
    void theWedgesOfTheLongSweepCommit()
    {
        // One seed per pattern that stuck above the line in an earlier 100,000-seed sweep (all 20
        // are listed in docs/protocol.md; bin/mmx sim replays them): slots reclaimed while only an
        // unreachable process had logged them (100133), acceptor windows full of later slots
        // (107206), a leader re-running phase 1 at every tick (139808), only an amnesiac process up,
        // at the line (178832); and 887, where a skip moved DECIDED_THROUGH past a torn entry.
        for (final long seed : new long[] {100133, 107206, 139808, 178832, 887})
        {
            final String failure = runSeed(seed, 0, false);
            assertNull(failure, failure + "\n" + replay(seed));
        }
    }

    @Test
    void replayOfASeedWithALostHostPrintsItsDiagnosis()
    {
        // Seed 1012 loses one host of 24 and stays above the line; its replay used to throw.
        final SeedSweep.Options options = new SeedSweep.Options();
        options.verbose = true;
        SeedSweep.run(1012, options);
    }

    @Test
    void acksInFlightAtTheLossDoNotFailTheBlockedCheck()
    {
        // Seed 603551: acks sent before two hosts were lost decided 32 more slots after the heal.
        assertNull(runSeed(603_551, 0, false));
    }

    @Test
    void blockedCheckFailsWithoutALeaderAndWithALeaderThatIsNotBlocked()
    {
        final CoreConfig config = new CoreConfig().graph(TestGraphs.cycle(5)).conclude();
        final Simulation nobody = new Simulation(config, FaultPlan.calm(), 1);
        nobody.crashAtStart(new boolean[] {true, true, true, true, true});
        nobody.start(false);
        final String noLeader = SeedSweep.checkBlocked(nobody, 0);
        assertNotNull(noLeader);
        assertTrue(noLeader.contains("no live leader"), noLeader);

        final Simulation everyone = new Simulation(new CoreConfig().graph(TestGraphs.cycle(5)).conclude(),
            FaultPlan.calm(), 1);
        everyone.start(false);
        final String notBlocked = SeedSweep.checkBlocked(everyone, 2);
        assertNotNull(notBlocked);
        assertTrue(notBlocked.contains("does not report itself blocked"), notBlocked);
    }
}
