package io.mmx.runtime.core;

import io.mmx.planner.graph.Graph;

/**
 * Everything a core needs to know before it starts, validated at once by {@link #conclude()}.
 * Shared by all cores of a cluster (immutable after {@code conclude()}).
 */
public final class CoreConfig
{
    private Graph graph;
    private long planHash;
    private int maxBatch = 4;
    private int proposalWords = 1;
    private int pipelineSlots = 32;
    private int maxSlotsPerAccept = 16;
    private int recordMaxEntries = 96;
    private int recordChainDepth = 3;
    private int decidedCapacity = 256;
    private int learnerCapacity = 1024;
    private int proposalQueueCapacity = 1024;
    private int driverQueueCapacity = 16;
    private int maxTransitionRetries = 16;
    private int recentAccepts = 8;
    private int catchupBatch = 32;
    /** 0 until set: {@link #conclude()} derives it. */
    private int logRunSlots;
    private int reclaimReplicas = 2;
    private int retransmitTicks = 4;
    /** 0 until set: {@link #conclude()} makes it 8 x retransmitTicks. */
    private int retransmitMaxTicks;
    private int prepareRetryTicks = 4;
    private int heartbeatTicks = 10;
    private boolean bumpsHeartbeat = true;
    private boolean leaderExecutesNeighbours = true;
    /** Host (JVM, endpoint) of each process, or null: every process on a host of its own. */
    private int[] hostOf;
    private int catchupTicks = 2;
    private RegionLayout layout;
    private boolean concluded;

    private Flaw flaw = Flaw.NONE;

    /** The plan's graph: who may operate on whose region. Required. */
    public CoreConfig graph(final Graph graph)
    {
        checkMutable();
        this.graph = graph;
        return this;
    }

    /** The plan's hash, written into every region's header. */
    public CoreConfig planHash(final long planHash)
    {
        checkMutable();
        this.planHash = planHash;
        return this;
    }

    /** Proposals per slot value. */
    public CoreConfig maxBatch(final int maxBatch)
    {
        checkMutable();
        this.maxBatch = maxBatch;
        return this;
    }

    /**
     * Words per proposal (default 1: a proposal is one 64-bit id). A slot's value holds up to
     * {@link #maxBatch()} proposals of this many words each; the proposer never splits one.
     */
    public CoreConfig proposalWords(final int proposalWords)
    {
        checkMutable();
        this.proposalWords = proposalWords;
        return this;
    }

    /** Undecided slots the leader keeps in flight beyond its applied prefix. */
    public CoreConfig pipelineSlots(final int pipelineSlots)
    {
        checkMutable();
        this.pipelineSlots = pipelineSlots;
        return this;
    }

    /** Slots per Accept message (and per acceptor transition). */
    public CoreConfig maxSlotsPerAccept(final int maxSlotsPerAccept)
    {
        checkMutable();
        this.maxSlotsPerAccept = maxSlotsPerAccept;
        return this;
    }

    /**
     * Delta records a record chain may hold above its whole record (0: every transition writes the
     * whole window). A transition whose changes fit one group's entries writes only them, chained
     * to the record it replaces; every {@code recordChainDepth + 1}-th writes the whole window
     * again. Bytes per transition fall with it, and a reader without a cached copy reads up to
     * {@code recordChainDepth + 1} records (docs/protocol.md §3).
     */
    public CoreConfig recordChainDepth(final int recordChainDepth)
    {
        checkMutable();
        this.recordChainDepth = recordChainDepth;
        return this;
    }

    /** Accepted entries one acceptor record holds: the acceptor window. */
    public CoreConfig recordMaxEntries(final int recordMaxEntries)
    {
        checkMutable();
        this.recordMaxEntries = recordMaxEntries;
        return this;
    }

    /** Entries of the decided-log ring in each region. */
    public CoreConfig decidedCapacity(final int decidedCapacity)
    {
        checkMutable();
        this.decidedCapacity = decidedCapacity;
        return this;
    }

    /** Decided slots a learner keeps in memory (power of two). */
    public CoreConfig learnerCapacity(final int learnerCapacity)
    {
        checkMutable();
        this.learnerCapacity = learnerCapacity;
        return this;
    }

    /** Proposals a leader queues before it refuses more. */
    public CoreConfig proposalQueueCapacity(final int proposalQueueCapacity)
    {
        checkMutable();
        this.proposalQueueCapacity = proposalQueueCapacity;
        return this;
    }

    /**
     * Acceptor entries are reclaimed only below a prefix that this many processes have written
     * to their regions' decided logs: losing fewer hosts than this never loses a decided value.
     */
    public CoreConfig reclaimReplicas(final int reclaimReplicas)
    {
        checkMutable();
        this.reclaimReplicas = reclaimReplicas;
        return this;
    }

