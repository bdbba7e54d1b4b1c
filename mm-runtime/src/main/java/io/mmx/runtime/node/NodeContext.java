package io.mmx.runtime.node;

import io.mmx.aeron.transport.ProcessDirectory;
import io.mmx.aeron.transport.TransportContext;
import io.mmx.membership.MembershipConfig;
import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.runtime.core.CoreConfig;
import io.mmx.runtime.node.wire.CoreMessageCodec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Everything a node needs, validated at once by {@link #conclude()}: which plan, which processes
 * this JVM hosts, where every process receives messages, where regions live, the cluster key, the
 * command size and the timing. Defaults suit a cluster on one machine or a rack; the javadoc of
 * each setter names its default.
 */
public final class NodeContext
{
    /** Where the memory regions live. */
    public enum Memory
    {
        /** Files under a directory (default /dev/shm/mmx): processes on one host. */
        SHM,
        /** A memory daemon per host ({@code mmx memd}), reached over TCP. */
        MEMD,
        /**
         * RDMA verbs (DiSNI): regions are shm files of this host, served to plan neighbours by a
         * verbs region host in this JVM; needs libdisni, libibverbs and an RDMA device, and refuses
         * to start without them. Not yet run on RDMA hardware.
         */
        VERBS
    }

    /** Default largest command payload in bytes. */
    public static final int DEFAULT_MAX_COMMAND_BYTES = 32;
    /** Default tick: the unit of every protocol and membership timer. */
    public static final long DEFAULT_TICK_NS = 2_000_000L;
    /** Default time after which an uncommitted submission fails with its outcome unknown. */
    public static final long DEFAULT_SUBMIT_TIMEOUT_NS = 10_000_000_000L;
    /** Default bound on submissions queued or in flight per JVM. */
    public static final int DEFAULT_MAX_PENDING = 4096;

    private Plan plan;
    private int[] hosted;
    private String directorySpec;
    private Memory memory = Memory.SHM;
    private Path shmDirectory;
    private String memdSpec;
    private String verbsSpec;
    private byte[] clusterKey;
    private io.mmx.rdma.region.HostKeys hostKeys;
    private int maxCommandBytes = DEFAULT_MAX_COMMAND_BYTES;
    private long tickNs = DEFAULT_TICK_NS;
    private long submitTimeoutNs = DEFAULT_SUBMIT_TIMEOUT_NS;
    private int maxPending = DEFAULT_MAX_PENDING;
    private String idleStrategy = "park";
    private String aeronDirectory;
    private long memoryOpTimeoutNs = 200_000_000L;
    private boolean regionsLost;
    private boolean coldStart;
    private boolean coldStartMajority;
    private SnapshotTransfer.Faults transferFaults = SnapshotTransfer.Faults.NONE;
    private java.nio.file.Path stateDirectory;
    private long snapshotEveryCommands = DEFAULT_SNAPSHOT_EVERY_COMMANDS;
    private Path plansDirectory;
    private io.mmx.planner.plan.PlanDirectory plansFiles;
    private final List<HeldPlan> heldPlans = new ArrayList<>();
    /** The era this context's transport and regions are for: 0 for a launched node, k after k live plan changes. */
    private int era;
    private int joinEra;
    /** Whether the transport joins the media driver of the node's earlier era instead of launching one. */
    private boolean sharesDriver;
    /** Default commands applied between two snapshots of a replica. */
    public static final long DEFAULT_SNAPSHOT_EVERY_COMMANDS = 1_000_000;
    private final CoreConfig core = new CoreConfig()
        .maxBatch(32).pipelineSlots(16).maxSlotsPerAccept(16).recordMaxEntries(32).decidedCapacity(256)
        .driverQueueCapacity(32)
        .retransmitTicks(25).prepareRetryTicks(25).heartbeatTicks(10).catchupTicks(25).bumpsHeartbeat(false);
    private final MembershipConfig membership = new MembershipConfig()
        .protocolPeriodTicks(50).probeTimeoutTicks(40).suspicionTimeoutTicks(2500).leaderLeaseTicks(1000)
        .candidateStaggerTicks(25).heartbeatIntervalTicks(50).neighbourStaleTicks(150)
        .leaderStaleTicks(15).leaderStaleReads(4);
    private TransportContext transport;
    private ProcessDirectory directory;
    private ProcessDirectory memdDirectory;
    private ProcessDirectory verbsDirectory;
    private String localEndpoint;
    private boolean concluded;

    /** The plan every process of the cluster runs (required). */
    public NodeContext plan(final Plan plan)
    {
        checkMutable();
        this.plan = plan;
        return this;
    }

    /** The processes this JVM hosts (required; all must share one endpoint of the directory). */
    public NodeContext hosted(final int... ids)
    {
        checkMutable();
        this.hosted = ids.clone();
        return this;
    }

    /** Message endpoints: {@code 0-3@127.0.0.1:40100;4-7@127.0.0.1:40101} (required). */
    public NodeContext directory(final String spec)
    {
        checkMutable();
        this.directorySpec = spec;
        return this;
    }

    /** Where regions live (default SHM). */
    public NodeContext memory(final Memory memory)
    {
        checkMutable();
        this.memory = memory;
        return this;
    }

    /** Region files' directory for SHM (default /dev/shm/mmx). */
    public NodeContext shmDirectory(final Path dir)
    {
        checkMutable();
        this.shmDirectory = dir;
        return this;
    }

    /** Memory daemons for MEMD, in the directory's syntax: {@code 0-3@10.0.0.1:7400;4-7@10.0.0.2:7400}. */
    public NodeContext memd(final String spec)
    {
        checkMutable();
        this.memdSpec = spec;
        return this;
    }

    /**
     * Verbs region hosts for VERBS, in the directory's syntax: {@code 0-3@10.0.0.1:7471;4-7@10.0.0.2:7471};
     * each host takes rdma_cm connections on that port and the edge handshake on the next one.
     */
    public NodeContext verbs(final String spec)
    {
        checkMutable();
        this.verbsSpec = spec;
        return this;
    }

    /**
     * The cluster key, raw bytes, at least 16 (this or {@link #hostKeys}): the node derives its
     * hosted processes' keys from it when it concludes and keeps only those.
     */
    public NodeContext clusterKey(final byte[] key)
    {
        checkMutable();
        this.clusterKey = key.clone();
        return this;
    }

    /**
     * The host's keys ({@code mmx keys derive}): the hosted processes' keys, the transport key and
     * the region fingerprint, without the cluster key, so this node cannot act as any other process.
     */
    public NodeContext hostKeys(final io.mmx.rdma.region.HostKeys keys)
    {
        checkMutable();
        this.hostKeys = keys;
        return this;
    }

    /** Largest command payload (default 32 bytes, at most 1024): commands travel inline in acceptor records. */
    public NodeContext maxCommandBytes(final int bytes)
    {
        checkMutable();
        this.maxCommandBytes = bytes;
        return this;
    }

    /** The tick (default 2 ms). */
    public NodeContext tickNs(final long tickNs)
    {
        checkMutable();
        this.tickNs = tickNs;
        return this;
    }

    /** Time after which a submission's future fails with {@link SubmitTimeoutException} (default 10 s). */
    public NodeContext submitTimeoutNs(final long ns)
    {
        checkMutable();
        this.submitTimeoutNs = ns;
        return this;
    }

    /** Bound on submissions queued or awaiting commit in this JVM (default 4096); beyond it submit refuses. */
    public NodeContext maxPending(final int maxPending)
    {
        checkMutable();
        this.maxPending = maxPending;
        return this;
    }

    /**
     * Idle strategy of the node's agent and the embedded media driver: park (default: spin, yield, then park
     * up to a 2 ms tick), backoff (parks up to 1 ms), sleeping, yielding, busy.
     */
    public NodeContext idleStrategy(final String name)
    {
        checkMutable();
        this.idleStrategy = name;
        return this;
    }

    /** The embedded media driver's directory (default: a directory per endpoint under /dev/shm). */
    public NodeContext aeronDirectory(final String dir)
    {
        checkMutable();
        this.aeronDirectory = dir;
        return this;
    }

    /** Deadline of each memory operation (default 200 ms); an expired one counts as unknown outcome. */
    public NodeContext memoryOpTimeoutNs(final long ns)
    {
        checkMutable();
        this.memoryOpTimeoutNs = ns;
        return this;
    }

    /**
     * The hosted processes ran before and their regions were lost with their host: a missing
     * region is formatted as a new incarnation, so its acceptor stays out of quorums and the
     * process does not lead (the amnesia rule, docs/protocol.md). Default false: a missing region
     * is taken to be new with the cluster (incarnation 0).
     */
    public NodeContext regionsLost(final boolean lost)
    {
        checkMutable();
        this.regionsLost = lost;
        return this;
    }

    /**
     * Every process and every region of the cluster was lost (all hosts rebooted): begin a new
     * era on fresh regions from the replicas' state on disk (docs/node.md, "Whole-cluster
     * restart"). Needs {@link #stateDirectory}; refused where a hosted region still exists.
     * {@code majority}: the era may start once a majority of processes have reported their state,
     * instead of every process.
     */
    public NodeContext coldStart(final boolean coldStart, final boolean majority)
    {
        checkMutable();
        this.coldStart = coldStart;
        this.coldStartMajority = majority;
        return this;
    }

    /**
     * Keeps each hosted replica's state on disk under {@code dir/process-<id>/} (snapshots and the
     * journal of applied slots), so a restarted replica comes back with exactly the state it had.
     * Default none: a restarted replica starts empty and is told of the gap ({@code StateMachine.onGap}).
     * Needs a state machine that takes snapshots.
     */
    public NodeContext stateDirectory(final java.nio.file.Path dir)
    {
        checkMutable();
        this.stateDirectory = dir;
        return this;
    }

    /**
     * Where this node finds the plans a live plan change may name (docs/protocol.md §8b): every
     * {@code *.json} plan file in {@code dir}, looked up by content hash when a change is decided.
     * Default none ({@code mmx node} uses the directory of {@code --plan}): a node that does not hold
     * the plan a change names stops, naming it.
     */
    public NodeContext plansDirectory(final Path dir)
    {
        checkMutable();
        this.plansDirectory = dir;
        return this;
    }

    /**
     * Starts this node's processes in era {@code era}, which a live plan change began while they
     * were away: a host that replaced a lost one (empty regions and state), or a node that was down
     * when the change was decided. Each replica takes the era's state from a peer's snapshot, so a
     * state directory is required; {@code mmx reconfigure} prints the era. Default 0: not joining.
     */
    public NodeContext joinEra(final int era)
    {
        checkMutable();
        this.joinEra = era;
        return this;
    }

    /**
     * Plans of the same processes' endpoints this node may switch to on a live plan change, besides
     * those in {@link #plansDirectory}.
     */
    public NodeContext heldPlans(final Plan... plans)
    {
        checkMutable();
        for (final Plan p : plans)
        {
            heldPlans.add(new HeldPlan(p, null, null));
        }
        return this;
    }

    /**
     * A plan this node may switch to on a live plan change, with the message directory of its
     * processes ({@link #directory}'s format; null: this node's) and, for memd, their daemons
     * ({@link #memd}'s; null: this node's): a plan that grows the cluster names where its new
     * processes are. In a plans directory the same comes from the files beside {@code NAME.json}:
     * {@code NAME.directory} and {@code NAME.memd}, one line each.
     */
    public NodeContext heldPlan(final Plan plan, final String directory, final String memd)
    {
        checkMutable();
        heldPlans.add(new HeldPlan(plan, directory, memd));
        return this;
    }

    /** A plan a node holds, with its processes' endpoints and daemons when they are not the node's own (null). */
    record HeldPlan(Plan plan, String directory, String memd)
    {
    }

    /** Commands a replica applies between two snapshots (default 1,000,000; at least 1). */
    public NodeContext snapshotEveryCommands(final long commands)
    {
        checkMutable();
        this.snapshotEveryCommands = commands;
        return this;
    }

    /** The protocol core's tunables, for tests and experts; fixed at {@link #conclude()}. */
    public CoreConfig core()
    {
        return core;
    }

    /**
     * Fits SWIM to a JVM of {@code hosted} processes: a period of at least {@link #HOST_PROBE_SPACING_TICKS}
     * ticks per hosted process, so the JVM sends on average at most one probe (and answers one) every
     * two ticks however many processes it runs, and a suspicion timeout of at least
     * {@link #SUSPICION_PERIODS} periods, so that a suspected member still hears of it and refutes in
     * time at the slower pace. With 256 processes in a JVM the default 50-tick period sent 2,560 probes
     * and as many acks a second, the largest part of an idle JVM's frames. What it costs: a crashed
     * process that does not lead is declared dead after about 10 s instead of 5; a leader's crash is
     * detected through memory (LeaderWatch), its claim renewed at every host without gossip.
     */
    static void scaleSwimToHost(final MembershipConfig membership, final int hosted)
    {
        final int period = Math.max(membership.protocolPeriodTicks(), HOST_PROBE_SPACING_TICKS * hosted);
        membership.protocolPeriodTicks(period);
        membership.suspicionTimeoutTicks(Math.max(membership.suspicionTimeoutTicks(), SUSPICION_PERIODS * period));
    }

    /** See {@link #scaleSwimToHost}. */
    static final int HOST_PROBE_SPACING_TICKS = 2;
    /** See {@link #scaleSwimToHost}. */
    static final int SUSPICION_PERIODS = 10;

    /** The membership tunables (in ticks), fixed at {@link #conclude()}. */
    public MembershipConfig membership()
    {
        return membership;
    }

    /**
     * Validates everything and derives the transport configuration.
     *
     * @throws IllegalStateException naming every problem found, each with its fix.
     */
    public NodeContext conclude()
    {
        if (concluded)
        {
            return this;
        }
        final List<String> errors = new ArrayList<>();
        if (plan == null)
        {
            errors.add("a plan is required: write one with 'topo plan' and pass --plan");
        }
        if (hosted == null || hosted.length == 0)
        {
            errors.add("no hosted process: pass --id I or --ids A-B");
        }
        concludeKeys(errors);
        if (coldStart && stateDirectory == null)
        {
            errors.add("a cold start begins from the replicas' state on disk: give a state directory (--state-dir)");
        }
        if (coldStart && regionsLost)
        {
            errors.add("a cold start and lost regions exclude each other: --cold-start when every region is gone, " +
                "--regions-lost when only this host's are");
        }
        if (snapshotEveryCommands < 1)
        {
            errors.add("snapshots every " + snapshotEveryCommands + " commands: give at least 1");
        }
        if (maxCommandBytes < 1 || maxCommandBytes > 1024)
        {
            errors.add("maxCommandBytes must be 1..1024, got " + maxCommandBytes);
        }
        if (tickNs < 100_000 || tickNs > 1_000_000_000L)
        {
            errors.add("tick must be 100 µs..1 s, got " + tickNs + " ns");
        }
        if (submitTimeoutNs < tickNs)
        {
            errors.add("submit timeout " + submitTimeoutNs + " ns is shorter than one tick");
        }
        if (maxPending < 1 || maxPending > 1 << 20)
        {
            errors.add("maxPending must be 1..1048576, got " + maxPending);
        }
        if (plan != null && plan.n() > Commands.CLIENT_ORIGIN)
        {
            // Command origins above the process ids name outside clients' sessions.
            errors.add("a plan of " + plan.n() + " processes; a node runs at most " + Commands.CLIENT_ORIGIN);
        }
        if (plan != null && hosted != null)
        {
            for (final int id : hosted)
            {
                if (id < 0 || id >= plan.n())
                {
                    errors.add("process " + id + " is not in the plan (ids 0.." + (plan.n() - 1) + ")");
                }
            }
            if (Arrays.stream(hosted).distinct().count() != hosted.length)
            {
                errors.add("hosted ids " + Arrays.toString(hosted) + " repeat a process");
            }
        }
        parseDirectories(errors);
        if (joinEra == 0 && stateDirectory != null)
        {
            joinEra = NodeEra.joinRequested(stateDirectory, errors);
        }
        if (joinEra != 0)
        {
            if (joinEra < 1 || joinEra > LogEra.MAX_ERA)
            {
                errors.add("--join-era " + joinEra + " is not an era a plan change began: give 1.." + LogEra.MAX_ERA +
                    ", the era 'mmx status' shows on the running nodes");
            }
            if (stateDirectory == null)
            {
                errors.add("--join-era needs --state-dir: a joining replica takes the era's state from a peer's " +
                    "snapshot and keeps it there");
            }
            if (coldStart || regionsLost)
            {
                errors.add("--join-era starts fresh regions of a running era: leave out --cold-start and --regions-lost");
            }
            era = joinEra;
        }
        else if (stateDirectory != null && plan != null && hosted != null && era == 0 && !coldStart)
        {
            concludeEra(errors);
        }
        if (plansDirectory != null && !java.nio.file.Files.isDirectory(plansDirectory))
        {
            errors.add("the plans directory " + plansDirectory + " is not a directory: create it, or pass the " +
                "directory that holds the plan files with --plans");
        }
        if (memory == Memory.MEMD && memdSpec == null)
        {
            errors.add("the memd backend needs --memd: which daemon holds each process's region");
        }
        if (memory == Memory.VERBS && verbsSpec == null)
        {
            errors.add("the verbs backend needs --verbs: which host serves each process's region over RDMA");
        }
        if (errors.isEmpty())
        {
            try
            {
                core.graph(plan.graph()).planHash(planDigest().id64()).proposalWords(Commands.proposalWords(maxCommandBytes));
                if (directory != null)
                {
                    // The processes behind one endpoint share Accepts (AcceptRouter): a host is an endpoint.
                    final int[] hostOf = new int[plan.n()];
                    for (int p = 0; p < hostOf.length; p++)
                    {
                        hostOf[p] = directory.endpointIndexOf(p);
                    }
                    core.hosts(hostOf);
                }
                core.conclude();
                if (hosted != null)
                {
                    scaleSwimToHost(membership, hosted.length);
                }
                membership.conclude(plan.n());
                transport = buildTransport();
                transport.conclude();
            }
            catch (final IllegalStateException | IllegalArgumentException ex)
            {
                errors.add(ex.getMessage());
            }
        }
        if (!errors.isEmpty())
        {
            throw new IllegalStateException("invalid node configuration: " + String.join("; ", errors));
        }
        concluded = true;
        return this;
    }

    /**
     * A node restarted after live plan changes serves the era its state directory records, with
     * that era's regions and stream; it must be started with that era's plan.
     */
    private void concludeEra(final List<String> errors)
    {
        try
        {
            final NodeEra.Recorded recorded = NodeEra.recorded(stateDirectory, hosted);
            if (recorded == null)
            {
                return;
            }
            if (!recorded.planHash().equals(plan.contentHash()))
            {
                errors.add("this node's state (" + stateDirectory + ") is in era " +
                    recorded.era() + " on plan " + recorded.planHash() + ", not on the --plan given (" +
                    plan.contentHash() + "): a live plan change moved the cluster there; restart with --plan naming " +
                    "that plan, or, to start the whole cluster over on this plan, restart every node with --cold-start");
                return;
            }
            era = recorded.era();
        }
        catch (final IllegalStateException ex)
        {
            errors.add(ex.getMessage());
        }
    }

    private void parseDirectories(final List<String> errors)
    {
        if (directorySpec == null)
        {
            errors.add("a message directory is required: --directory '0-3@127.0.0.1:40100;4-7@127.0.0.1:40101'");
            return;
        }
        try
        {
            directory = ProcessDirectory.parse(directorySpec);
            if (plan != null && directory.processCount() != plan.n())
            {
                errors.add("the directory names " + directory.processCount() + " processes but the plan has " +
                    plan.n() + ": list every process exactly once");
            }
            if (hosted != null && hosted.length > 0 && errors.isEmpty())
            {
                final int endpoint = directory.endpointIndexOf(hosted[0]);
                for (final int id : hosted)
                {
                    if (directory.endpointIndexOf(id) != endpoint)
                    {
                        errors.add("hosted processes " + hosted[0] + " and " + id + " have different endpoints in " +
                            "the directory: one JVM receives on one endpoint");
                    }
                }
                localEndpoint = directory.endpoint(endpoint);
            }
            if (verbsSpec != null)
            {
                verbsDirectory = ProcessDirectory.parse(verbsSpec);
                if (plan != null && verbsDirectory.processCount() != plan.n())
                {
                    errors.add("--verbs names " + verbsDirectory.processCount() + " processes but the plan has " +
                        plan.n());
                }
            }
            if (memdSpec != null)
            {
                memdDirectory = ProcessDirectory.parse(memdSpec);
                if (plan != null && memdDirectory.processCount() != plan.n())
                {
                    errors.add("--memd names " + memdDirectory.processCount() + " processes but the plan has " +
                        plan.n());
                }
            }
        }
        catch (final IllegalArgumentException ex)
        {
            errors.add(ex.getMessage());
        }
    }

    private TransportContext buildTransport()
    {
        // Frames must hold the largest core message; Aeron needs a term of 8x the largest message.
        final int frame = CoreMessageCodec.maxEncodedLength(core) + io.mmx.aeron.frame.FrameHeader.OVERHEAD_LENGTH;
        if (frame > io.mmx.aeron.frame.FrameHeader.MAX_PAYLOAD_LENGTH)
        {
            throw new IllegalStateException("the largest protocol message would be " + frame + " bytes, above " +
                "the 64 KiB frame limit: lower maxCommandBytes, the batch or recordMaxEntries");
        }
        final int term = Math.max(64 * 1024, Integer.highestOneBit(frame * 8 - 1) << 1);
        final TransportContext ctx = new TransportContext()
            .streamId(streamIdOfEra(era))
            .frameKey(io.mmx.aeron.frame.FrameKey.of(planDigest().id64(), transportKey()))
            .directory(directory).localEndpoint(localEndpoint)
            .termLengthBytes(term).ipcTermLengthBytes(term).maxFrameLengthBytes(frame)
            .coalesceFrames(true) // the node agent flushes at the end of each duty cycle
            .driverIdleStrategy(idleStrategy);
        if (aeronDirectory != null)
        {
            ctx.aeronDirectoryName(aeronDirectory);
        }
        if (sharesDriver)
        {
            // An era begun live shares the media driver the node launched with: one UDP port, a stream per era.
            ctx.driverMode(TransportContext.DriverMode.EXTERNAL);
        }
        return ctx;
    }

    /** The transport key: derived from the cluster key so one secret serves both uses without reuse. */
    private byte[] transportKey()
    {
        return Arrays.copyOf(hostKeys.transportKey(), io.mmx.aeron.frame.FrameKey.KEY_LENGTH);
    }

    // Exactly one of the cluster key and a host key file; a cluster key is reduced to the hosted
    // processes' keys here and then forgotten.
    private void concludeKeys(final List<String> errors)
    {
        if (clusterKey != null && hostKeys != null)
        {
            errors.add("both a cluster key and a host key file are given: pass one, --cluster-key-file or --keys");
            return;
        }
        if (clusterKey != null)
        {
            if (clusterKey.length < 16)
            {
                errors.add("the cluster key is " + clusterKey.length + " bytes, at least 16 are needed: write one " +
                    "with 'head -c 32 /dev/urandom > cluster.key'");
            }
            else if (hosted != null)
            {
                hostKeys = io.mmx.rdma.region.ClusterKey.of(clusterKey).hostKeys(hosted);
                Arrays.fill(clusterKey, (byte)0);
                clusterKey = null;
            }
            return;
        }
        if (hostKeys == null)
        {
            errors.add("a key is required: pass --keys with this host's key file ('mmx keys derive') or " +
                "--cluster-key-file with the cluster key ('head -c 32 /dev/urandom > cluster.key')");
            return;
        }
        for (final int id : hosted == null ? new int[0] : hosted)
        {
            if (!hostKeys.holds(id))
            {
                errors.add("the host key file holds the keys of processes " + Arrays.toString(hostKeys.processes()) +
                    ", not of hosted process " + id + ": derive one for this node's processes with " +
                    "'mmx keys derive --cluster-key-file FILE --ids IDS --out FILE'");
                return;
            }
        }
    }

    /** The plan's identity, its content hash ({@link PlanDigest#id64()} is what region headers and frames carry). */
    public PlanDigest planDigest()
    {
        return plan.digest();
    }

    private void checkMutable()
    {
        if (concluded)
        {
            throw new IllegalStateException("node context is concluded and read-only");
        }
    }

    Plan plan()
    {
        return plan;
    }

    /** The era this context is for: 0 for a launched node, k after k live plan changes. */
    int era()
    {
        return era;
    }

    /**
     * The Aeron stream of era {@code era}'s protocol frames: eras share a node's endpoint and media
     * driver, each on its own stream, so no frame of an ended era reaches the next one's cores. Spaced
     * by 256 to stay clear of the clients' stream.
     */
    static int streamIdOfEra(final int era)
    {
        return TransportContext.DEFAULT_STREAM_ID + 0x100 * era;
    }

    /** Where era {@code era}'s regions of a node whose era-0 regions are in {@code base} live. */
    static Path regionDirectoryOfEra(final Path base, final int era)
    {
        return io.mmx.rdma.shm.ShmRegionStore.eraDirectory(base, era); // where memd's verbs host looks for them
    }

    /**
     * The plan with id {@code id64} ({@code PlanDigest.id64}) among the held plans and the plan files
     * of the plans directory, or null when this node holds none.
     *
     * @throws IllegalStateException when the endpoint files beside the plan file cannot be read.
     */
    HeldPlan heldPlan(final long id64)
    {
        if (plan.digest().id64() == id64)
        {
            return new HeldPlan(plan, null, null);
        }
        for (final HeldPlan p : heldPlans)
        {
            if (p.plan().digest().id64() == id64)
            {
                return p;
            }
        }
        if (plansDirectory == null)
        {
            return null;
        }
        final io.mmx.planner.plan.PlanDirectory.Found found = plansFiles().find(p -> p.digest().id64() == id64);
        if (found == null)
        {
            return null;
        }
        final String stem = found.file().getFileName().toString().replaceFirst("\\.json$", "");
        try
        {
            return new HeldPlan(found.plan(), sidecar(found.file().resolveSibling(stem + ".directory")),
                sidecar(found.file().resolveSibling(stem + ".memd")));
        }
        catch (final java.io.IOException ex)
        {
            throw new IllegalStateException("cannot read the endpoints beside " + found.file() + ": " + ex.getMessage() +
                "; make the files NAME.directory and NAME.memd readable", ex);
        }
    }

    /** The plan files of the plans directory, read once each and again when they change. */
    private synchronized io.mmx.planner.plan.PlanDirectory plansFiles()
    {
        if (plansFiles == null)
        {
            plansFiles = new io.mmx.planner.plan.PlanDirectory(plansDirectory);
        }
        return plansFiles;
    }

    /** The first line of {@code file}, or null when there is none. */
    private static String sidecar(final Path file) throws java.io.IOException
    {
        if (!java.nio.file.Files.exists(file))
        {
            return null;
        }
        final String text = java.nio.file.Files.readString(file).trim();
        return text.isEmpty() ? null : text.lines().findFirst().orElse(null);
    }

    /** Whether this node joins a running era ({@link #joinEra(int)}). */
    boolean joining()
    {
        return joinEra > 0;
    }

    /** Where this node looks for plan files, or null. */
    Path plansDirectory()
    {
        return plansDirectory;
    }

    /**
     * This node's context for era {@code nextEra}, begun by a live change to {@code next}: the same
     * processes, keys and settings, the endpoints and daemons {@code next} names (else the same), regions in the era's own directory and frames on the
     * era's own stream of the media driver in {@code aeronDirectoryName}. The core's and membership's
     * tunables are the defaults a context sets.
     *
     * @throws IllegalStateException naming what the new plan does not fit.
     */
    NodeContext forEra(final HeldPlan next, final int nextEra, final String aeronDirectoryName)
    {
        final NodeContext c = new NodeContext().plan(next.plan()).hosted(hosted)
            .directory(next.directory() != null ? next.directory() : directorySpec).memory(memory)
            .hostKeys(hostKeys).maxCommandBytes(maxCommandBytes).tickNs(tickNs).submitTimeoutNs(submitTimeoutNs)
            .maxPending(maxPending).idleStrategy(idleStrategy).aeronDirectory(aeronDirectoryName)
            .memoryOpTimeoutNs(memoryOpTimeoutNs).snapshotEveryCommands(snapshotEveryCommands)
            .plansDirectory(plansDirectory).transferFaults(transferFaults);
        c.heldPlans.addAll(heldPlans);
        c.shmDirectory = shmDirectory;
        c.stateDirectory = stateDirectory;
        c.memdSpec = next.memd() != null ? next.memd() : memdSpec;
        c.verbsSpec = verbsSpec;
        c.era = nextEra;
        c.sharesDriver = true;
        return c.conclude();
    }

    int[] hosted()
    {
        return hosted.clone();
    }

    Memory memoryKind()
    {
        return memory;
    }

    /** The directory of this era's shm regions: the base directory's {@code era-N} after N live plan changes. */
    Path regionDirectory()
    {
        return regionDirectoryOfEra(shmBaseDirectory(), era);
    }

    /** The shm directory given ({@link #shmDirectory}, default /dev/shm/mmx): era 0's regions and the liveness locks. */
    Path shmBaseDirectory()
    {
        return shmDirectory != null ? shmDirectory : io.mmx.rdma.shm.ShmRegionStore.DEFAULT_DIRECTORY;
    }

    ProcessDirectory memdDirectory()
    {
        return memdDirectory;
    }

    ProcessDirectory verbsDirectory()
    {
        return verbsDirectory;
    }

    /** The hosted processes' keys, the transport key and the region fingerprint (after {@link #conclude}). */
    io.mmx.rdma.region.HostKeys hostKeys()
    {
        return hostKeys;
    }

    int maxCommandBytes()
    {
        return maxCommandBytes;
    }

    long tickNs()
    {
        return tickNs;
    }

    long submitTimeoutNs()
    {
        return submitTimeoutNs;
    }

    int maxPending()
    {
        return maxPending;
    }

    String idleStrategyName()
    {
        return idleStrategy;
    }

    java.nio.file.Path stateDirectory()
    {
        return stateDirectory;
    }

    long snapshotEveryCommands()
    {
        return snapshotEveryCommands;
    }

    boolean regionsLost()
    {
        return regionsLost;
    }

    /** Test only: faults injected into the snapshot chunks this node's replicas send. */
    NodeContext transferFaults(final SnapshotTransfer.Faults faults)
    {
        checkMutable();
        this.transferFaults = faults;
        return this;
    }

    SnapshotTransfer.Faults transferFaults()
    {
        return transferFaults;
    }

    boolean coldStart()
    {
        return coldStart;
    }

    boolean coldStartMajority()
    {
        return coldStartMajority;
    }

    long memoryOpTimeoutNs()
    {
        return memoryOpTimeoutNs;
    }

    TransportContext transport()
    {
        return transport;
    }
}
