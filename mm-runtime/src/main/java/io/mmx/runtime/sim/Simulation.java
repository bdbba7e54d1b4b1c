package io.mmx.runtime.sim;

import io.mmx.planner.graph.Graph;
import io.mmx.runtime.core.CoreConfig;
import io.mmx.runtime.core.Effects;
import io.mmx.runtime.core.MemoryOpKind;
import io.mmx.runtime.core.MemoryStatus;
import io.mmx.runtime.core.Message;
import io.mmx.runtime.core.MmPaxosCore;
import io.mmx.runtime.core.RegionLayout;
import io.mmx.runtime.core.Status;

import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * A whole m&amp;m Paxos cluster in one thread, deterministic from one seed: a simulated network
 * (delay, loss, duplication, reordering, partitions), a simulated memory fabric (per-op latency,
 * access only along the plan's edges, regions that survive process crashes and die with their
 * host), crashes and restarts at any point, false suspicions, and a leader oracle with churn.
 * The {@link SafetyChecker} sees every decision; the run stops at the first violation.
 */
public final class Simulation
{
    private static final int DELIVER = 1;
    private static final int MEM_DONE = 2;
    private static final int TICK = 3;
    private static final int SUSPICION = 4;
    private static final int LEADER = 5;
    private static final int ORACLE = 6;
    private static final int CLIENT = 7;
    private static final int FAULT = 8;
    private static final int RESTART = 9;
    private static final int FALSE_SUSPICION_END = 10;
    private static final int CHURN_END = 11;
    private static final int PARTITION_END = 12;
    private static final int MEM_APPLY = 13;
    private static final int SPLIT_END = 14;
    private static final int CRASH = 15;
    private static final int HOST_RETURN = 16;

    private static final MemoryStatus[] STATUSES = MemoryStatus.values();

    private final CoreConfig config;
    private final Graph graph;
    private final int n;
    private final long seed;
    private final FaultPlan faults;
    private final SplittableRandom random;
    /** Draws of slow-request reads only: a seed without them draws from {@link #random} as it always did. */
    private final SplittableRandom requestRandom;
    private final EventQueue queue;
    /** Messages the queue's DELIVER events name by handle (c). */
    private final MessagesInFlight messages = new MessagesInFlight();
    private final RegionLayout layout;
    private final SimRegion[] regions;
    /** Where the regions' pages come from. */
    private final Slabs slabs = new Slabs();
    private final MmPaxosCore[] cores;
    private final boolean[] up;
    /** Crashing: sends nothing more, crashes at the next event (a crash in the middle of a broadcast). */
    private final boolean[] dying;
    /** Per process: how many times its region was formatted again after a loss (the header's INCARNATION). */
    private final long[] regionIncarnation;
    private final int[] incarnation;
    private final Status[] lastStatus;
    private final SafetyChecker checker;
    private final SimStats stats = new SimStats();
    /** Per process: its ops with words not yet applied or dropped (current incarnation only). */
    private final java.util.ArrayList<PendingOp>[] pending;
    private final AcceptorAudit audit;

    private long now;
    private long tickMicros = 100;
    private int omega = -1;
    private long leaderVersion;
    private final long[] leaderVersionSeen;
    private int churnLeader = -1;
    private boolean faultsOn;
    private boolean partitioned;
    private final boolean[] side;
    private boolean clientsOn;
    private long clientIntervalMicros = 50;
    private int clientBurst = 64;
    private long proposalLimit = Long.MAX_VALUE;
    private long nextProposalId;
    private boolean started;

    private boolean measureAllocations;
    private final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
    private long callbackAllocated;
    private int callbackDepth;

    /** A simulated cluster of {@code config}'s processes under {@code faults}, every choice drawn from {@code seed}. */
    public Simulation(final CoreConfig config, final FaultPlan faults, final long seed)
    {
        config.conclude();
        this.config = config;
        this.graph = config.graph();
        this.n = graph.n();
        this.seed = seed;
        this.faults = faults;
        this.random = new SplittableRandom(seed);
        this.requestRandom = new SplittableRandom(~seed);
        this.queue = new EventQueue(Math.max(1024, n * 16));
        this.layout = config.layout();
        this.regions = new SimRegion[n];
        this.cores = new MmPaxosCore[n];
        this.up = new boolean[n];
        this.dying = new boolean[n];
        this.regionIncarnation = new long[n];
        this.incarnation = new int[n];
        this.lastStatus = new Status[n];
        this.side = new boolean[n];
        this.leaderVersionSeen = new long[n];
        this.checker = new SafetyChecker(n);
        @SuppressWarnings("unchecked")
        final java.util.ArrayList<PendingOp>[] lists = new java.util.ArrayList[n];
        for (int p = 0; p < n; p++)
        {
            lists[p] = new java.util.ArrayList<>(4);
        }
        this.pending = lists;
        this.audit = new AcceptorAudit(config, checker);
        final long[] header = new long[RegionLayout.HEADER_WORDS];
        for (int p = 0; p < n; p++)
        {
            regions[p] = new SimRegion(layout.regionWords(), slabs);
            RegionLayout.initHeader(header, p, config.planHash());
            regions[p].write(0, header, header.length);
            up[p] = true;
        }
    }

    /** The seed that replays this run. */
    public long seed()
    {
        return seed;
    }