    /**
     * Accept groups an executor queues per acceptor while a transition is in flight; beyond it Accepts
     * are dropped and the leader retransmits. At least the pipeline's group count avoids those drops.
     */
    public CoreConfig driverQueueCapacity(final int driverQueueCapacity)
    {
        checkMutable();
        this.driverQueueCapacity = driverQueueCapacity;
        return this;
    }

    /** Ticks between phase-1 retries while a leader gathers promises. */
    public CoreConfig prepareRetryTicks(final int prepareRetryTicks)
    {
        checkMutable();
        this.prepareRetryTicks = prepareRetryTicks;
        return this;
    }

    /** Ticks between a lagging learner's catch-up requests. */
    public CoreConfig catchupTicks(final int catchupTicks)
    {
        checkMutable();
        this.catchupTicks = catchupTicks;
        return this;
    }

    /** Decided slots per catch-up reply and catch-up read. */
    public CoreConfig catchupBatch(final int catchupBatch)
    {
        checkMutable();
        this.catchupBatch = catchupBatch;
        return this;
    }

    /**
     * Slots of a decided-log run: a learner writes its decided log when its applied prefix reaches
     * its next run boundary, one every this many slots, or at the tick after slots were applied
     * (whichever is first), and never writes entries more than this far past its
     * {@code DECIDED_THROUGH}, which is what readers of the log rely on. Default: the larger of
     * {@code catchupBatch} and {@code pipelineSlots}; at most half of {@code decidedCapacity} and
     * of {@code learnerCapacity}.
     */
    public CoreConfig logRunSlots(final int logRunSlots)
    {
        checkMutable();
        this.logRunSlots = logRunSlots;
        return this;
    }

    /**
     * The least time a leader waits for a quorum before it sends an Accept group again, in ticks. The
     * wait follows the decide latency the leader measures (smoothed latency plus four deviations, as
     * TCP's retransmission timeout), never below this; a group waits that timeout doubled per resend
     * of it, never more than {@link #retransmitMaxTicks(int)}.
     */
    public CoreConfig retransmitTicks(final int retransmitTicks)
    {
        checkMutable();
        this.retransmitTicks = retransmitTicks;
        return this;
    }

    /**
     * The longest a leader waits between two broadcasts of one Accept group, in ticks, and so the most
     * the measured retransmission timeout may grow to. Default 8 x {@link #retransmitTicks(int)}; at
     * least {@code retransmitTicks}.
     */
    public CoreConfig retransmitMaxTicks(final int retransmitMaxTicks)
    {
        checkMutable();
        this.retransmitMaxTicks = retransmitMaxTicks;
        return this;
    }

    /** Ticks between increments of the own region's heartbeat word. */
    public CoreConfig heartbeatTicks(final int heartbeatTicks)
    {
        checkMutable();
        this.heartbeatTicks = heartbeatTicks;
        return this;
    }

    /**
     * Whether the core bumps its own region's heartbeat word every {@link #heartbeatTicks(int)} (default
     * true). A host whose membership already bumps that word (the node's neighbour monitor does, each
     * interval) turns it off: a second bump of the same word is a memory operation per process and
     * interval that tells no reader anything more.
     */
    public CoreConfig bumpsHeartbeat(final boolean bumpsHeartbeat)
    {
        checkMutable();
        this.bumpsHeartbeat = bumpsHeartbeat;
        return this;
    }

    /**
     * Whether a process that prepares or leads executes its live plan neighbours' acceptors itself
     * (default true). Their transitions then cost it one memory operation each instead of an Accept
     * and an Accepted; when N[leader] holds a quorum, a group is decided in the leader's own duty
     * cycle. Turn it off where a neighbour's memory is far slower than a message to it.
     */
    public CoreConfig leaderExecutesNeighbours(final boolean leaderExecutesNeighbours)
    {
        checkMutable();
        this.leaderExecutesNeighbours = leaderExecutesNeighbours;
        return this;
    }

    /**
     * Which processes share a host (one JVM behind one endpoint): {@code hostOf[p]} names p's host,
     * 0..n-1. The leader then sends one Accept per host for the acceptors executed there by their
     * owners ({@link Effects#sendToHost}) instead of one per executor. Default: each process alone.
     */
    public CoreConfig hosts(final int[] hostOf)
    {
        checkMutable();
        this.hostOf = hostOf == null ? null : hostOf.clone();
        return this;
    }

