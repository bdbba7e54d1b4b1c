package io.mmx.runtime.sim;

import io.mmx.planner.generate.RandomRegularGenerator;
import io.mmx.planner.graph.Graph;
import io.mmx.runtime.core.CoreConfig;
import io.mmx.runtime.core.Flaw;
import io.mmx.runtime.core.Status;

import java.util.SplittableRandom;

/**
 * One seed of the simulator sweep: the seed draws a cluster (n, graph), fault rates and a fault
 * schedule; a fault phase runs with every checker on; then the cluster heals (every process whose
 * host survives restarts, faults stop) and commits must resume when more than n/2 acceptors
 * survive, or else a live leader must say that it is blocked. Used by the test suite and by
 * {@code mmx sim}.
 */
public final class SeedSweep
{
    /** Simulated time of the phase with faults, before the cluster heals. */
    public static final long FAULT_PHASE_MICROS = 40_000;
    /** Liveness bound: simulated time within which a healed cluster above the line commits {@link #LIVENESS_SLOTS} slots. */
    public static final long LIVENESS_MICROS = 400_000;
    /** Slots a healed cluster above the line must commit by default. */
    public static final int LIVENESS_SLOTS = 20;
    private static final int[] SIZES = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 24};

    /** What one seed showed. */
    public enum Verdict
    {
        /** Safe, and live once healed. */
        OK,
        /** A safety checker found a violation. */
        SAFETY,
        /** A healed cluster above the line did not commit in time, and no live leader said it was blocked. */
        LIVENESS
    }

    /** The verdict of one seed, with a description of the run when it failed. */
    public record Outcome(long seed, Verdict verdict, String description)
    {
    }

    /** How seeds are drawn: cluster sizes, which faults, which flaw. */
    public static final class Options
    {
        /** Exactly this n (0: drawn from the seed). */
        public int n;
        /** When n = 0 and minN > 0: n drawn in [minN, maxN]. */
        public int minN;
        /** Upper end of the drawn n. */
        public int maxN;
        /** Fault kinds kept ({@link FaultPlan#KINDS}); null = all. */
        public java.util.Set<String> faults;
        /** The deliberate bug to run (none: the protocol). */
        public Flaw flaw = Flaw.NONE;
        /** Print each run's description, not only failures. */
        public boolean verbose;
        /** Slots a healed cluster above the line must commit within {@link #LIVENESS_MICROS}. */
        public int livenessSlots = LIVENESS_SLOTS;
    }

    private SeedSweep()
    {
    }

    /** Runs seed {@code seed}: faults, then healing, with the safety checker always on. */
    public static Outcome run(final long seed, final Options options)
    {
        final SplittableRandom r = new SplittableRandom(seed);
        final int drawn = SIZES[r.nextInt(SIZES.length)];
        final int n = options.n > 0 ? options.n :
            options.minN > 0 ? options.minN + new SplittableRandom(~seed).nextInt(options.maxN - options.minN + 1) :
            drawn;
        final Graph graph = n > 64 ? new RandomRegularGenerator().generate(n, 8, r.nextLong()) : graphFor(n, r);
        final CoreConfig config = new CoreConfig().graph(graph).flaw(options.flaw).conclude();
        final FaultPlan faults = FaultPlan.fromSeed(seed);
        if (options.faults != null)
        {
            faults.only(options.faults);
        }
        final String description = "seed " + seed + ": n=" + n + " " + graph + " " + faults +
            (options.flaw == Flaw.NONE ? "" : " flaw " + options.flaw.cliName());
        try
        {
            return run(seed, options, n, r, new Simulation(config, faults, seed), description);
        }
        catch (final AssertionError e)
        {
            // The core asserts what must never happen (with -ea): a broken variant may get there
            // before a checker sees a reply; it is a failure of the seed, not of the sweep.
            return new Outcome(seed, Verdict.SAFETY, description + ": core assertion failed: " + e.getMessage());
        }
    }

    private static Outcome run(final long seed, final Options options, final int n, final SplittableRandom r,
        final Simulation sim, final String description)
    {
        sim.clients(20 + r.nextInt(200), 1 + r.nextInt(32), Long.MAX_VALUE);
        sim.start(true);
        sim.runFor(FAULT_PHASE_MICROS);
        if (options.verbose)
        {
            System.out.println(description + "\n  after faults: chosen through " + sim.checker().chosenThrough() +
                ", " + sim.stats().crashes + " crashes, " + sim.stats().leaderChanges + " leader changes");
        }
        if (sim.checker().violation() != null)
        {
            return new Outcome(seed, Verdict.SAFETY, description + ": " + sim.checker().violation());
        }
        // Liveness under faults: crashed processes stay down, more crash while |N[S]| > n/2 still
        // holds, and neighbours must run the crashed acceptors.
        sim.heal(false);
        String failure = null;
        if (aboveTheLine(sim))
        {
            crashTowardsTheLine(sim, new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 7));
            sim.heal(false);
            failure = checkLive(sim, options.livenessSlots);
        }
        if (failure == null && sim.checker().violation() == null)
        {
            sim.heal(true);
            failure = aboveTheLine(sim) ? checkLive(sim, options.livenessSlots) : checkBlocked(sim, sim.liveAcceptors());
        }
        if (options.verbose)
        {
            printDiagnosis(sim);
        }
        if (sim.checker().violation() != null)
        {
            return new Outcome(seed, Verdict.SAFETY, description + ": " + sim.checker().violation());
        }
        return failure == null ? new Outcome(seed, Verdict.OK, null) :
            new Outcome(seed, Verdict.LIVENESS, description + ": " + failure);
    }

    /**
     * Above the tolerance line: more than n/2 live acceptors that are not amnesiac, and a live
     * process that may lead. A process whose region came back empty lost its proposer rounds, so
     * any ballot it picked might be one it used before (the amnesia rule forbids it to lead); with
     * no other process up, no ballot can be both fresh and known to be fresh, and Paxos decides
     * nothing without a leader: the cluster is at the line however many acceptors the amnesiac
     * process executes (seed 178832: the one process up ran 5 of 6 acceptors).
     */
    static boolean aboveTheLine(final Simulation sim)
    {
        return sim.liveAcceptors() > sim.n() / 2 && sim.anyMayLead();
    }

    /**
     * Crashes live processes (regions stay) in a random order, each with probability 3/4, as long
     * as the live acceptors |N[S]| stay above n/2: the live set S shrinks towards the smallest
     * that the tolerance condition still allows, so live processes must run crashed neighbours'
     * acceptors for a quorum.
     */
    static void crashTowardsTheLine(final Simulation sim, final SplittableRandom r)
    {
        final int n = sim.n();
        final int[] order = new int[n];
        for (int i = 0; i < n; i++)
        {
            order[i] = i;
        }
        for (int i = n - 1; i > 0; i--)
        {
            final int j = r.nextInt(i + 1);
            final int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (final int p : order)
        {
            if (sim.isUp(p) && r.nextInt(4) != 0 && sim.liveAcceptorsWithout(p) > n / 2 && !lastThatMayLead(sim, p))
            {
                sim.crash(p);
            }
        }
    }

    /** Whether {@code p} is the only live process that may lead (the others lost their regions' state). */
    private static boolean lastThatMayLead(final Simulation sim, final int p)
    {
        for (int q = 0; q < sim.n(); q++)
        {
            if (q != p && sim.mayLead(q))
            {
                return false;
            }
        }
        return sim.mayLead(p);
    }

    /** Above the line: commits resume within the liveness bound. */
    static String checkLive(final Simulation sim, final int slots)
    {
        final long target = sim.checker().chosenThrough() + slots;
        if (sim.runUntil(() -> sim.checker().chosenThrough() >= target, LIVENESS_MICROS))
        {
            return null;
        }
        return "liveness: " + sim.liveProcesses() + " processes up, " + sim.liveAcceptors() + " of " + sim.n() +
            " acceptors live, stuck at slot " +
            sim.checker().chosenThrough() + ", wanted " + target + " within " + LIVENESS_MICROS + "us; leader " +
            sim.leader() + " " + (sim.leader() < 0 ? "none" : sim.lastStatus(sim.leader()));
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
        if (leader < 0 && sim.liveProcesses() > 0 && !sim.anyMayLead())
        {
            return null; // every live process lost its region's state (amnesia rule): none may lead
        }
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
            System.out.println("  p" + p + (sim.amnesiac(p) ? " region came back empty: amnesiac, out of quorums;" : "") +
                " region: decided log through " +
                sim.peekRegion(p, io.mmx.runtime.core.RegionLayout.DECIDED_THROUGH_WORD, 1)[0] + ", proposer round " +
                sim.peekRegion(p, io.mmx.runtime.core.RegionLayout.PROPOSER_ROUND_WORD, 1)[0] +
                (sim.isUp(p) ? "; learner " + sim.core(p).learnerSummary() : ""));
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
            return n < 3 || r.nextBoolean() ? complete(n) : Graph.empty(n);
        }
        if (kind == 1)
        {
            return cycle(n);
        }
        if (kind == 2)
        {
            return Graph.empty(n);
        }
        final int degree = 2 + r.nextInt(Math.min(4, n - 2));
        return new RandomRegularGenerator().generate(n, (n * degree) % 2 == 0 ? degree : degree - 1, r.nextLong());
    }

    static Graph complete(final int n)
    {
        final Graph.Builder b = Graph.builder(n);
        for (int u = 0; u < n; u++)
        {
            for (int v = u + 1; v < n; v++)
            {
                b.addEdge(u, v);
            }
        }
        return b.build();
    }

    static Graph cycle(final int n)
    {
        final Graph.Builder b = Graph.builder(n);
        for (int u = 0; u < n; u++)
        {
            b.addEdge(u, (u + 1) % n);
        }
        return b.build();
    }
}
