package io.mmx.runtime.sim;

import io.mmx.planner.graph.Graph;
import io.mmx.runtime.core.CoreConfig;
import io.mmx.runtime.core.Status;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Seed sweep: each seed draws a cluster (n, graph), fault rates and a fault schedule; runs a
 * fault phase with the checkers on, then heals (everyone restarted, faults off) and requires
 * commits to resume when more than n/2 acceptors survive, and a leader that says it is blocked
 * otherwise. Replay one seed with
 * {@code mvn -pl mm-runtime -am test -Dtest=SimulationSweepTest -Dsurefire.failIfNoSpecifiedTests=false -Dmmx.sim.seed=SEED}.
 */
class SimulationSweepTest
{
    static final int SMALL_SEEDS = Integer.getInteger("mmx.sim.seeds", 300);
    static final long FAULT_PHASE_MICROS = 40_000;
    static final long LIVENESS_MICROS = 400_000;
    static final int LIVENESS_SLOTS = 20;

    /** Runs one seed; returns null or a failure description. */
    static String runSeed(final long seed, final int forcedN, final boolean verbose, final CoreConfig base)
    {
        final SplittableRandom r = new SplittableRandom(seed);
        final int n = forcedN > 0 ? forcedN : new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 24}[r.nextInt(12)];
        final Graph graph = forcedN > 64 ? TestGraphs.randomRegular(n, 8, r.nextLong()) : graphFor(n, r);
        final CoreConfig config = base != null ? base.graph(graph) : new CoreConfig().graph(graph);
        config.conclude();
        final FaultPlan faults = FaultPlan.fromSeed(seed);
        final Simulation sim = new Simulation(config, faults, seed);
        sim.clients(20 + r.nextInt(200), 1 + r.nextInt(32), Long.MAX_VALUE);
        sim.start(true);
        sim.runFor(FAULT_PHASE_MICROS);
        final String description = "seed " + seed + ": n=" + n + " " + graph + " " + faults;
        if (verbose)
        {
            System.out.println(description + "\n  after faults: chosen through " + sim.checker().chosenThrough() +
                ", " + sim.stats().crashes + " crashes, " + sim.stats().leaderChanges + " leader changes");
        }
        if (sim.checker().violation() != null)
        {
            return description + ": " + sim.checker().violation();
        }
        sim.heal(true);
        final int liveAcceptors = sim.liveAcceptors();
        final String failure = liveAcceptors <= n / 2 ? checkBlocked(sim, liveAcceptors) : checkLive(sim);
        if (verbose)
        {
            printDiagnosis(sim);
        }
        if (sim.checker().violation() != null)
        {
            return description + ": " + sim.checker().violation();
        }
        return failure == null ? null : description + ": " + failure;
    }

    /** Above the line: commits resume within the liveness bound. */
    static String checkLive(final Simulation sim)
    {
        final long target = sim.checker().chosenThrough() + LIVENESS_SLOTS;
        if (sim.runUntil(() -> sim.checker().chosenThrough() >= target, LIVENESS_MICROS))
        {
            return null;
        }
        return "liveness: healed cluster (" + sim.liveAcceptors() + " of " + sim.n() + " acceptors live) stuck at slot " +
            sim.checker().chosenThrough() + ", wanted " + target + "; leader " + sim.leader() + " " +
            (sim.leader() < 0 ? "none" : sim.lastStatus(sim.leader()));
    }

    /**
     * Lost hosts took acceptors with them: at or below the line. Decisions already in flight may
     * still complete (acks sent before the loss), so the status is read only once a whole step
     * passed with nothing decided (within the liveness bound): then a live leader must exist and
     * say that it is blocked.
     */
    static String checkBlocked(final Simulation sim, final int liveAcceptors)
    {
        final long step = LIVENESS_MICROS / 8;
        long settled;
        long waited = 0;
        do
        {
            settled = sim.checker().chosenThrough();
            sim.runFor(step);
            waited += step;
        }
        while (sim.checker().chosenThrough() != settled && waited < LIVENESS_MICROS && sim.checker().violation() == null);
        if (sim.checker().violation() != null)
        {
            return null;
        }
        final int leader = sim.leader();
        if (leader < 0 || !sim.isUp(leader) || sim.lastStatus(leader) == null)
        {
            return "only " + liveAcceptors + " acceptors survive, and no live leader reports anything (leader " +
                leader + ")";
        }
        final Status s = sim.lastStatus(leader);
        if (!s.blocked())
        {
            return "only " + liveAcceptors + " acceptors survive, yet the leader does not report itself blocked: " + s;
        }
        if (sim.checker().chosenThrough() != settled)
        {
            return "only " + liveAcceptors + " acceptors survive, yet slots " + (settled + 1) + ".." +
                sim.checker().chosenThrough() + " were decided long after the loss";
        }
        return null;
    }

    static void printDiagnosis(final Simulation sim)
    {
        final int leader = sim.leader();
        System.out.println("  after heal: chosen through " + sim.checker().chosenThrough() + " at " + sim.nowMicros() +
            "us, leader " + leader + " " + (leader < 0 ? "none" : sim.lastStatus(leader)));
        for (int p = 0; p < Math.min(sim.n(), 16); p++)
        {
            if (sim.regionLost(p))
            {
                System.out.println("  p" + p + " host lost (process and region gone)");
                continue;
            }
            System.out.println("  p" + p + (sim.isUp(p) ? " " + sim.lastStatus(p) + " covers " +
                sim.core(p).coveredAcceptors() : " down") +
                "\n    acceptor " + sim.peekAcceptor(p).toString().replaceAll("(.{300}).*", "$1..."));
        }
    }

    static Graph graphFor(final int n, final SplittableRandom r)
    {
        final int kind = r.nextInt(4);
        if (kind == 0 || n < 4)
        {
            return n < 3 || r.nextBoolean() ? TestGraphs.complete(n) : Graph.empty(n);
        }
        if (kind == 1)
        {
            return TestGraphs.cycle(n);
        }
        if (kind == 2)
        {
            return Graph.empty(n);
        }
        final int degree = 2 + r.nextInt(Math.min(4, n - 2));
        return TestGraphs.randomRegular(n, (n * degree) % 2 == 0 ? degree : degree - 1, r.nextLong());
    }

    static String replay(final long seed)
    {
        return "replay: mvn -pl mm-runtime -am test -Dtest=SimulationSweepTest -Dsurefire.failIfNoSpecifiedTests=false " +
            "-Dmmx.sim.seed=" + seed;
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
            final String failure = runSeed(seed, 1024, false, null);
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
            final String failure = runSeed(only, 0, true, null);
            assertNull(failure, failure + "\n" + replay(only));
            return;
        }
        final long base = Long.getLong("mmx.sim.seedBase", 1_000L);
        for (long seed = base; seed < base + SMALL_SEEDS; seed++)
        {
            final String failure = runSeed(seed, 0, false, null);
            if (failure != null)
            {
                fail(failure + "\n" + replay(seed));
            }
        }
    }

    @Test
    void replayOfASeedWithALostHostPrintsItsDiagnosis()
    {
        // Seed 1012 loses one host of 24 and stays above the line; its replay used to throw.
        assertNull(runSeed(1012, 0, true, null));
    }

    @Test
    void acksInFlightAtTheLossDoNotFailTheBlockedCheck()
    {
        // Seed 603551: acks sent before two hosts were lost decide 32 more slots after the heal.
        assertNull(runSeed(603_551, 0, false, null));
    }

    @Test
    void blockedCheckFailsWithoutALeaderAndWithALeaderThatIsNotBlocked()
    {
        final CoreConfig config = new CoreConfig().graph(TestGraphs.cycle(5)).conclude();
        final Simulation nobody = new Simulation(config, FaultPlan.calm(), 1);
        nobody.crashAtStart(new boolean[] {true, true, true, true, true});
        nobody.start(false);
        final String noLeader = checkBlocked(nobody, 0);
        assertNotNull(noLeader);
        assertTrue(noLeader.contains("no live leader"), noLeader);

        final Simulation everyone = new Simulation(new CoreConfig().graph(TestGraphs.cycle(5)).conclude(),
            FaultPlan.calm(), 1);
        everyone.start(false);
        final String notBlocked = checkBlocked(everyone, 2);
        assertNotNull(notBlocked);
        assertTrue(notBlocked.contains("does not report itself blocked"), notBlocked);
    }
}