    /** Validates everything at once; the config is read-only afterwards. */
    public CoreConfig conclude()
    {
        if (concluded)
        {
            return this;
        }
        if (graph == null || graph.n() < 1)
        {
            throw new IllegalStateException("a plan graph with at least one process is required");
        }
        if (hostOf != null && hostOf.length != graph.n())
        {
            throw new IllegalStateException("hosts names " + hostOf.length + " processes but the plan has " + graph.n() +
                ": give every process's host");
        }
        for (int p = 0; hostOf != null && p < hostOf.length; p++)
        {
            if (hostOf[p] < 0 || hostOf[p] >= hostOf.length)
            {
                throw new IllegalStateException("host of process " + p + " is " + hostOf[p] + ": number hosts 0.." +
                    (hostOf.length - 1));
            }
        }
        requirePositive("maxBatch", maxBatch);
        requirePositive("proposalWords", proposalWords);
        if ((long)maxBatch * proposalWords > 4096)
        {
            throw new IllegalStateException("maxBatch " + maxBatch + " x proposalWords " + proposalWords +
                " exceeds 4096 words per slot value: lower the batch or the proposal size");
        }
        requirePositive("pipelineSlots", pipelineSlots);
        requirePositive("maxSlotsPerAccept", maxSlotsPerAccept);
        requirePositive("driverQueueCapacity", driverQueueCapacity);
        requirePositive("maxTransitionRetries", maxTransitionRetries);
        requirePositive("retransmitTicks", retransmitTicks);
        if (retransmitMaxTicks == 0)
        {
            retransmitMaxTicks = (int)Math.min(Integer.MAX_VALUE >> 4, 8L * retransmitTicks);
        }
        if (retransmitMaxTicks < retransmitTicks || retransmitMaxTicks > Integer.MAX_VALUE >> 4)
        {
            throw new IllegalStateException("retransmitMaxTicks " + retransmitMaxTicks + " must be between " +
                "retransmitTicks " + retransmitTicks + " and " + (Integer.MAX_VALUE >> 4) +
                ": it caps the measured timeout, which never falls below retransmitTicks");
        }
        requirePositive("prepareRetryTicks", prepareRetryTicks);
        requirePositive("heartbeatTicks", heartbeatTicks);
        requirePositive("catchupTicks", catchupTicks);
        requirePositive("catchupBatch", catchupBatch);
        requirePositive("reclaimReplicas", reclaimReplicas);
        requirePositive("proposalQueueCapacity", proposalQueueCapacity);
        if (maxSlotsPerAccept > pipelineSlots)
        {
            throw new IllegalStateException("maxSlotsPerAccept " + maxSlotsPerAccept + " exceeds pipelineSlots " +
                pipelineSlots + ": a group must fit in the pipeline");
        }
        if (recordMaxEntries < 2 * pipelineSlots)
        {
            throw new IllegalStateException("recordMaxEntries " + recordMaxEntries + " must be at least twice " +
                "pipelineSlots " + pipelineSlots + " so acceptors whose executors lag one window still accept");
        }
        if (Integer.bitCount(learnerCapacity) != 1 || learnerCapacity < 2 * pipelineSlots)
        {
            throw new IllegalStateException("learnerCapacity " + learnerCapacity + " must be a power of two and at " +
                "least twice pipelineSlots " + pipelineSlots);
        }
        if (decidedCapacity < 2 * pipelineSlots)
        {
            throw new IllegalStateException("decidedCapacity " + decidedCapacity + " must be at least twice " +
                "pipelineSlots " + pipelineSlots + " so floors stay readable in the decided log");
        }
        if (logRunSlots == 0)
        {
            logRunSlots = Math.min(Math.max(catchupBatch, pipelineSlots), Math.min(decidedCapacity, learnerCapacity) / 2);
        }
        if (logRunSlots < 1 || logRunSlots > decidedCapacity / 2 || logRunSlots > learnerCapacity / 2)
        {
            throw new IllegalStateException("logRunSlots " + logRunSlots + " must be between 1 and half of " +
                "decidedCapacity " + decidedCapacity + " and of learnerCapacity " + learnerCapacity +
                ": readers of a decided log refuse the last logRunSlots entries of its ring, and a learner holds " +
                "applied slots until they are logged");
        }
        if (recordChainDepth < 0 || recordChainDepth > 14)
        {
            throw new IllegalStateException("recordChainDepth " + recordChainDepth + " outside 0..14: the head " +
                "word names 16 record slots per lane, two of them for whole records");
        }
        layout = new RegionLayout(graph.maxDegree() + 1, recordMaxEntries, valueWords(), decidedCapacity,
            recordChainDepth, maxSlotsPerAccept);
        concluded = true;
        return this;
    }

    private static void requirePositive(final String name, final int value)
    {
        if (value < 1)
        {
            throw new IllegalStateException(name + " must be >= 1, got " + value);
        }
    }

    private void checkMutable()
    {
        if (concluded)
        {
            throw new IllegalStateException("config is concluded and read-only");
        }
    }

    private void checkConcluded()
    {
        if (!concluded)
        {
            throw new IllegalStateException("call conclude() before use");
        }
    }