    /** Simulated time now. */
    public long nowMicros()
    {
        return now;
    }

    /** The always-on safety checker. */
    public SafetyChecker checker()
    {
        return checker;
    }

    /** Counts of what happened. */
    public SimStats stats()
    {
        return stats;
    }

    /** Processes. */
    public int n()
    {
        return n;
    }

    /** True while process {@code p} runs. */
    public boolean isUp(final int p)
    {
        return up[p];
    }

    /** Whether {@code p}'s host was lost: its process and its region are gone. */
    public boolean regionLost(final int p)
    {
        return regions[p].lost();
    }

    /** Process {@code p}'s core. */
    public MmPaxosCore core(final int p)
    {
        return cores[p];
    }

    /** The last status process {@code p} reported. */
    public Status lastStatus(final int p)
    {
        return lastStatus[p];
    }

    /** The leader the oracle names now. */
    public int leader()
    {
        return omega;
    }

    /** Simulated time per core tick; returns this simulation. */
    public Simulation tickMicros(final long tickMicros)
    {
        this.tickMicros = tickMicros;
        return this;
    }

    /** Clients propose up to {@code burst} ids every {@code intervalMicros} to the leader, at most {@code limit} in all. */
    public Simulation clients(final long intervalMicros, final int burst, final long limit)
    {
        this.clientIntervalMicros = intervalMicros;
        this.clientBurst = burst;
        this.proposalLimit = limit;
        return this;
    }

    /** Counts bytes allocated inside core calls (excluding the simulator's own callbacks). */
    public Simulation measureCoreAllocations(final boolean measure)
    {
        this.measureAllocations = measure;
        return this;
    }

    /** Before {@link #start}: these processes begin crashed (their regions intact). */
    public void crashAtStart(final boolean[] crashed)
    {
        if (started)
        {
            throw new IllegalStateException("crashAtStart must precede start()");
        }
        for (int p = 0; p < n; p++)
        {
            if (crashed[p])
            {
                up[p] = false;
            }
        }
    }

    /** Starts every live process, the oracle, clients and (if {@code withFaults}) random faults. */
    public void start(final boolean withFaults)
    {
        started = true;
        faultsOn = withFaults && faults.faultIntervalMicros > 0;
        clientsOn = true;
        for (int p = 0; p < n; p++)
        {
            if (up[p])
            {
                boot(p);
            }
        }
        omega = computeLeader();
        for (int p = 0; p < n; p++)
        {
            if (up[p])
            {
                // Processes crashed before the start are suspected from the start.
                informJoining(p);
            }
        }
        stats.leaderChanges++;
        queue.push(now + clientIntervalMicros, CLIENT, 0, 0, 0, 0, 0, null);
        if (faultsOn)
        {
            queue.push(now + nextFaultDelay(), FAULT, 0, 0, 0, 0, 0, null);
        }
    }

    /**
     * Runs until {@code done} holds (checked between events), a safety violation, or
     * {@code maxMicros} of simulated time pass. Returns whether {@code done} held.
     */
    public boolean runUntil(final BooleanSupplier done, final long maxMicros)
    {
        final long end = now + maxMicros;
        int sinceCheck = 0;
        while (checker.violation() == null)
        {
            if (++sinceCheck >= 64)
            {
                sinceCheck = 0;
                if (done.getAsBoolean())
                {
                    return true;
                }
            }
            if (queue.size() == 0 || queue.peekTime() > end)
            {
                now = end;
                return done.getAsBoolean();
            }
            final int e = queue.pop();
            now = queue.poppedTime();
            stats.events++;
            dispatch(e);
            queue.release(e);
        }
        return false;
    }

    /** Runs for {@code micros} of simulated time. */
    public void runFor(final long micros)
    {
        runUntil(() -> false, micros);
    }

