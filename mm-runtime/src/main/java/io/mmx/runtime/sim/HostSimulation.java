package io.mmx.runtime.sim;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.mmx.planner.generate.RandomRegularGenerator;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.Plan;
import io.mmx.rdma.fabric.RegionLinkFactory;
import io.mmx.rdma.local.LocalRegionStore;
import io.mmx.runtime.core.Flaw;
import io.mmx.membership.neighbour.HostLiveness;
import io.mmx.runtime.host.ProcessHost;
import io.mmx.runtime.host.Submission;
import io.mmx.runtime.node.EventLog;
import io.mmx.runtime.node.InProcessHost;
import io.mmx.runtime.node.NodeContext;
import io.mmx.runtime.node.ReplicaFlaw;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A seeded simulation of the node's own code: H hosts of P processes each, every host the
 * {@link ProcessHost} a node runs (membership, cores, replicas, forwarding to the leader,
 * resubmission and the duplicate filter), built by {@link InProcessHost} with a node's settings,
 * all in this thread on a virtual clock. Frames travel an {@link InMemoryNetwork}, memory is
 * in-process regions behind {@link DelayedRegionLinks}.
 *
 * <p>The seed draws the cluster and its faults ({@link HostFaults}): frame delay, reordering and
 * loss between hosts; memory latency with a slow tail (past the fabric's timeout); hosts that crash
 * for good, all their processes together, never so many that the live processes' acceptors
 * {@code |N[S]|} fall to n/2 or below (the tolerance line, as {@link SeedSweep} draws crashes);
 * and pauses of a host's duty cycle (a slow JVM: its live leader looks dead, another takes over,
 * then it comes back). Clients submit on every live host throughout, across leader changes.
 *
 * <p>For {@link #FAULT_PHASE_NS} faults run; then they heal (pauses end, frames flow without loss
 * within 0.1 ms, memory operations keep their ordinary latency but none is slow)
 * and clients submit for {@link #SUBMIT_AFTER_HEAL_NS} more. Within {@link #LIVENESS_NS} of the heal
 * every command a live host submitted must have completed with its own reply and every live replica
 * must hold the whole common order. {@link AppliedOrderChecker} checks safety throughout.
 *
 * <p>With {@link Options#planChanges} the run also changes its plan live, that many times, during
 * the faults (docs/protocol.md §8b): at a drawn time a host that never crashes submits a plan change
 * to a new plan over the same processes (a new random graph, its degree drawn again), drawn so that
 * the crashes keep a quorum in every plan. Each host switches to the new era once all its replicas
 * applied the change (or the switch wait after the first did, {@link ProcessHost#switchDue()}), carrying its replicas onto
 * new cores over the era's fresh regions and network ({@link SimulatedEra}), and keeps running its
 * old host for {@link #RETAIN_NS} more for peers still in the old era. The checker compares replicas
 * by log index, which runs on across eras, so agreement is checked across the change; at the end
 * every live host must run the last era.
 */
public final class HostSimulation
{
    /** Virtual time between two duty cycles of a host. */
    public static final long STEP_NS = 250_000;
    /** Virtual time with faults. */
    public static final long FAULT_PHASE_NS = 3_000_000_000L;
    /** Clients keep submitting this long after the heal. */
    public static final long SUBMIT_AFTER_HEAL_NS = 500_000_000L;
    /** Liveness bound: from the heal, every live host's command completes and every live replica converges. */
    public static final long LIVENESS_NS = 10_000_000_000L;
    private static final long CHECK_EVERY_STEPS = 400;
    private static final long LEADER_SAMPLE_STEPS = 8;
    /** How much longer pauses may be when the replicas keep state (and so can take snapshots). */
    public static final int DURABLE_PAUSE_FACTOR = 5;
    /** How long a host keeps running its old era's host after it switched. */
    public static final long RETAIN_NS = 2_000_000_000L;
    private static final byte[] CLUSTER_KEY = "host-simulation-cluster-key-0123".getBytes(StandardCharsets.US_ASCII);

    /** What a run may be told besides its seed. */
    public static final class Options
    {
        /** Exactly this many processes (0: drawn from the seed). */
        public int n;
        /** Exactly this many processes per host (0: drawn). */
        public int perHost;
        /** A deliberate protocol bug of the core. */
        public Flaw flaw = Flaw.NONE;
        /** A deliberate bug of the replicas. */
        public ReplicaFlaw replicaFlaw = ReplicaFlaw.NONE;
        /** Print the run's faults and leader changes, and the node's event lines, to stderr. */
        public boolean trace;
        /** Plan changes the run makes during its faults (0: none). */
        public int planChanges;
        /** The kinds of the changes, used in turn (empty: each drawn). */
        public List<ChangeSchedule.Kind> planChangeKinds = new ArrayList<>();
        /**
         * The replicas keep state in a temporary directory (deleted after the run), as a node with
         * {@code --state-dir} does: a replica that fell behind every decided log takes a peer's
         * snapshot instead of holding a gap.
         */
        public boolean durable;
    }

    private final long seed;
    private final Options options;
    private final HostFaults faults;
    private final SplittableRandom random;
    private final int hostCount;
    /** The host of every process id of any plan of the run. */
    private final int[] hostOf;
    /** The plan changes and their plans, drawn up front. */
    private final ChangeSchedule schedule;
    /** The eras begun so far; a host runs eras up to {@link #eraOfHost} (-1: a host no plan had yet). */
    private final List<SimulatedEra> eras = new ArrayList<>();
    private final int[] eraOfHost;
    /** How many times a host was replaced by a new, empty machine. */
    private final int[] machine;
    /** Hosts a shrink removed. */
    private final boolean[] removed;
    /** When each plan change is submitted, the host that submits it, and its submission. */
    private final long[] changeAtNs;
    private final int[] changeHost;
    private Submission changeSubmission;
    private int changesSubmitted;
    /** Per change: how long after its submission the leader's host pauses (-1: no race), and for how long. */
    private final long[] raceAfterNs;
    private final long[] raceForNs;
    private long raceAtNs = -1;
    private long raceForNow;
    private int leaderChangesAtSubmit;
    private int racesRun;
    /** Whether the leader's host paused while the current change was not decided yet. */
    private boolean racing;
    private int changesRacingAPause;
    private int changesRacingLeaderChange;
    /** Per era from 1: when a host first saw the change decided, and when the era's first command was applied. */
    private final long[] eraCutNs;
    private final long[] eraFirstCommitNs;
    private final AtomicInteger[] pending;
    /** The replicas' state directories, when {@link Options#durable}; else null. */
    private final java.nio.file.Path stateRoot;
    private final boolean[] crashed;
    private final long[] pausedUntilNs;
    private final long[] crashAtNs;
    private final long[] pauseAtNs;
    private final long[] pauseForNs;
    private final AppliedOrderChecker checker;
    private final List<Sent> sent = new ArrayList<>();
    private final int maxPending;
    private final String description;
    private long nowNs;
    private long steps;
    private int lastLeader = -1;
    private int leaderChanges;
    private int pausesRun;
    private int leaderPauses;
    private int crashesRun;
    private int replacements;
    private long refused;
    private long acknowledged;
    private long acknowledgedWithoutReply;
    private long convergedAtNs = -1;

    /**
     * What the operating system of one machine says of a process's host: a crashed host is surely
     * dead, any other (paused ones too: a paused JVM holds its locks) surely runs. Read through
     * {@link #crashed}, allocated before the hosts are built.
     */
    private final HostLiveness liveness = new HostLiveness()
    {
        @Override
        public boolean surelyRuns(final int processId)
        {
            return !crashed[hostOf[processId]];
        }

        @Override
        public boolean surelyDead(final int processId)
        {
            return crashed[hostOf[processId]];
        }
    };

    /** One submitted command: its host, its value, its submission. */
    private static final class Sent
    {
        final int host;
        final long value;
        final Submission submission;
        boolean checked;
        /** Its host left the cluster (a shrink) or was replaced by a new machine: its outcome is no one's to wait for. */
        boolean abandoned;

        Sent(final int host, final long value, final Submission submission)
        {
            this.host = host;
            this.value = value;
            this.submission = submission;
        }
    }

    /** Builds seed {@code seed}'s cluster; {@link #run()} runs it. */
    public HostSimulation(final long seed, final Options options)
    {
        this.seed = seed;
        this.options = options;
        this.faults = HostFaults.fromSeed(seed, options.n, options.perHost);
        this.random = new SplittableRandom(seed);
        final SplittableRandom changeRandom = new SplittableRandom(seed ^ 0x6A09E667F3BCC909L);
        final Graph graph = new RandomRegularGenerator().generate(faults.n, faults.degree, random.nextLong());
        schedule = new ChangeSchedule(Plan.sealed(graph, faults.degree, "random", seed, null,
            JsonNodeFactory.instance.objectNode()), faults.perHost, Math.max(0, options.planChanges),
            options.planChangeKinds, changeRandom);
        this.hostCount = schedule.maxHosts;
        this.hostOf = schedule.hostOf;
        this.description = "host seed " + seed + ": " + faults + (options.durable ? " durable" : "") +
            (options.planChanges > 0 ? " plan changes " + schedule.kindsText() : "") +
            (options.flaw == Flaw.NONE ? "" : " flaw " + options.flaw.cliName()) +
            (options.replicaFlaw == ReplicaFlaw.NONE ? "" : " replica flaw " + options.replicaFlaw.cliName());
        try
        {
            stateRoot = options.durable || schedule.needsState() ?
                java.nio.file.Files.createTempDirectory("mmx-hostsim-" + seed + "-") : null;
        }
        catch (final java.io.IOException ex)
        {
            throw new IllegalStateException("cannot make the replicas' state directory: " + ex.getMessage(), ex);
        }
        eraOfHost = new int[hostCount];
        java.util.Arrays.fill(eraOfHost, schedule.hostsIn[0], hostCount, -1);
        machine = new int[hostCount];
        removed = new boolean[hostCount];
        eraCutNs = new long[schedule.plans.length];
        eraFirstCommitNs = new long[schedule.plans.length];
        java.util.Arrays.fill(eraCutNs, -1);
        java.util.Arrays.fill(eraFirstCommitNs, -1);
        checker = new AppliedOrderChecker(schedule.maxN());
        checker.trace = options.trace ? this::trace : null;
        crashed = new boolean[hostCount];
        pending = new AtomicInteger[hostCount];
        final SimulatedEra first = newEra(0);
        maxPending = InProcessHost.maxPending(first.contexts[0]);
        for (int h = 0; h < schedule.hostsIn[0]; h++)
        {
            pending[h] = new AtomicInteger();
            first.hosts[h] = new InProcessHost(first.contexts[h], first.hostOf, first.links, first.network.endpoint(h),
                () -> nowNs, checker::replica, new SplittableRandom(random.nextLong()), options.replicaFlaw, pending[h],
                faults.liveness ? liveness : HostLiveness.NONE);
        }
        first.links.start();
        pausedUntilNs = new long[hostCount];
        crashAtNs = drawCrashes();
        changeAtNs = new long[schedule.kinds.length];
        changeHost = new int[schedule.kinds.length];
        for (int k = 0; k < changeAtNs.length; k++)
        {
            // Spread over the fault phase, each after the one before; submitted by a first-plan host that never
            // crashes (a shrink removes only hosts a grow added).
            final long slice = (FAULT_PHASE_NS - 200_000_000L) / changeAtNs.length;
            changeAtNs[k] = 200_000_000L + k * slice + changeRandom.nextLong(slice / 2);
            int h;
            do
            {
                h = changeRandom.nextInt(schedule.hostsIn[0]);
            }
            while (crashAtNs[h] >= 0);
            changeHost[k] = h;
        }
        raceAfterNs = new long[changeAtNs.length];
        raceForNs = new long[changeAtNs.length];
        for (int k = 0; k < changeAtNs.length; k++)
        {
            // Half the changes race a leader change: the leader's host pauses within 2 ms of the submission,
            // mostly before the change is decided.
            final boolean race = changeRandom.nextBoolean();
            raceAfterNs[k] = race ? changeRandom.nextLong(2_000_000L) : -1;
            raceForNs[k] = race ? 40_000_000L + changeRandom.nextLong(160_000_000L) : 0;
        }
        pauseAtNs = new long[faults.pauses];
        pauseForNs = new long[faults.pauses];
        for (int i = 0; i < faults.pauses; i++)
        {
            pauseAtNs[i] = random.nextLong(FAULT_PHASE_NS);
            // With state directories a replica past every decided log's window takes a snapshot: pauses may
            // outlast the window (see HostFaults.MAX_PAUSE_NS), up to DURABLE_PAUSE_FACTOR times as long. Not with
            // plan changes: a host away across two changes cannot find the newest era by itself yet.
            pauseForNs[i] = 1_000_000 + random.nextLong(faults.pauseMaxNs *
                (options.durable && options.planChanges == 0 ? DURABLE_PAUSE_FACTOR : 1));
        }
    }

    /**
     * Era {@code number} on its plan: the context of each of the plan's hosts (a host replaced by a
     * new machine gets a new state directory), the era's network and fresh regions.
     */
    private SimulatedEra newEra(final int number)
    {
        final Plan plan = schedule.plans[number];
        final String directory = schedule.directory(number);
        final NodeContext[] contexts = new NodeContext[schedule.hostsIn[number]];
        for (int h = 0; h < contexts.length; h++)
        {
            contexts[h] = new NodeContext().plan(plan).hosted(schedule.idsOf(h)).clusterKey(CLUSTER_KEY)
                .directory(directory);
            if (stateRoot != null)
            {
                contexts[h].stateDirectory(stateRoot.resolve("host-" + h + "-machine-" + machine[h]));
            }
            contexts[h].core().flaw(options.flaw);
            contexts[h].conclude();
        }
        final SimulatedEra era = new SimulatedEra(plan, contexts,
            java.util.Arrays.copyOf(hostOf, plan.graph().n()), faults, random, () -> nowNs, CLUSTER_KEY,
            nowNs >= FAULT_PHASE_NS, crashed);
        eras.add(era);
        return era;
    }

    /**
     * Hosts to crash and when (or -1): a random order of hosts, each crashed only while the live
     * processes' acceptors stay above n/2 with it gone too, in every plan of the run.
     */
    private long[] drawCrashes()
    {
        final long[] at = new long[hostCount];
        java.util.Arrays.fill(at, -1);
        final boolean[] down = new boolean[hostCount];
        int left = faults.crashes;
        for (final int h : shuffled(schedule.hostsIn[0]))
        {
            if (left == 0)
            {
                break;
            }
            down[h] = true;
            boolean quorumEverywhere = true;
            for (final Plan p : schedule.plans)
            {
                quorumEverywhere &= liveAcceptors(p.graph(), down) > p.graph().n() / 2;
            }
            if (quorumEverywhere)
            {
                at[h] = random.nextLong(FAULT_PHASE_NS);
                left--;
            }
            else
            {
                down[h] = false;
            }
        }
        return at;
    }

    /** |N[S]|: the acceptors of the processes of live hosts and of their neighbours. */
    private int liveAcceptors(final Graph graph, final boolean[] downHosts)
    {
        final boolean[] covered = new boolean[graph.n()];
        int count = 0;
        for (int p = 0; p < graph.n(); p++)
        {
            if (downHosts[hostOf[p]])
            {
                continue;
            }
            if (!covered[p])
            {
                covered[p] = true;
                count++;
            }
            for (final int q : graph.neighbours(p))
            {
                if (!covered[q])
                {
                    covered[q] = true;
                    count++;
                }
            }
        }
        return count;
    }

    private int[] shuffled(final int count)
    {
        final int[] order = new int[count];
        for (int i = 0; i < count; i++)
        {
            order[i] = i;
        }
        for (int i = count - 1; i > 0; i--)
        {
            final int j = random.nextInt(i + 1);
            final int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        return order;
    }

    /**
     * The kind of plan change named {@code name} (regraph, replace, grow, shrink).
     *
     * @throws IllegalArgumentException naming the kinds, for any other name.
     */
    public static ChangeSchedule.Kind changeKind(final String name)
    {
        return ChangeSchedule.Kind.byName(name);
    }

    /** Runs seed {@code seed} with the node's event lines muted. */
    public static SeedSweep.Outcome run(final long seed, final Options options)
    {
        return new HostSimulation(seed, options).run();
    }

    /** Runs the faults, the heal and the liveness bound; the verdict says what the checker found. */
    public SeedSweep.Outcome run()
    {
        try (EventLog.Muted ignored = options.trace ? () -> { } : EventLog.muted())
        {
            final String failure = runChecked();
            if (checker.violation() != null)
            {
                return new SeedSweep.Outcome(seed, SeedSweep.Verdict.SAFETY, description + ": " + checker.violation() +
                    "; " + summary());
            }
            return failure == null ? new SeedSweep.Outcome(seed, SeedSweep.Verdict.OK, null) :
                new SeedSweep.Outcome(seed, SeedSweep.Verdict.LIVENESS, description + ": liveness: " + failure + "; " +
                summary());
        }
        catch (final AssertionError | RuntimeException e)
        {
            // The core asserts what must never happen (with -ea), and a host stops on a failed frame
            // handler: a broken variant may get there before the checker sees a reply.
            return new SeedSweep.Outcome(seed, SeedSweep.Verdict.SAFETY, description + ": at " + nowNs / 1_000_000 +
                " virtual ms: " + e + "; " + summary());
        }
        finally
        {
            releaseState();
        }
    }

    private String runChecked()
    {
        final long healNs = FAULT_PHASE_NS;
        final long stopSubmitNs = healNs + SUBMIT_AFTER_HEAL_NS;
        int nextPause = 0;
        final int[] pauseOrder = sortedPauses();
        while (true)
        {
            nowNs += STEP_NS;
            steps++;
            if (nowNs >= healNs && nowNs - STEP_NS < healNs)
            {
                trace("faults heal");
                for (final SimulatedEra e : eras)
                {
                    e.heal();
                }
                java.util.Arrays.fill(pausedUntilNs, 0);
            }
            for (final SimulatedEra e : eras)
            {
                e.network.advanceTo(nowNs);
            }
            for (int h = 0; h < hostCount; h++)
            {
                if (!crashed[h] && crashAtNs[h] >= 0 && nowNs >= crashAtNs[h])
                {
                    crashed[h] = true;
                    crashesRun++;
                    trace("host " + h + " crashes");
                    for (final SimulatedEra e : eras)
                    {
                        e.network.crash(h);
                    }
                }
            }
            submitPlanChange();
            while (nextPause < pauseOrder.length && pauseAtNs[pauseOrder[nextPause]] <= nowNs)
            {
                pause(pauseOrder[nextPause++], healNs);
            }
            if (raceAtNs >= 0 && nowNs >= raceAtNs)
            {
                raceAtNs = -1;
                if (lastLeader >= 0 && !crashed[hostOf[lastLeader]] && nowNs < healNs)
                {
                    final int h = hostOf[lastLeader];
                    racesRun++;
                    racing = changeSubmission != null && !changeSubmission.future().isDone();
                    pausedUntilNs[h] = Math.min(healNs, Math.max(pausedUntilNs[h], nowNs + raceForNow));
                    trace("host " + h + " of the leader pauses until " + pausedUntilNs[h] / 1_000_000 +
                        " ms, racing the plan change");
                }
            }
            if (nowNs < stopSubmitNs)
            {
                submit();
            }
            for (int h = 0; h < hostCount; h++)
            {
                if (!crashed[h] && pausedUntilNs[h] <= nowNs && eraOfHost[h] >= 0)
                {
                    for (int e = 0; e <= eraOfHost[h]; e++)
                    {
                        if (eras.get(e).runs(h, nowNs))
                        {
                            eras.get(e).hosts[h].host().doWork(nowNs);
                        }
                    }
                    if (!removed[h])
                    {
                        switchIfEnded(h);
                    }
                }
            }
            noteFirstCommit();
            if (steps % LEADER_SAMPLE_STEPS == 0)
            {
                sampleLeader();
            }
            if (steps % CHECK_EVERY_STEPS == 0)
            {
                checkAcknowledged();
                if (checker.checkSafety() != null)
                {
                    return null;
                }
                if (nowNs >= stopSubmitNs && converged() == null)
                {
                    convergedAtNs = nowNs;
                    return checkNoneFailed();
                }
                if (nowNs >= healNs + LIVENESS_NS)
                {
                    return "not converged " + LIVENESS_NS / 1_000_000 + " virtual ms after the heal: " + converged();
                }
            }
        }
    }

    /** Closes every host's state and deletes the state directories. */
    private void releaseState()
    {
        if (stateRoot == null)
        {
            return;
        }
        for (int e = eras.size() - 1; e >= 0; e--)
        {
            for (final InProcessHost host : eras.get(e).hosts)
            {
                if (host != null)
                {
                    host.close();
                }
            }
        }
        io.mmx.runtime.local.LocalCluster.deleteTree(stateRoot);
    }

    /** The host of {@code h} in the newest era it runs. */
    private InProcessHost current(final int h)
    {
        return eras.get(eraOfHost[h]).hosts[h];
    }

    /**
     * Submits the next plan change once its time came, from its host once that host runs the era
     * the change ends; submits it again if it timed out (its outcome unknown: a retry of the same
     * change is dropped as a duplicate if the first was decided).
     */
    private void submitPlanChange()
    {
        if (changeSubmission != null && changeSubmission.future().isDone())
        {
            final boolean failed = changeSubmission.future().isCompletedExceptionally();
            final long reply = failed ? -1 : changeSubmission.future().join();
            // Whether the change took effect is the era's to say, not the reply's: a reply of -1 (decided in a later
            // era than it names, after its host switched and routed it again), a timeout or an applied-without-reply
            // while its host switched behind the change all leave the change in effect.
            final int h = changeHost[changesSubmitted];
            final boolean inEffect = eraOfHost[h] > changesSubmitted || current(h).host().eraEndedAt() >= 0;
            trace("plan change " + changesSubmitted + (failed ? " failed: " + changeSubmission.future().handle(
                (v, e) -> e).join() : " completed: log index " + reply) + (inEffect ? "" : "; not in effect: again"));
            if (!failed && reply >= 0 && !inEffect)
            {
                throw new IllegalStateException("plan change " + changesSubmitted + " was decided at log index " +
                    reply + ", yet era " + changesSubmitted + " goes on at host " + h);
            }
            changesSubmitted += inEffect ? 1 : 0;
            changesRacingAPause += inEffect && racing ? 1 : 0;
            changesRacingLeaderChange += inEffect && racing && leaderChanges > leaderChangesAtSubmit ? 1 : 0;
            racing = false;
            changeSubmission = null;
        }
        final int k = changesSubmitted;
        if (changeSubmission != null || k >= changeAtNs.length || nowNs < changeAtNs[k] || crashed[changeHost[k]] ||
            eraOfHost[changeHost[k]] != k || eras.get(k).hosts[changeHost[k]].host().eraEndedAt() >= 0)
        {
            return;
        }
        changeSubmission = Submission.planChange(schedule.plans[k + 1].digest().id64(),
            schedule.plans[k + 1].n());
        pending[changeHost[k]].incrementAndGet();
        if (!current(changeHost[k]).host().enqueue(changeSubmission))
        {
            pending[changeHost[k]].decrementAndGet();
            changeSubmission = null;
            return;
        }
        leaderChangesAtSubmit = leaderChanges;
        if (raceAfterNs[k] >= 0)
        {
            raceAtNs = nowNs + raceAfterNs[k];
            raceForNow = raceForNs[k];
        }
        trace("host " + changeHost[k] + " submits plan change " + k + " (" + schedule.kinds[k].cliName() +
            ") to era " + (k + 1) + " (n " + schedule.plans[k + 1].graph().n() + ", degree " +
            schedule.plans[k + 1].graph().degree(0) + ")");
    }

    /**
     * Moves host {@code h} to the next era once a plan change ended its current one and all its
     * replicas applied it (or the switch wait after the first did: {@link ProcessHost#switchDue()}).
     */
    private void switchIfEnded(final int h)
    {
        final int e = eraOfHost[h];
        final io.mmx.runtime.host.ProcessHost host = eras.get(e).hosts[h].host();
        if (host.eraEndedAt() < 0)
        {
            return;
        }
        if (e + 1 < eraCutNs.length && eraCutNs[e + 1] < 0)
        {
            eraCutNs[e + 1] = nowNs; // the first host to see the change decided
        }
        if (!host.switchDue())
        {
            return;
        }
        final Plan next = planWithId(host.nextPlanId(), h);
        final SimulatedEra era = eras.size() > e + 1 ? eras.get(e + 1) : beginEra(e + 1, next);
        if (era.plan != next)
        {
            throw new IllegalStateException("host " + h + " ends era " + e + " for plan " +
                Long.toHexString(host.nextPlanId()) + " but another host began era " + (e + 1) + " on plan " +
                Long.toHexString(era.plan.digest().id64()));
        }
        eras.get(e).retireAtNs[h] = nowNs + RETAIN_NS;
        if (h >= era.hosts.length)
        {
            removed[h] = true;
            abandon(h);
            trace("host " + h + " leaves the cluster: the plan of era " + (e + 1) + " has none of its processes");
            return;
        }
        era.links.building(true);
        era.hosts[h] = eras.get(e).hosts[h].successor(era.contexts[h], era.hostOf, era.links, era.network.endpoint(h),
            () -> nowNs, new SplittableRandom(random.nextLong()), pending[h],
            faults.liveness ? liveness : HostLiveness.NONE);
        era.links.building(false);
        eraOfHost[h] = e + 1;
        trace("host " + h + " switches to era " + (e + 1) + " (era " + e + " ended at slot " + host.eraEndedAt() +
            (host.eraEndedEverywhere() ? "" : "; not every replica applied it") + ")");
    }

    /**
     * Begins era {@code number} on its plan, when the first host switches to it: a replace first
     * brings back every crashed host as a new, empty machine; the hosts a replace or a grow adds join
     * the era at once and take the state by snapshot.
     */
    private SimulatedEra beginEra(final int number, final Plan plan)
    {
        if (number >= schedule.plans.length || plan != schedule.plans[number])
        {
            throw new IllegalStateException("era " + number + " would run plan " +
                Long.toHexString(plan.digest().id64()) + ", not the plan its change named");
        }
        final ChangeSchedule.Kind kind = schedule.kinds[number - 1];
        final List<Integer> joiners = new ArrayList<>();
        if (kind == ChangeSchedule.Kind.REPLACE)
        {
            for (int h = 0; h < schedule.hostsIn[number]; h++)
            {
                if (crashed[h])
                {
                    crashed[h] = false;
                    crashAtNs[h] = -1; // the new machine does not crash
                    machine[h]++;
                    abandon(h);
                    for (final SimulatedEra old : eras)
                    {
                        if (h < old.retireAtNs.length)
                        {
                            old.retireAtNs[h] = 0;
                        }
                    }
                    joiners.add(h);
                    replacements++;
                }
            }
        }
        for (int h = schedule.hostsIn[number - 1]; h < schedule.hostsIn[number]; h++)
        {
            if (removed[h])
            {
                // A shrink removed this host before: the grow brings its ids back on a new machine.
                removed[h] = false;
                machine[h]++;
                for (final SimulatedEra old : eras)
                {
                    if (h < old.retireAtNs.length)
                    {
                        old.retireAtNs[h] = 0;
                    }
                }
            }
            joiners.add(h);
        }
        final SimulatedEra era = newEra(number);
        for (final int h : joiners)
        {
            pending[h] = new AtomicInteger();
            era.links.building(true);
            era.hosts[h] = InProcessHost.joining(number, era.contexts[h], era.hostOf, era.links,
                era.network.endpoint(h), () -> nowNs, checker::replica, new SplittableRandom(random.nextLong()),
                options.replicaFlaw, pending[h], faults.liveness ? liveness : HostLiveness.NONE);
            era.links.building(false);
            eraOfHost[h] = number;
            trace("host " + h + (kind == ChangeSchedule.Kind.REPLACE ? " comes back as a new, empty machine and" :
                " is new and") + " joins era " + number);
        }
        return era;
    }

    /** Host {@code h}'s submissions so far have no one to wait for: it left, or its machine was replaced. */
    private void abandon(final int h)
    {
        for (final Sent s : sent)
        {
            if (s.host == h)
            {
                s.abandoned = true;
            }
        }
    }

    /** The plan a change names; a process holds only the run's plans. */
    private Plan planWithId(final long id, final int h)
    {
        for (final Plan p : schedule.plans)
        {
            if (p.digest().id64() == id)
            {
                return p;
            }
        }
        throw new IllegalStateException("host " + h + " applied a plan change to plan " + Long.toHexString(id) +
            ", which it does not hold");
    }

    /** Records when each era's first command was applied. */
    private void noteFirstCommit()
    {
        final int last = eras.size() - 1;
        if (last > 0 && eraFirstCommitNs[last] < 0 &&
            checker.highestIndex() >= last * io.mmx.runtime.node.LogEra.SLOTS * eras.get(last).contexts[0].core().maxBatch())
        {
            eraFirstCommitNs[last] = nowNs;
            trace("era " + last + " applied its first command, " + (nowNs - eraCutNs[last]) / 1_000_000 +
                " ms after the change was first applied");
        }
    }

    private void trace(final String what)
    {
        if (options.trace)
        {
            System.err.println("sim " + nowNs / 1_000_000 + " ms: " + what);
        }
    }

    private int[] sortedPauses()
    {
        final Integer[] order = new Integer[pauseAtNs.length];
        for (int i = 0; i < order.length; i++)
        {
            order[i] = i;
        }
        java.util.Arrays.sort(order, (a, b) -> Long.compare(pauseAtNs[a], pauseAtNs[b]));
        return java.util.Arrays.stream(order).mapToInt(Integer::intValue).toArray();
    }

    /** Pauses the leader's host (with the drawn probability) or another live host, until at most the heal. */
    private void pause(final int i, final long healNs)
    {
        int h = -1;
        if (random.nextDouble() < faults.pauseLeaderProbability && lastLeader >= 0 && !crashed[hostOf[lastLeader]])
        {
            h = hostOf[lastLeader];
            leaderPauses++;
        }
        else
        {
            final int pick = random.nextInt(hostCount);
            h = crashed[pick] || removed[pick] || eraOfHost[pick] < 0 ? -1 : pick;
        }
        if (h >= 0)
        {
            pausesRun++;
            pausedUntilNs[h] = Math.min(healNs, Math.max(pausedUntilNs[h], nowNs + pauseForNs[i]));
            trace("host " + h + " pauses until " + pausedUntilNs[h] / 1_000_000 + " ms");
        }
    }

    /** Each live host's clients submit a command with the drawn rate; a full host refuses it. */
    private void submit()
    {
        for (int h = 0; h < hostCount; h++)
        {
            if (crashed[h] || removed[h] || eraOfHost[h] < 0 || random.nextLong(faults.submitIntervalNs) >= STEP_NS)
            {
                continue;
            }
            if (pending[h].incrementAndGet() > maxPending)
            {
                pending[h].decrementAndGet();
                refused++;
                continue;
            }
            final long value = ((long)h << 40) | sent.size();
            final byte[] command = new byte[8];
            new UnsafeBuffer(command).putLong(0, value, ByteOrder.LITTLE_ENDIAN);
            final Submission s = new Submission(command, false);
            checker.submitted(value);
            if (!current(h).host().enqueue(s))
            {
                pending[h].decrementAndGet();
                refused++;
                continue;
            }
            sent.add(new Sent(h, value, s));
        }
    }

    private void sampleLeader()
    {
        int leader = -1;
        for (int h = 0; h < hostCount && leader < 0; h++)
        {
            if (!crashed[h] && !removed[h] && eraOfHost[h] >= 0 && pausedUntilNs[h] <= nowNs)
            {
                leader = current(h).leading();
            }
        }
        if (leader >= 0 && leader != lastLeader)
        {
            leaderChanges += lastLeader >= 0 ? 1 : 0;
            lastLeader = leader;
            trace("process " + leader + " of host " + hostOf[leader] + " leads");
        }
    }

    private static boolean appliedWithoutReply(final Sent s)
    {
        return s.submission.future().handle((v, e) -> e instanceof io.mmx.runtime.node.SubmitAppliedException).join();
    }

    private void checkAcknowledged()
    {
        for (final Sent s : sent)
        {
            if (!s.checked && s.submission.future().isDone() && !s.submission.future().isCompletedExceptionally())
            {
                s.checked = true;
                acknowledged++;
                checker.acknowledged(s.value, s.submission.future().join());
            }
            else if (!s.checked && s.submission.future().isDone() && appliedWithoutReply(s))
            {
                // Applied inside the part of the log a peer's snapshot covered: no reply, but it must be applied.
                s.checked = true;
                acknowledgedWithoutReply++;
                checker.appliedWithoutReply(s.value);
            }
        }
    }

    /** @return what keeps the run from having converged, or null. */
    private String converged()
    {
        int open = 0;
        Sent first = null;
        for (final Sent s : sent)
        {
            if (!crashed[s.host] && !s.abandoned && !s.submission.future().isDone())
            {
                open++;
                first = first == null ? s : first;
            }
        }
        if (open > 0)
        {
            return open + " commands of live hosts not completed, the first " +
                AppliedOrderChecker.text(first.value);
        }
        if (changesSubmitted < changeAtNs.length)
        {
            return "plan change " + changesSubmitted + " of " + changeAtNs.length + " not in effect";
        }
        for (int h = 0; h < hostCount; h++)
        {
            if (!crashed[h] && !removed[h] && eraOfHost[h] != eras.size() - 1)
            {
                return "host " + h + " still runs era " + eraOfHost[h] + " of " + (eras.size() - 1);
            }
        }
        final boolean[] live = new boolean[hostOf.length];
        final int lastN = eras.get(eras.size() - 1).plan.graph().n();
        for (int p = 0; p < lastN; p++)
        {
            live[p] = !crashed[hostOf[p]] && !removed[hostOf[p]];
        }
        return checker.checkConverged(live);
    }

    private String checkNoneFailed()
    {
        for (final Sent s : sent)
        {
            if (!crashed[s.host] && !s.abandoned && s.submission.future().isCompletedExceptionally() &&
                !appliedWithoutReply(s))
            {
                return "command " + AppliedOrderChecker.text(s.value) + " of live host " + s.host + " failed: " +
                    s.submission.future().handle((v, e) -> e).join();
            }
        }
        return null;
    }

    /** @return what the run did, in one line. */
    public String summary()
    {
        return String.format("virtual %d ms%s, %d leader changes, %d pauses (%d of the leader's host), %d crashes, " +
            "%d commands submitted, %d acknowledged, %d refused, %d in the common order, %d replicas told of a gap%s; " +
            "frames %s; %d memory completions",
            nowNs / 1_000_000, convergedAtNs < 0 ? "" : " (converged " + (convergedAtNs - FAULT_PHASE_NS) / 1_000_000 +
            " ms after the heal)", leaderChanges, pausesRun, leaderPauses, crashesRun, sent.size(), acknowledged,
            refused, checker.commonSize(), checker.replicasWithGaps(),
            stateRoot == null ? "" : ", " + checker.snapshotsLoaded() + " snapshots loaded, " + acknowledgedWithoutReply +
            " applied without a reply", eras.get(0).network.countersText(),
            eras.get(0).links.delayed()) + eraSummary();
    }

    /** Per plan change: when it was first applied and how long until its era applied a command. */
    private String eraSummary()
    {
        final StringBuilder b = new StringBuilder();
        if (changeAtNs.length > 0)
        {
            b.append("; ").append(changesRacingAPause).append(" of ").append(changesSubmitted)
                .append(" changes decided while the leader's host was paused, ").append(changesRacingLeaderChange)
                .append(" of them across a leader change");
        }
        for (int e = 1; e < eras.size(); e++)
        {
            final io.mmx.planner.change.GraphDiff diff = io.mmx.planner.change.GraphDiff.between(
                eras.get(e - 1).plan.graph(), eras.get(e).plan.graph());
            b.append("; era ").append(e).append(" (").append(schedule.kinds[e - 1].cliName()).append(", n ")
                .append(eras.get(e).plan.graph().n()).append(", degree ").append(eras.get(e).plan.graph().degree(0))
                .append(", edges +").append(diff.added().size()).append(" -").append(diff.removed().size())
                .append(" of ").append(eras.get(e).plan.graph().edgeCount()).append(')');
            if (eraCutNs[e] >= 0)
            {
                b.append(" changed at ").append(eraCutNs[e] / 1_000_000).append(" ms");
            }
            if (eraFirstCommitNs[e] >= 0)
            {
                b.append(", first command ").append((eraFirstCommitNs[e] - eraCutNs[e]) / 1_000).append(" us later");
            }
        }
        return b.toString();
    }

    /** @return snapshots the replicas loaded from peers (joiners, and replicas that fell behind). */
    public int snapshotsLoaded()
    {
        return checker.snapshotsLoaded();
    }

    /** @return plan changes decided while the leader's host was paused, across a leader change. */
    public int changesRacingLeaderChange()
    {
        return changesRacingLeaderChange;
    }

    /** @return hosts brought back as new, empty machines by a replace. */
    public int replacements()
    {
        return replacements;
    }

    /** @return the kinds of the run's plan changes, comma separated. */
    public String changeKinds()
    {
        return schedule.kindsText();
    }

    /** @return per era from 1: virtual ns from the change's first application to the era's first applied command (-1: none). */
    public long[] changeStallsNs()
    {
        final long[] stalls = new long[Math.max(0, eras.size() - 1)];
        for (int e = 1; e < eras.size(); e++)
        {
            stalls[e - 1] = eraFirstCommitNs[e] < 0 || eraCutNs[e] < 0 ? -1 : eraFirstCommitNs[e] - eraCutNs[e];
        }
        return stalls;
    }

    /** @return a digest of the common order and the virtual end time: a replayed seed gives the same. */
    public long digest()
    {
        return checker.digest() * 31 + nowNs;
    }

    /** @return the run's shape and faults, as a failure line begins. */
    public String description()
    {
        return description;
    }
}