    /** See {@link #graph(Graph)}. */
    public Graph graph()
    {
        return graph;
    }

    /** Processes in the plan. */
    public int n()
    {
        return graph.n();
    }

    /** See {@link #planHash(long)}. */
    public long planHash()
    {
        return planHash;
    }

    /** The region layout these settings give (after {@link #conclude()}). */
    public RegionLayout layout()
    {
        checkConcluded();
        return layout;
    }

    /** Distinct acceptors a quorum needs: more than n/2 of all n. */
    public int quorumSize()
    {
        final int n = graph.n();
        return flaw == Flaw.HALF_QUORUM ? Math.max(1, n / 2) : n / 2 + 1;
    }

    /**
     * Selects a deliberate protocol bug, for simulations that test their checkers only: a node
     * never calls this. {@link Flaw#NONE} (the default) is the protocol.
     */
    public CoreConfig flaw(final Flaw flaw)
    {
        checkMutable();
        this.flaw = java.util.Objects.requireNonNull(flaw, "flaw");
        return this;
    }

    /** See {@link #flaw(Flaw)}. */
    public Flaw flaw()
    {
        return flaw;
    }

    boolean has(final Flaw f)
    {
        return flaw == f;
    }

    /** See {@link #maxBatch(int)}. */
    public int maxBatch()
    {
        return maxBatch;
    }

    /** Words per proposal. */
    public int proposalWords()
    {
        return proposalWords;
    }

    /** Largest slot value in words: {@code maxBatch * proposalWords}. */
    public int valueWords()
    {
        return maxBatch * proposalWords;
    }

    /** See {@link #pipelineSlots(int)}. */
    public int pipelineSlots()
    {
        return pipelineSlots;
    }

    /** See {@link #maxSlotsPerAccept(int)}. */
    public int maxSlotsPerAccept()
    {
        return maxSlotsPerAccept;
    }

    /** See {@link #recordChainDepth(int)}. */
    public int recordChainDepth()
    {
        return recordChainDepth;
    }

    /** See {@link #recordMaxEntries(int)}. */
    public int recordMaxEntries()
    {
        return recordMaxEntries;
    }

    /** See {@link #decidedCapacity(int)}. */
    public int decidedCapacity()
    {
        return decidedCapacity;
    }

    /** See {@link #learnerCapacity(int)}. */
    public int learnerCapacity()
    {
        return learnerCapacity;
    }

    /** See {@link #proposalQueueCapacity(int)}. */
    public int proposalQueueCapacity()
    {
        return proposalQueueCapacity;
    }

    /** See {@link #driverQueueCapacity(int)}. */
    public int driverQueueCapacity()
    {
        return driverQueueCapacity;
    }

    /** Times an executor retries one acceptor transition before it gives up on it. */
    public int maxTransitionRetries()
    {
        return maxTransitionRetries;
    }

    /** Accept groups a process keeps to replay to a neighbour's acceptor it takes over. */
    public int recentAccepts()
    {
        return recentAccepts;
    }

    /** See {@link #catchupBatch(int)}. */
    public int catchupBatch()
    {
        return catchupBatch;
    }

    /** See {@link #logRunSlots(int)}. */
    public int logRunSlots()
    {
        return logRunSlots;
    }

    /** Replicas of the decided log required before reclaiming, capped at n. */
    public int reclaimReplicas()
    {
        return Math.min(reclaimReplicas, graph.n());
    }

    /** See {@link #retransmitTicks(int)}. */
    public int retransmitTicks()
    {
        return retransmitTicks;
    }

    /** See {@link #retransmitMaxTicks(int)}. */
    public int retransmitMaxTicks()
    {
        return retransmitMaxTicks;
    }

    /** See {@link #prepareRetryTicks(int)}. */
    public int prepareRetryTicks()
    {
        return prepareRetryTicks;
    }

    /** See {@link #heartbeatTicks(int)}. */
    public int heartbeatTicks()
    {
        return heartbeatTicks;
    }

    /** Host of process {@code p} (see {@link #hosts(int[])}); without a host map, p itself. */
    public int hostOf(final int p)
    {
        return hostOf == null ? p : hostOf[p];
    }

    /** True if some host runs more than one process (see {@link #hosts(int[])}). */
    public boolean sharedHosts()
    {
        return hostOf != null;
    }

    /** See {@link #bumpsHeartbeat(boolean)}. */
    public boolean bumpsHeartbeat()
    {
        return bumpsHeartbeat;
    }

    /** See {@link #leaderExecutesNeighbours(boolean)}. */
    public boolean leaderExecutesNeighbours()
    {
        return leaderExecutesNeighbours;
    }

    /** See {@link #catchupTicks(int)}. */
    public int catchupTicks()
    {
        return catchupTicks;
    }
}