    private void dispatch(final int e)
    {
        final int p = queue.proc(e);
        switch (queue.kind(e))
        {
            case DELIVER:
            {
                final Message m = messages.take(queue.c(e));
                if (up[p])
                {
                    stats.messagesDelivered++;
                    enter();
                    cores[p].onMessage(m, ticks());
                    exit();
                }
                break;
            }
            case MEM_DONE:
                if (up[p] && incarnation[p] == queue.inc(e))
                {
                    // A PendingOp, or for an op applied whole at issue what it read (b, and obj for a bulk read).
                    final PendingOp op = queue.obj(e) instanceof PendingOp ? (PendingOp)queue.obj(e) : null;
                    // Words dropped because the region was lost meanwhile: the op did not complete.
                    final MemoryStatus status = op != null && op.lostWords ? MemoryStatus.TIMEOUT : STATUSES[queue.c(e)];
                    enter();
                    cores[p].onMemoryCompletion(queue.a(e), status, op == null ? queue.b(e) : op.result,
                        op == null ? (long[])queue.obj(e) : op.data, ticks());
                    exit();
                }
                break;
            case MEM_APPLY:
                applyChunk((PendingOp)queue.obj(e), queue.c(e));
                break;
            case SPLIT_END:
                announce(computeLeader());
                break;
            case TICK:
                if (up[p] && incarnation[p] == queue.inc(e))
                {
                    enter();
                    cores[p].onTick(ticks());
                    exit();
                    queue.push(now + tickMicros, TICK, p, incarnation[p], 0, 0, 0, null);
                }
                break;
            case SUSPICION:
            case FALSE_SUSPICION_END:
            {
                final int q = queue.c(e);
                if (up[p] && incarnation[p] == queue.inc(e))
                {
                    // a = 1: a false suspicion (holds until its end event); otherwise suspect what is down now.
                    final boolean suspected = queue.kind(e) == SUSPICION && queue.a(e) == 1 || !up[q];
                    enter();
                    cores[p].onSuspicion(q, suspected, ticks());
                    exit();
                }
                break;
            }
            case LEADER:
                // Announcements may arrive skewed; a process acts only on a newer one than it saw.
                if (up[p] && incarnation[p] == queue.inc(e) && queue.a(e) > leaderVersionSeen[p])
                {
                    leaderVersionSeen[p] = queue.a(e);
                    enter();
                    cores[p].onLeaderChange(queue.c(e), ticks());
                    exit();
                }
                break;
            case ORACLE:
                updateOracle();
                break;
            case CLIENT:
                client();
                break;
            case FAULT:
                if (faultsOn)
                {
                    randomFault();
                    queue.push(now + nextFaultDelay(), FAULT, 0, 0, 0, 0, 0, null);
                }
                break;
            case CRASH:
                if (up[p] && incarnation[p] == queue.inc(e))
                {
                    dying[p] = false;
                    crash(p);
                    queue.push(now + 1 + random.nextLong(faults.restartDelayMaxMicros), RESTART, p, 0, 0, 0, 0, null);
                }
                break;
            case HOST_RETURN:
                if (faultsOn)
                {
                    returnHost(p);
                }
                break;
            case RESTART:
                // Restarts drawn in the fault phase; after the heal, only heal(true) restarts.
                if (faultsOn && !up[p] && !regions[p].lost())
                {
                    restart(p);
                }
                break;
            case CHURN_END:
                churnLeader = -1;
                updateOracle();
                break;
            case PARTITION_END:
                partitioned = false;
                break;
            default:
                throw new IllegalStateException("unknown event kind " + queue.kind(e));
        }
    }

    private long ticks()
    {
        return now / tickMicros;
    }

    private void boot(final int p)
    {
        up[p] = true;
        final int inc = incarnation[p];
        cores[p] = new MmPaxosCore(p, config, new ProcessEffects(p, inc), seed * 31 + p * 1_000_003L + inc, scratch);
        enter();
        cores[p].start(ticks());
        exit();
        queue.push(now + 1 + random.nextLong(tickMicros), TICK, p, inc, 0, 0, 0, null);
    }

    /** Tells a process that (re)joins who leads and which of its neighbours are down. */
    private void informJoining(final int p)
    {
        enter();
        cores[p].onLeaderChange(omega, ticks());
        for (int i = 0; i < graph.degree(p); i++)
        {
            final int q = graph.neighbour(p, i);
            if (!up[q])
            {
                cores[p].onSuspicion(q, true, ticks());
            }
        }
        exit();
    }

    /** Crashes {@code p} now: volatile state gone, region intact, neighbours suspect it after the detection delay. */
    public void crash(final int p)
    {
        if (!up[p])
        {
            return;
        }
        up[p] = false;
        dying[p] = false;
        cores[p] = null;
        incarnation[p]++;
        stats.crashes++;
        // A crash in the middle of an op leaves each of its words applied or not.
        final PendingOp[] inFlight = pending[p].toArray(new PendingOp[0]);
        pending[p].clear();
        for (final PendingOp op : inFlight)
        {
            resolveRandomly(op);
        }
        for (int i = 0; i < graph.degree(p); i++)
        {
            final int q = graph.neighbour(p, i);
            queue.push(now + faults.detectionDelayMicros, SUSPICION, q, incarnation[q], p, 0, 0, null);
        }
        queue.push(now + faults.detectionDelayMicros, ORACLE, 0, 0, 0, 0, 0, null);
    }

    /** Crashes {@code p} and loses its host: its region is gone for good. */
    public void loseHost(final int p)
    {
        crash(p);
        regions[p].lose();
    }

    /**
     * A lost host comes back: the region of {@code p} is formatted again, empty, with the next
     * incarnation, and {@code p} restarts on it. Ops issued on the old region never land on it.
     */
    public void returnHost(final int p)
    {
        if (up[p] || !regions[p].lost())
        {
            return;
        }
        regions[p] = new SimRegion(layout.regionWords(), slabs);
        audit.formatted(p);
        final long[] header = new long[RegionLayout.HEADER_WORDS];
        RegionLayout.initHeader(header, p, config.planHash(), ++regionIncarnation[p]);
        regions[p].write(0, header, header.length);
        stats.hostsReturned++;
        restart(p);
    }

    /** Whether the acceptor of {@code q} forgot its state (its region came back empty) and stays out of quorums. */
    public boolean amnesiac(final int q)
    {
        return !regions[q].lost() && RegionLayout.amnesiac(regionIncarnation[q], regions[q].get(RegionLayout.HEAD_WORD)) &&
            config.flaw() != io.mmx.runtime.core.Flaw.AMNESIAC_REJOINS;
    }

    /** Whether any process is up that may lead. */
    public boolean anyMayLead()
    {
        for (int p = 0; p < n; p++)
        {
            if (mayLead(p))
            {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code p} is up and may lead: a process whose region came back empty forgot its rounds. */
    public boolean mayLead(final int p)
    {
        return up[p] && (regionIncarnation[p] == 0 || config.flaw() == io.mmx.runtime.core.Flaw.AMNESIAC_REJOINS);
    }

    /** Restarts crashed process {@code p} on its region. */
    public void restart(final int p)
    {
        if (up[p] || regions[p].lost())
        {
            return;
        }
        incarnation[p]++;
        stats.restarts++;
        checker.restarted(p);
        boot(p);
        leaderVersionSeen[p] = leaderVersion;
        informJoining(p);
        for (int i = 0; i < graph.degree(p); i++)
        {
            final int q = graph.neighbour(p, i);
            if (up[q])
            {
                queue.push(now + faults.detectionDelayMicros, SUSPICION, q, incarnation[q], p, 0, 0, null);
            }
        }
        queue.push(now + faults.detectionDelayMicros, ORACLE, 0, 0, 0, 0, 0, null);
    }

    /**
     * Ends the fault phase: no more random faults, partitions, loss, duplication or memory
     * timeouts; churn stops; suspicions become accurate. Crashed processes stay crashed unless
     * {@code restartAll}.
     */
    public void heal(final boolean restartAll)
    {
        faultsOn = false;
        partitioned = false;
        churnLeader = -1;
        faults.messageLoss = 0;
        faults.messageDuplication = 0;
        faults.memoryTimeout = 0;
        faults.messageTailProbability = 0;
        if (restartAll)
        {
            for (int p = 0; p < n; p++)
            {
                restart(p);
            }
        }
        for (int p = 0; p < n; p++)
        {
            if (!up[p])
            {
                continue;
            }
            enter();
            for (int i = 0; i < graph.degree(p); i++)
            {
                final int q = graph.neighbour(p, i);
                cores[p].onSuspicion(q, !up[q], ticks());
            }
            exit();
        }
        announce(computeLeader());
    }

    /** Stops the simulated clients' proposals. */
    public void stopClients()
    {
        clientsOn = false;
    }

    /** |N[S]| of the live set S: the live acceptors. */
    public int liveAcceptors()
    {
        return liveAcceptorsWithout(-1);
    }

    /** Processes up: |S|. */
    public int liveProcesses()
    {
        int count = 0;
        for (int p = 0; p < n; p++)
        {
            count += up[p] ? 1 : 0;
        }
        return count;
    }

    /** |N[S \ {p}]|: the live acceptors if {@code p} crashed too. */
    public int liveAcceptorsWithout(final int p)
    {
        int count = 0;
        for (int q = 0; q < n; q++)
        {
            if (regions[q].lost() || amnesiac(q))
            {
                continue;
            }
            boolean reachable = up[q] && q != p;
            for (int i = 0; i < graph.degree(q) && !reachable; i++)
            {
                final int v = graph.neighbour(q, i);
                reachable = up[v] && v != p;
            }
            count += reachable ? 1 : 0;
        }
        return count;
    }

    /** Reads {@code length} words of region {@code q} directly (tests and reports; no simulated op). */
    public long[] peekRegion(final int q, final int offset, final int length)
    {
        final long[] words = new long[length];
        regions[q].read(offset, words, length);
        return words;
    }

    /** The acceptor record region {@code q}'s head word points to, decoded (tests and reports). */
    public io.mmx.runtime.core.AcceptorRecord peekAcceptor(final int q)
    {
        final io.mmx.runtime.core.AcceptorRecord record =
            new io.mmx.runtime.core.AcceptorRecord(config.recordMaxEntries(), config.valueWords());
        final long head = regions[q].get(RegionLayout.HEAD_WORD);
        if (head == 0)
        {
            return record;
        }
        // The chain from the head back to its whole record, then its deltas applied oldest first.
        final java.util.ArrayDeque<long[]> deltas = new java.util.ArrayDeque<>();
        long at = head;
        while (true)
        {
            final int index = RegionLayout.headIndex(at);
            final long[] words = peekRegion(q, layout.recordOffsetWords(RegionLayout.headLane(at), index),
                layout.recordSlotWords(index));
            if (words[io.mmx.runtime.core.AcceptorRecord.DEPTH] == 0)
            {
                boolean whole = record.decode(words, 0, words.length, RegionLayout.headSeq(at));
                while (whole && !deltas.isEmpty())
                {
                    final long[] delta = deltas.pop();
                    whole = record.applyDelta(delta, 0, delta.length, delta[io.mmx.runtime.core.AcceptorRecord.SEQ]);
                }
                if (!whole)
                {
                    throw new IllegalStateException("region " + q + " head " + Long.toHexString(head) +
                        " points to a torn record chain");
                }
                return record;
            }
            deltas.push(words);
            at = words[io.mmx.runtime.core.AcceptorRecord.PREV];
            if (deltas.size() > layout.chainDepth())
            {
                throw new IllegalStateException("region " + q + " head " + Long.toHexString(head) +
                    " names a chain longer than " + (layout.chainDepth() + 1) + " records");
            }
        }
    }

    /** Memory pages (of {@link SimRegion#pageWords()} words) allocated across all regions. */
    public long regionPagesAllocated()
    {
        long pages = 0;
        for (final SimRegion r : regions)
        {
            pages += r.pagesAllocated();
        }
        return pages;
    }

    private int computeLeader()
    {
        if (churnLeader >= 0 && mayLead(churnLeader))
        {
            return churnLeader;
        }
        for (int p = 0; p < n; p++)
        {
            if (mayLead(p))
            {
                return p;
            }
        }
        return -1;
    }

    private void updateOracle()
    {
        final int leader = computeLeader();
        if (leader == omega)
        {
            return;
        }
        announce(leader);
    }

    private void announce(final int leader)
    {
        omega = leader;
        leaderVersion++;
        stats.leaderChanges++;
        for (int p = 0; p < n; p++)
        {
            if (up[p])
            {
                final long skew = faults.leaderSkewMaxMicros > 0 ? random.nextLong(faults.leaderSkewMaxMicros + 1) : 0;
                queue.push(now + skew, LEADER, p, incarnation[p], leader, leaderVersion, 0, null);
            }
        }
    }

    private void client()
    {
        if (!clientsOn)
        {
            return;
        }
        queue.push(now + clientIntervalMicros, CLIENT, 0, 0, 0, 0, 0, null);
        if (omega < 0 || !up[omega] || nextProposalId >= proposalLimit)
        {
            return;
        }
        final MmPaxosCore core = cores[omega];
        for (int i = 0; i < clientBurst && nextProposalId < proposalLimit; i++)
        {
            checker.proposed(nextProposalId);
            enter();
            final boolean queued = core.propose(nextProposalId);
            exit();
            if (!queued)
            {
                break;
            }
            nextProposalId++;
        }
        enter();
        core.flushProposals();
        exit();
    }

    private long nextFaultDelay()
    {
        return 1 + random.nextLong(2 * faults.faultIntervalMicros);
    }

    private void randomFault()
    {
        final double total = faults.crashWeight * 2 + faults.falseSuspicionWeight + faults.leaderChurnWeight +
            faults.partitionWeight + faults.hostLossWeight + faults.splitLeaderWeight + faults.bounceWeight +
            faults.suspicionStormWeight;
        double x = random.nextDouble() * total;
        if ((x -= faults.crashWeight * 2) < 0 || (x -= faults.hostLossWeight) < 0)
        {
            final boolean hostLoss = x < 0 && x >= -faults.hostLossWeight && faults.hostLossWeight > 0;
            final int p = random.nextInt(n);
            int crashed = 0;
            for (int q = 0; q < n; q++)
            {
                crashed += up[q] ? 0 : 1;
            }
            if (up[p] && crashed + 1 <= faults.maxCrashedFraction * n)
            {
                if (hostLoss)
                {
                    loseHost(p);
                    if (faults.hostReturn > 0 && random.nextDouble() < faults.hostReturn)
                    {
                        queue.push(now + 1 + random.nextLong(faults.restartDelayMaxMicros), HOST_RETURN, p, 0, 0, 0, 0,
                            null);
                    }
                }
                else
                {
                    crash(p);
                    queue.push(now + 1 + random.nextLong(faults.restartDelayMaxMicros), RESTART, p, 0, 0, 0, 0, null);
                }
            }
        }
        else if ((x -= faults.falseSuspicionWeight) < 0)
        {
            final int p = random.nextInt(n);
            if (up[p] && graph.degree(p) > 0)
            {
                final int q = graph.neighbour(p, random.nextInt(graph.degree(p)));
                queue.push(now, SUSPICION, p, incarnation[p], q, 1, 0, null);
                queue.push(now + 1 + random.nextLong(faults.faultDurationMaxMicros), FALSE_SUSPICION_END, p,
                    incarnation[p], q, 0, 0, null);
            }
        }
        else if ((x -= faults.splitLeaderWeight) < 0)
        {
            // Two processes each believe they lead, as told by different parts of the cluster.
            final int a = random.nextInt(n);
            final int b = random.nextInt(n);
            leaderVersion++;
            for (int p = 0; p < n; p++)
            {
                if (up[p])
                {
                    queue.push(now + random.nextLong(faults.leaderSkewMaxMicros + 1), LEADER, p, incarnation[p],
                        random.nextBoolean() ? a : b, leaderVersion, 0, null);
                }
            }
            queue.push(now + 1 + random.nextLong(faults.faultDurationMaxMicros), SPLIT_END, 0, 0, 0, 0, 0, null);
        }
        else if ((x -= faults.suspicionStormWeight) < 0)
        {
            // Every process suspects every neighbour for a while: each acceptor has several executors
            // racing on its head, and records are re-read while their slots are rewritten.
            final long end = now + 1 + random.nextLong(faults.faultDurationMaxMicros);
            for (int p = 0; p < n; p++)
            {
                for (int i = 0; up[p] && i < graph.degree(p); i++)
                {
                    final int q = graph.neighbour(p, i);
                    queue.push(now, SUSPICION, p, incarnation[p], q, 1, 0, null);
                    queue.push(end, FALSE_SUSPICION_END, p, incarnation[p], q, 0, 0, null);
                }
            }
        }
        else if ((x -= faults.bounceWeight) < 0)
        {
            // The leader crashes and is back before anyone notices, its Accepts still in flight.
            final int p = omega >= 0 && up[omega] ? omega : random.nextInt(n);
            if (up[p])
            {
                crash(p);
                queue.push(now + 1 + random.nextLong(faults.detectionDelayMicros), RESTART, p, 0, 0, 0, 0, null);
            }
        }
        else if ((x -= faults.leaderChurnWeight) < 0)
        {
            churnLeader = random.nextInt(n);
            updateOracle();
            queue.push(now + 1 + random.nextLong(faults.faultDurationMaxMicros), CHURN_END, 0, 0, 0, 0, 0, null);
        }
        else
        {
            final double fraction = 0.2 + random.nextDouble() * 0.3;
            for (int p = 0; p < n; p++)
            {
                side[p] = random.nextDouble() < fraction;
            }
            partitioned = true;
            queue.push(now + 1 + random.nextLong(faults.faultDurationMaxMicros), PARTITION_END, 0, 0, 0, 0, 0, null);
        }
    }

    private void send(final int from, final int to, final Message m)
    {
        stats.messagesSent[m.type().ordinal()]++;
        if (!up[to] || (partitioned && side[from] != side[to]) ||
            (faults.messageLoss > 0 && random.nextDouble() < faults.messageLoss))
        {
            stats.messagesDropped++;
            return;
        }
        queue.push(now + messageDelay(), DELIVER, to, 0, messages.hold(m), 0, 0, null);
        if (faults.messageDuplication > 0 && random.nextDouble() < faults.messageDuplication)
        {
            queue.push(now + messageDelay(), DELIVER, to, 0, messages.hold(m), 0, 0, null);
        }
    }

    private long messageDelay()
    {
        if (faults.messageTailProbability > 0 && random.nextDouble() < faults.messageTailProbability)
        {
            // A straggler: tens of milliseconds late (it may reach a process that restarted since).
            return faults.messageDelayMaxMicros + 1 + random.nextLong(faults.messageTailMaxMicros);
        }
        return faults.messageDelayMinMicros +
            random.nextLong(faults.messageDelayMaxMicros - faults.messageDelayMinMicros + 1);
    }

    private void memory(final int executor, final int inc, final long opId, final MemoryOpKind kind, final int region,
        final int offset, final int length, final long expected, final long value, final long[] payload)
    {
        stats.memoryOps[kind.ordinal()]++;
        if (kind == MemoryOpKind.WRITE_BULK && offset >= RegionLayout.HEADER_WORDS && offset < layout.decidedEntryOffsetWords(0))
        {
            stats.recordWrites++;
            stats.recordWordsWritten += length;
        }
        final long latency = faults.memoryTailProbability > 0 && random.nextDouble() < faults.memoryTailProbability ?
            faults.memoryLatencyMaxMicros + 1 + random.nextLong(faults.memoryTailMaxMicros) :
            faults.memoryLatencyMinMicros + random.nextLong(faults.memoryLatencyMaxMicros - faults.memoryLatencyMinMicros + 1);
        if (region < 0 || region >= n || (region != executor && !graph.hasEdge(executor, region)))
        {
            stats.memoryRefused++;
            complete(executor, inc, opId, MemoryStatus.REFUSED, null, latency);
            return;
        }
        final SimRegion r = regions[region];
        if (r.lost())
        {
            stats.memoryTimeouts++;
            complete(executor, inc, opId, MemoryStatus.TIMEOUT, null, faults.memoryTimeoutMicros);
            return;
        }
        if (offset < 0 || length < 1 || offset + length > r.words() || (kind != MemoryOpKind.READ_BULK &&
            kind != MemoryOpKind.WRITE_BULK && length != 1))
        {
            complete(executor, inc, opId, MemoryStatus.OUT_OF_BOUNDS, null, latency);
            return;
        }
        fence(executor, region);
        // Torn memory cuts the op into chunks (a draw); otherwise it is one chunk.
        final int[] chunks = faults.tornMemory ? chunks(length) : null;
        final boolean slowRequest = faults.slowRequestRead > 0 && kind == MemoryOpKind.READ_BULK && length > 2 &&
            requestRandom.nextDouble() < faults.slowRequestRead;
        final boolean timeout = faults.memoryTimeout > 0 && random.nextDouble() < faults.memoryTimeout;
        if (chunks == null && !slowRequest && !timeout)
        {
            // Whole at issue time: nothing stays pending, the completion carries what was read.
            final long[] data = kind == MemoryOpKind.READ_BULK ? new long[length] : null;
            final long before = headBefore(kind, r, offset);
            final long result = PendingOp.applyWords(kind, r, offset, 0, length, expected, value, payload, data);
            landed(kind, region, r, offset, length, before, executor);
            queue.push(now + latency, MEM_DONE, executor, inc, MemoryStatus.OK.ordinal(), opId, result, data);
            return;
        }
        // The payload is the core's only during this call (Effects.memory): an op that lands later keeps a copy.
        final PendingOp op = new PendingOp(executor, inc, opId, kind, region, offset, length, expected, value,
            payload == null ? null : java.util.Arrays.copyOf(payload, length), slowRequest ? slowRequestChunks(length) : chunks != null ? chunks : new int[] {0, length});
        op.target = r;
        if (timeout)
        {
            // The completion reports TIMEOUT. The op never lands, lands before the timeout, or lands
            // later: until the executor's next op on this region is issued (the backend's fence), or
            // at a random moment if none comes.
            stats.memoryTimeouts++;
            op.timedOut = true;
            final int fate = random.nextInt(3);
            if (fate > 0)
            {
                final long from = fate == 1 ? now : now + faults.memoryTimeoutMicros;
                schedule(op, from, from + (fate == 1 ? faults.memoryTimeoutMicros : faults.lateLandingMaxMicros));
            }
            complete(executor, inc, opId, MemoryStatus.TIMEOUT, null, faults.memoryTimeoutMicros);
            return;
        }
        if (slowRequest)
        {
            // The requests before and after the slow one land within the usual latency, the slow
            // one at the end of a tail: a record read this way is torn in its middle only.
            final long slowAt = now + latency + 1 + requestRandom.nextLong(Math.max(1, faults.memoryTimeoutMicros - latency - 1));
            pending[op.executor].add(op);
            for (int i = 0; i < op.chunks(); i++)
            {
                queue.push(i == 1 ? slowAt : now + requestRandom.nextLong(latency + 1), MEM_APPLY, op.executor, op.inc, i, 0, 0, op);
            }
            complete(executor, inc, opId, MemoryStatus.OK, op, slowAt - now);
            return;
        }
        schedule(op, now, now + latency);
        complete(executor, inc, opId, MemoryStatus.OK, op, latency);
    }

    /** Cuts {@code length} words of torn memory into chunks at random boundaries. */
    private int[] chunks(final int length)
    {
        final int count = length == 1 ? 1 : 1 + random.nextInt(Math.min(length, 6));
        final int[] start = new int[count + 1];
        for (int i = 1; i < count; i++)
        {
            start[i] = 1 + random.nextInt(length - 1);
        }
        start[count] = length;
        if (count > 2)
        {
            java.util.Arrays.sort(start, 1, count);
        }
        return start;
    }

    /**
     * A bulk read served as requests of 2 to 32 words, one of them slow: chunk 0 is the words
     * before the slow request, chunk 1 the slow request (one of those within the first 64 words,
     * where a record's header and first entries lie), chunk 2 the rest.
     */
    private int[] slowRequestChunks(final int length)
    {
        final int size = 2 << requestRandom.nextInt(5);
        final int requests = (length + size - 1) / size;
        if (requests < 2)
        {
            return new int[] {0, 1, length};
        }
        final int slow = 1 + requestRandom.nextInt(Math.max(1, Math.min(requests - 1, 64 / size)));
        final int from = slow * size;
        final int to = Math.min(length, from + size);
        return to == length ? new int[] {0, from, length} : new int[] {0, from, to, length};
    }

    /** Each chunk of {@code op} takes effect at its own random moment in [from, to]. */
    private void schedule(final PendingOp op, final long from, final long to)
    {
        if (op.payload != null)
        {
            op.payload = java.util.Arrays.copyOf(op.payload, op.length); // the caller's array is valid during the call only
        }
        pending[op.executor].add(op);
        for (int i = 0; i < op.chunks(); i++)
        {
            queue.push(from + random.nextLong(to - from + 1), MEM_APPLY, op.executor, op.inc, i, 0, 0, op);
        }
    }

    private void applyChunk(final PendingOp op, final int chunk)
    {
        if (op.resolved[chunk])
        {
            return;
        }
        final SimRegion r = op.target;
        if (r.lost())
        {
            op.lostWords = true;
            op.resolve(chunk);
        }
        else
        {
            final long before = headBefore(op.kind, r, op.offset);
            op.apply(chunk, r);
            landed(op.kind, op.region, r, op.offset, op.length, before, op.executor);
        }
        if (op.unresolved == 0)
        {
            pending[op.executor].remove(op);
        }
    }

    /** The word a single-word write is about to change (0 for other ops): see {@link #landed}. */
    private static long headBefore(final MemoryOpKind kind, final SimRegion r, final int offset)
    {
        return kind == MemoryOpKind.CAS || kind == MemoryOpKind.WRITE ? r.get(offset) : 0;
    }

    /** Words of an op took effect: if they changed the head word, an acceptor transition was published. */
    /** The cores' payload words: one thread runs them all, and a payload is copied during its memory call. */
    private final io.mmx.runtime.core.PayloadScratch scratch = new io.mmx.runtime.core.PayloadScratch();

    private void landed(final MemoryOpKind kind, final int region, final SimRegion r, final int offset, final int length,
        final long before, final int executor)
    {
        if (kind == MemoryOpKind.WRITE_BULK)
        {
            audit.wrote(region, offset, length);
        }
        if (offset == RegionLayout.HEAD_WORD && (kind == MemoryOpKind.CAS || kind == MemoryOpKind.WRITE) &&
            r.get(RegionLayout.HEAD_WORD) != before)
        {
            stats.transitionsPublished++;
            audit.published(region, r, executor);
        }
    }

    /** Issuing an op on a region fences the executor's earlier timed-out ops there: they land now or never. */
    private void fence(final int executor, final int region)
    {
        final java.util.ArrayList<PendingOp> list = pending[executor];
        for (int i = list.size() - 1; i >= 0; i--)
        {
            final PendingOp op = list.get(i);
            if (op.timedOut && op.region == region)
            {
                list.remove(i);
                resolveRandomly(op);
            }
        }
    }

    /** Each word not yet applied is applied now or dropped: a crash or a fence in the middle of the op. */
    private void resolveRandomly(final PendingOp op)
    {
        final boolean all = random.nextBoolean();
        for (int i = 0; i < op.chunks(); i++)
        {
            if (!op.resolved[i])
            {
                if (all || random.nextBoolean())
                {
                    applyChunk(op, i);
                }
                else
                {
                    op.resolve(i);
                }
            }
        }
    }

    private void complete(final int executor, final int inc, final long opId, final MemoryStatus status,
        final PendingOp op, final long latency)
    {
        queue.push(now + latency, MEM_DONE, executor, inc, status.ordinal(), opId, 0, op);
    }

    private void enter()
    {
        if (measureAllocations && callbackDepth == 0)
        {
            callbackAllocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
        }
    }

    private void exit()
    {
        if (measureAllocations && callbackDepth == 0)
        {
            stats.coreAllocatedBytes += threads.getThreadAllocatedBytes(Thread.currentThread().getId()) -
                callbackAllocated;
        }
    }

    /** Effects of one process incarnation; simulator work inside them is not counted as core allocation. */
    private final class ProcessEffects implements Effects
    {
        private final int p;
        private final int inc;

        ProcessEffects(final int p, final int inc)
        {
            this.p = p;
            this.inc = inc;
        }

        private boolean live()
        {
            return up[p] && incarnation[p] == inc && !dying[p];
        }

        private void pause()
        {
            if (measureAllocations && callbackDepth++ == 0)
            {
                stats.coreAllocatedBytes += threads.getThreadAllocatedBytes(Thread.currentThread().getId()) -
                    callbackAllocated;
            }
        }

        private void resume()
        {
            if (measureAllocations && --callbackDepth == 0)
            {
                callbackAllocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
            }
        }

        /** The Accept content observed last in the current event: thrifty sends repeat it to each executor. */
        private long[][] observedValues;
        private long observedBallot;
        private long observedFirstSlot;
        private long observedEvent = -1;

        private void observe(final Message message)
        {
            if (message instanceof Message.Accept)
            {
                final Message.Accept a = (Message.Accept)message;
                if (a.values == observedValues && a.ballot == observedBallot && a.firstSlot == observedFirstSlot &&
                    observedEvent == stats.events)
                {
                    return; // the same proposals, checked a moment ago with nothing in between
                }
                observedValues = a.values;
                observedBallot = a.ballot;
                observedFirstSlot = a.firstSlot;
                observedEvent = stats.events;
                for (int i = 0; i < a.values.length; i++)
                {
                    checker.proposedAt(p, a.firstSlot + i, a.ballot, a.values[i]);
                }
                audit.proposedGroup(a.ballot, a.firstSlot, a.values.length);
            }
            else if (message instanceof Message.Promise || message instanceof Message.Accepted)
            {
                audit.replied(p, message);
            }
        }

        @Override
        public void quorumCounted(final long ballot, final long firstSlot, final int slots)
        {
            if (live())
            {
                pause();
                audit.quorumCounted(p, ballot, firstSlot, slots);
                resume();
            }
        }

        @Override
        public void learned(final long slot, final long[] value)
        {
            if (live())
            {
                pause();
                checker.learned(p, slot, value);
                resume();
            }
        }

        @Override
        public void learnedRun(final long firstSlot, final long[][] values)
        {
            if (live())
            {
                pause();
                checker.learnedRun(p, firstSlot, values);
                resume();
            }
        }

        @Override
        public void send(final int to, final Message message)
        {
            if (!live())
            {
                return;
            }
            pause();
            observe(message);
            Simulation.this.send(p, to, message);
            resume();
        }

        @Override
        public void broadcast(final Message message)
        {
            if (!live())
            {
                return;
            }
            pause();
            observe(message);
            // Sends go out one destination after another; a crash may cut the broadcast short.
            final boolean cut = faultsOn && faults.crashMidSend > 0 && random.nextDouble() < faults.crashMidSend;
            final int first = cut ? random.nextInt(n) : 0;
            final int count = cut ? random.nextInt(n) : n;
            for (int i = 0; i < count; i++)
            {
                Simulation.this.send(p, (first + i) % n, message);
            }
            if (cut)
            {
                dying[p] = true;
                queue.push(now, CRASH, p, inc, 0, 0, 0, null);
            }
            resume();
        }

        @Override
        public void memory(final long opId, final MemoryOpKind kind, final int region, final int offsetWords,
            final int lengthWords, final long expected, final long value, final long[] payload)
        {
            if (!live())
            {
                return;
            }
            pause();
            Simulation.this.memory(p, inc, opId, kind, region, offsetWords, lengthWords, expected, value, payload);
            resume();
        }

        @Override
        public void decided(final long slot, final long[] value)
        {
            if (!live())
            {
                return;
            }
            pause();
            checker.decided(p, slot, value);
            resume();
        }

        @Override
        public void decidedRun(final long firstSlot, final long[][] values, final int from, final int count)
        {
            if (!live())
            {
                return;
            }
            pause();
            checker.decidedRun(p, firstSlot, values, from, count);
            resume();
        }

        @Override
        public void skipped(final long fromSlot, final long toSlot)
        {
            if (live())
            {
                stats.skippedSlots += toSlot - fromSlot + 1;
                checker.skipped(p, toSlot);
            }
        }

        @Override
        public void status(final Status status)
        {
            lastStatus[p] = status;
        }
    }
}
