package io.mmx.runtime.node;

import io.mmx.membership.MembershipNode;
import io.mmx.membership.Role;
import io.mmx.runtime.core.CoreConfig;
import io.mmx.runtime.core.Effects;
import io.mmx.runtime.core.MemoryOpKind;
import io.mmx.runtime.core.MemoryStatus;
import io.mmx.runtime.core.Message;
import io.mmx.runtime.core.MmPaxosCore;
import io.mmx.runtime.core.RegionLayout;
import io.mmx.runtime.core.Status;
import io.mmx.runtime.host.HostTransport;
import io.mmx.runtime.node.wire.CoreMessageCodec;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;

/**
 * One hosted process: its protocol core, the memory and message effects that core asks for, its
 * replica of the state machine, and the inputs membership gives it (leader, suspected neighbours),
 * which are read every tick and turned into core events when they change.
 */
final class ProcessReplica implements Effects, FabricMemory.Sink, ReplicaDurability.EraMark
{
    /** Told when a command of a local submitter is applied at its origin's replica, and of clients' commands. */
    interface Completions
    {
        void onApplied(int origin, int incarnation, long counter, long reply);

        /** An outside client's command was applied at replica {@code replica}. */
        void onClientApplied(int replica, long clientId, long seq, byte[] reply);

        /**
         * Replica {@code replica} applied the plan change that ends its era at log slot {@code slot};
         * the next era runs the plan with id {@code planId}, of {@code processes} processes (0: not known).
         */
        void onEraEnded(int replica, long slot, long planId, int processes);

        /** Replica {@code replica} replaced its state with a peer's snapshot (and replayed its journal). */
        void onStateInstalled(int replica);

        /**
         * Completions that go to the host in {@code host[0]}: the host and its replicas need each
         * other, so the replicas are made first and report to the host made last.
         */
        static Completions toHost(final io.mmx.runtime.host.ProcessHost[] host)
        {
            return new Completions()
            {
                @Override
                public void onApplied(final int origin, final int inc, final long counter, final long reply)
                {
                    host[0].onApplied(origin, inc, counter, reply);
                }

                @Override
                public void onClientApplied(final int replica, final long clientId, final long seq,
                    final byte[] reply)
                {
                    host[0].onClientApplied(replica, clientId, seq, reply);
                }

                @Override
                public void onEraEnded(final int replica, final long slot, final long planId, final int processes)
                {
                    host[0].onEraEnded(replica, slot, planId, processes);
                }

                @Override
                public void onStateInstalled(final int replica)
                {
                    host[0].onStateInstalled(replica);
                }
            };
        }
    }

    private final int id;
    private final int proposalWords;
    private final int maxBatch;
    private final int n;
    private final MmPaxosCore core;
    private final FabricMemory memory;
    private final HostTransport transport;
    private final CoreMessageCodec codec;
    private final UnsafeBuffer sendBuffer;
    private final StateMachine stateMachine;
    private final DuplicateFilter duplicates;
    private final Completions completions;
    private final NodeListener listener;
    private final int[] neighbours;
    private final boolean[] suspected;
    private final UnsafeBuffer commandBuffer;
    /** {@link #commandBuffer}'s bytes as little-endian words, for {@link Commands#payload(long[], int, int, LongBuffer)}. */
    private final LongBuffer commandWords;
    private final int qps;
    /** The core's seed; snapshot transfer ids start from it too. */
    private final long seed;
    private final ReplicaEvents events;
    private MembershipNode membership;
    private int leader = -1;
    private long nowTick;
    private long lastBumps;
    private long lastBumpTick = -1;
    /** {@link MembershipNode#neighbourSuspicionChanges()} when this replica last mirrored the suspicions. */
    private long suspicionChangesSeen = -1;
    private long lastDigest;
    private String digestTextOf;
    private volatile ProcessStatus published;
    private String lastRole = "";
    private boolean recoveryReported;
    /** This replica's state on disk, or null when the node keeps none. */
    private ReplicaDurability durability;
    /** Snapshots to and from peers; null when the node keeps no state. */
    private SnapshotTransfer transfer;
    private SnapshotTransfer.Faults transferFaults = SnapshotTransfer.Faults.NONE;
    /** The last slot the state machine held after the restore: the core delivers these again, and they are skipped. */
    private long restoredThroughSlot = -1;
    /** The last slot the state machine holds (applied, restored or skipped), and whether it missed none. */
    private long stateSlot = -1;
    private boolean stateComplete = true;
    private long nextPublishTick;
    /** The era of the log (era 0 unless the replica keeps state and was cold-started, {@link LogEra}). */
    private LogEra era;
    /** The number of processes the change that ended this era named, or 0 (not said, or learnt from a snapshot). */
    private int nextPlanProcesses;
    private long eraReportTick = -ERA_REPORT_INTERVAL_TICKS;
    private long eraReportAttempt;
    private ReplicaFlaw flaw = ReplicaFlaw.NONE;
    /** Handed over to the next era's replica ({@link #successor}): it no longer touches the state. */
    private boolean handedOver;
    private static final int ERA_REPORT_INTERVAL_TICKS = 250;
    private static final int PUBLISH_INTERVAL_TICKS = 50;
    /** How recent the last completed heartbeat write must be for the status to say the region is served. */
    static final int REGION_SERVED_TICKS = 250;

    ProcessReplica(final int id, final CoreConfig config, final FabricMemory memory, final HostTransport transport,
        final StateMachine stateMachine, final Completions completions, final NodeListener listener, final long seed,
        final int qps, final ReplicaEvents events)
    {
        this(id, config, memory, transport, stateMachine,
            new DuplicateFilter(4 * config.n() + 64, Commands.fragmentBytes(config.proposalWords())), completions,
            listener, seed, qps, events);
    }

    private ProcessReplica(final int id, final CoreConfig config, final FabricMemory memory,
        final HostTransport transport, final StateMachine stateMachine, final DuplicateFilter duplicates,
        final Completions completions, final NodeListener listener, final long seed, final int qps,
        final ReplicaEvents events)
    {
        this.events = events;
        this.id = id;
        this.proposalWords = config.proposalWords();
        this.maxBatch = config.maxBatch();
        this.n = config.n();
        this.memory = memory;
        this.transport = transport;
        this.codec = new CoreMessageCodec(config);
        this.sendBuffer = new UnsafeBuffer(new byte[transport.maxFrameLengthBytes()]);
        this.stateMachine = stateMachine;
        this.duplicates = duplicates;
        this.completions = completions;
        this.listener = listener;
        this.neighbours = config.graph().neighbours(id);
        this.suspected = new boolean[neighbours.length];
        this.commandBuffer = new UnsafeBuffer(new byte[8 * proposalWords]);
        this.commandWords = ByteBuffer.wrap(commandBuffer.byteArray()).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer();
        this.qps = qps;
        this.seed = seed;
        this.core = new MmPaxosCore(id, config, this, seed);
        this.era = LogEra.first(n);
        this.published = new ProcessStatus(id, Role.FOLLOWER, true, false, -1, 0, 0, config.quorumSize(), -1, -1, qps, 0, 0, false, -1, null);
    }

    /**
     * This process's replica in the era after the plan change at log slot {@code cut} ended
     * {@code previous}'s: a new core on the new plan ({@code config}) over fresh acceptor state
     * ({@code memory}), carrying the state machine, the duplicate filter and the state directory. Its
     * state is the state at the cut if {@code previous} applied exactly through it and missed nothing;
     * otherwise (it had not applied the change when its host switched) it takes a peer's snapshot of
     * that state (a replica that keeps no state is told of the gap). From here on {@code previous}
     * leaves the state alone: it may still serve its era's slots to its peers.
     */
    static ProcessReplica successor(final ProcessReplica previous, final long cut, final CoreConfig config,
        final FabricMemory memory, final HostTransport transport, final Completions completions,
        final NodeListener listener, final long seed, final int qps, final ReplicaEvents events)
    {
        if (config.proposalWords() != previous.proposalWords || config.maxBatch() != previous.maxBatch)
        {
            throw new IllegalStateException("the new plan's nodes must keep the command width and batch (" +
                previous.proposalWords + " words x " + previous.maxBatch + "): log indexes and the journal depend on them");
        }
        final ProcessReplica r = new ProcessReplica(previous.id, config, memory, transport, previous.stateMachine,
            previous.duplicates, completions, listener, seed, qps, events);
        previous.handedOver = true;
        r.flaw = previous.flaw;
        if (previous.stateSlot > cut && previous.flaw != ReplicaFlaw.APPLIES_PAST_PLAN_CHANGE)
        {
            throw new IllegalStateException("process " + previous.id + " holds state through slot " +
                previous.stateSlot + ", past the plan change at slot " + cut + " that ended its era: a bug");
        }
        final boolean holds = previous.flaw == ReplicaFlaw.SWITCH_SKIPS_STATE ||
            previous.stateComplete && previous.stateSlot >= cut;
        r.durability = previous.durability;
        r.transferFaults = previous.transferFaults;
        if (r.durability != null)
        {
            r.durability.eraMark(r);
        }
        r.era = previous.durability == null ? LogEra.after(null, config.n(), previous.era, cut, holds ? cut : -1) :
            previous.durability.changedEra(config.n(), previous.era, cut, holds ? cut : -1);
        r.restoredThroughSlot = cut;
        r.stateSlot = Math.max(previous.stateSlot, cut);
        r.stateComplete = previous.stateComplete;
        if (previous.durability != null)
        {
            r.transfer = new SnapshotTransfer(r.id, r.n, transport, r.durability, r.maxBatch, r.transferFaults, seed,
                r::peerAlive);
        }
        if (!holds)
        {
            EventLog.log(EventLog.Level.INFO, "era_joined_behind", r.id, "era " + r.era.era() + " starts from the " +
                "state at slot " + cut + ", which this replica does not hold (its state is through slot " +
                previous.stateSlot + "): it takes a peer's snapshot");
            if (previous.stateSlot < cut)
            {
                final long from = Math.max(0, previous.stateSlot + 1);
                r.gap(from * r.maxBatch, cut * r.maxBatch + r.maxBatch - 1);
            }
            else if (r.transfer != null)
            {
                r.transfer.want(cut, -1, 0); // through the cut, but missing earlier slots: told of them already
            }
        }
        return r;
    }

    /** True if the command was applied in this replica's state (by it, or in a snapshot it installed). */
    boolean applied(final int origin, final int incarnation, final long counter)
    {
        return duplicates.seen(origin, incarnation, counter);
    }

    /** False while the state waits for a peer's snapshot (see {@link io.mmx.runtime.host.HostedProcess#stateReady}). */
    boolean stateReady()
    {
        return transfer == null || !transfer.receiving();
    }

    /** Whether membership holds process {@code p} alive (neither suspected nor dead); true before it runs. */
    private boolean peerAlive(final int p)
    {
        return membership == null || membership.status(p) == io.mmx.membership.swim.MemberStatus.ALIVE;
    }

    /** The log slot a plan change ended this replica's era at, or -1. */
    @Override
    public long eraEndedAt()
    {
        return era.endedAt();
    }

    /** The id of the plan the era after this one runs (once {@link #eraEndedAt()} is set). */
    @Override
    public long nextPlanId()
    {
        return era.nextPlan();
    }

    int id()
    {
        return id;
    }

    StateMachine stateMachine()
    {
        return stateMachine;
    }

    MmPaxosCore core()
    {
        return core;
    }

    int leader()
    {
        return leader;
    }

    /** This process's event lines, takeover count and blocked time. */
    ReplicaEvents events()
    {
        return events;
    }

    /** Outside clients' sessions at this replica (agent thread only). */
    ClientSessions clientSessions()
    {
        return duplicates.clients();
    }

    /** A deliberate bug the host simulation selects to test its checker; set before {@link #start}. */
    void flaw(final ReplicaFlaw flaw)
    {
        this.flaw = flaw;
        duplicates.flaw(flaw);
    }

    /** Faults a test injects into the snapshot chunks this replica sends; set before {@link #restoreFrom}. */
    void transferFaults(final SnapshotTransfer.Faults faults)
    {
        this.transferFaults = faults;
    }

    /** Snapshot transfers to and from peers; null when the node keeps no state. */
    SnapshotTransfer transfer()
    {
        return transfer;
    }

    ProcessStatus status()
    {
        return published;
    }

    /**
     * Keeps this replica's state on disk: loads the newest snapshot and replays the journal now,
     * before the core starts. Call at most once, before {@link #start}.
     */
    void restoreFrom(final ReplicaDurability durability)
    {
        restoreFrom(durability, false, false);
    }

    /**
     * As {@link #restoreFrom(ReplicaDurability)}; {@code coldStart}: every region was lost, this
     * replica begins the next era from its state (reporting its position, {@link LogEra}), and
     * {@code majority}: that era may start once a majority has reported.
     */
    void restoreFrom(final ReplicaDurability durability, final boolean coldStart, final boolean majority)
    {
        this.durability = durability;
        durability.eraMark(this);
        this.transfer = new SnapshotTransfer(id, n, transport, durability, maxBatch, transferFaults, seed,
            this::peerAlive);
        this.era = durability.era(n);
        // The node's journal may hold a later era's slots, applied by co-hosted replicas: not this one's to replay.
        this.restoredThroughSlot = durability.restore(stateMachine, duplicates, replayer(false),
            (era.era() + 1) * LogEra.SLOTS - 1);
        stateSlot = Math.max(stateSlot, restoredThroughSlot);
        if (!coldStart && era.started() && era.era() > 0 && era.ownPosition() != era.basePosition() &&
            durability.restoredSnapshotSlot() < era.earliestState())
        {
            // The era started from a state this replica did not hold, and no snapshot of the era replaced
            // it yet: the journal replayed era slots onto the wrong state.
            stateComplete = false;
            transfer.want(Math.max(restoredThroughSlot, era.earliestState()), leader, nowTick);
        }
        if (coldStart)
        {
            era = durability.nextEra(n, era, stateComplete ? restoredThroughSlot : -1, majority);
            EventLog.log(EventLog.Level.INFO, "cold_start", id, "cold start, era " + era.era() + ": state through " +
                "slot " + era.ownPosition() + "; the era starts once " + (majority ? "a majority" : "every process") +
                " has reported");
        }
    }

    /**
     * Makes this replica a process that joins era {@code joinEra}, begun by a plan change, with no
     * state: new in the plan, or on a host that replaced a lost one. It takes the era's state from a
     * peer's snapshot, and journals what is decided meanwhile. A replica already in that era or a
     * later one (a restart) is left as it is. Call after {@link #restoreFrom}, before {@link #start}.
     */
    void joinEra(final int joinEra)
    {
        if (durability == null)
        {
            throw new IllegalStateException("process " + id + " joins era " + joinEra + " by a peer's snapshot: " +
                "it needs a state directory (--state-dir)");
        }
        if (era.era() >= joinEra)
        {
            return;
        }
        era = durability.joinedEra(n, joinEra);
        stateComplete = false;
        EventLog.log(EventLog.Level.INFO, "era_joined", id, "joins era " + joinEra + " with no state: it takes a " +
            "peer's snapshot");
        transfer.want(era.earliestState(), leader, nowTick);
    }

    /**
     * This replica's era report to propose now (until the era has started, every
     * {@value #ERA_REPORT_INTERVAL_TICKS} ticks), or null.
     */
    long[] eraReportDue(final long tick)
    {
        if (era.started() || leader < 0 || tick - eraReportTick < ERA_REPORT_INTERVAL_TICKS)
        {
            return null;
        }
        eraReportTick = tick;
        final long[] words = new long[proposalWords];
        Commands.encodeEraReport(words, 0, proposalWords, id, era.era(), ++eraReportAttempt, era.ownPosition(),
            era.majorityAllowedHere());
        return words;
    }

    /**
     * Replays journaled slots: applied as if decided now; gaps are gaps. {@code live}: the slots
     * were decided while this run waited for a peer's snapshot, so their submitters wait for them
     * and are completed now (at a restart, the journal's slots are an earlier run's: no one waits).
     */
    private ReplicaDurability.Replayer replayer(final boolean live)
    {
        return new ReplicaDurability.Replayer()
        {
            @Override
            public int apply(final long slot, final long[] value)
            {
                // Journaled before this replica knew a plan change ended its era there (it learnt so from a snapshot).
                return era.pastEnd(slot) ? 0 : applySlot(slot, value, live);
            }

            @Override
            public void gap(final long fromIndex, final long toIndex)
            {
                ProcessReplica.this.gap(fromIndex, toIndex);
            }
        };
    }

    /** A snapshot transfer frame addressed to this process. */
    void onTransferFrame(final int type, final int src, final org.agrona.DirectBuffer buffer, final int offset,
        final int length)
    {
        if (transfer != null && !handedOver)
        {
            // A replica serves its state only once its era has started: before, it is not the era's state.
            transfer.onFrame(type, src, buffer, offset, length, nowTick, stateMachine, duplicates, stateSlot,
                stateComplete && era.started(), this::install);
        }
    }

    /** Replaces the state with a peer's snapshot and replays what was journaled while it travelled. */
    private boolean install(final io.mmx.runtime.snapshot.SnapshotStore.Snapshot snapshot)
    {
        final long at = (snapshot.logIndex() + 1) / maxBatch - 1;
        if (at < era.earliestState())
        {
            return false; // a peer still in an older era (or before a plan change's cut): not this era's state
        }
        if (LogEra.eraOf(at) > era.era())
        {
            throw new IllegalStateException("process " + id + " is in era " + era.era() + " but its peer's " +
                "snapshot is of era " + LogEra.eraOf(at) + ": the cluster was cold-started since this process " +
                "last ran; restart it with --cold-start");
        }
        try
        {
            stateComplete = true;
            era.startedBefore(at);
            final long last = durability.install(snapshot, stateMachine, duplicates, this::eraEndedInSnapshot,
                replayer(true));
            if (era.era() > 0)
            {
                durability.forgetOlderThan(snapshot);
            }
            restoredThroughSlot = Math.max(restoredThroughSlot, Math.max(at, last));
            stateSlot = Math.max(stateSlot, restoredThroughSlot);
            nextPublishTick = nowTick;
            completions.onStateInstalled(id);
            return stateComplete;
        }
        catch (final java.io.IOException ex)
        {
            stateComplete = false;
            EventLog.log(EventLog.Level.WARN, "snapshot_load_failed", id, "the snapshot received could not be loaded: " +
                ex.getMessage() + "; asking again");
            return false;
        }
    }

    /** Takes a snapshot now (a clean stop); false when there is nothing to keep or it failed (reported). */
    boolean snapshotNow()
    {
        return durability != null && era.started() && !handedOver && durability.snapshot(stateMachine, duplicates);
    }

    /** Releases the state directory. */
    void closeState()
    {
        if (transfer != null)
        {
            transfer.close();
        }
        if (durability != null && !handedOver)
        {
            durability.close(); // a handed-over replica's state directory is its successor's
        }
    }

    void start(final MembershipNode membership, final long nowTick)
    {
        this.membership = membership;
        this.nowTick = nowTick;
        core.start(nowTick);
    }

    /** One tick: membership's view into core events, then the core's timers. */
    void onTick(final long tick)
    {
        nowTick = tick;
        events.onTick(tick);
        final long bumps = memory.heartbeatBumps();
        if (bumps > lastBumps)
        {
            lastBumps = bumps;
            lastBumpTick = tick;
        }
        if (!recoveryReported && core.ready())
        {
            // A restart: the core resumes after the region's decided prefix, which this fresh
            // state machine never saw. Say so, rather than let it think it holds the whole log.
            recoveryReported = true;
            final long recovered = era.base() + core.appliedThrough();
            events.onRecovered(core.appliedThrough() < 0 ? -1 : recovered, restoredThroughSlot, tick);
            // The slots between an earlier era and this one's slot 0 are no one's: not a gap.
            final long from = Math.max(restoredThroughSlot + 1, era.base());
            if (core.appliedThrough() >= 0 && recovered >= from)
            {
                if (durability != null)
                {
                    durability.gap(from, recovered);
                }
                gap(from * maxBatch, recovered * maxBatch + maxBatch - 1);
            }
        }
        // Asking membership about every neighbour on every tick was an eighth of an idle host's time.
        final long suspicionChanges = membership.neighbourSuspicionChanges();
        for (int i = 0; suspicionChanges != suspicionChangesSeen && i < neighbours.length; i++)
        {
            final boolean s = membership.isNeighbourSuspected(neighbours[i]);
            if (s != suspected[i])
            {
                suspected[i] = s;
                core.onSuspicion(neighbours[i], s, tick);
                // A takeover is executing for a suspected neighbour; a leader executes its neighbours anyway.
                events.onSuspicion(i, s, s && core.executesFor(neighbours[i]), tick);
                nextPublishTick = tick;
            }
        }
        suspicionChangesSeen = suspicionChanges;
        final boolean changed = syncLeader(tick);
        core.onTick(tick);
        events.onMembership(membership, tick);
        if (transfer != null)
        {
            transfer.onTick(tick, leader);
        }
        // The core reports only its own changes; leader and membership views move on their own.
        if (changed || tick >= nextPublishTick)
        {
            nextPublishTick = tick + PUBLISH_INTERVAL_TICKS;
            publish(core.status());
        }
    }

    /**
     * Hands membership's leader to the core if it changed. The agent calls this after every poll, not
     * only each tick: after a failover the new leader's phase 1, and so the next commit, waits on it.
     *
     * @return true if the leader changed.
     */
    boolean syncLeader(final long tick)
    {
        if (membership == null)
        {
            return false;
        }
        final int l = membership.leaderId();
        if (l == leader)
        {
            return false;
        }
        events.onLeaderChange(leader, l, tick);
        leader = l;
        core.onLeaderChange(l, tick);
        nextPublishTick = tick;
        return true;
    }

    void onMessage(final Message m, final long tick)
    {
        nowTick = tick;
        core.onMessage(m, tick);
    }

    /** Polls this process's fabric; completions go to the core. */
    int pollMemory()
    {
        return memory.poll(this);
    }

    /** True while memory operations are outstanding or completions wait for the core. */
    boolean memoryPending()
    {
        return memory.pending();
    }

    @Override
    public void onMemoryCompletion(final long opId, final MemoryStatus status, final long value, final long[] data)
    {
        core.onMemoryCompletion(opId, status, value, data, nowTick);
    }

    @Override
    public void send(final int to, final Message message)
    {
        final int length = codec.encode(message, sendBuffer, 0, sendBuffer.capacity());
        // A dropped send is counted by the transport, and the core retransmits; NodeContext sizes frames for
        // the largest message, so encoding cannot fail.
        transport.send(id, to, CoreMessageCodec.frameType(message), sendBuffer, 0, length);
    }

    @Override
    public void sendToHost(final int to, final Message message)
    {
        final int length = codec.encode(message, sendBuffer, 0, sendBuffer.capacity());
        transport.sendToHostOf(id, to, CoreMessageCodec.frameType(message), sendBuffer, 0, length);
    }

    @Override
    public void broadcast(final Message message)
    {
        final int length = codec.encode(message, sendBuffer, 0, sendBuffer.capacity());
        transport.broadcast(id, CoreMessageCodec.frameType(message), sendBuffer, 0, length);
    }

    @Override
    public void memory(final long opId, final MemoryOpKind kind, final int region, final int offsetWords,
        final int lengthWords, final long expected, final long value, final long[] payload)
    {
        if (durability != null && kind == MemoryOpKind.WRITE && region == id && offsetWords == RegionLayout.DECIDED_THROUGH_WORD)
        {
            // A restart resumes after the mark: the journal must hold every slot before it does.
            durability.flushJournal();
        }
        memory.submit(opId, kind, region, offsetWords, lengthWords, expected, value, payload);
    }

    @Override
    public void decided(final long eraSlot, final long[] value)
    {
        final long slot = era.base() + eraSlot;
        if (handedOver || era.pastEnd(slot) && flaw != ReplicaFlaw.APPLIES_PAST_PLAN_CHANGE)
        {
            return; // a plan change ended the era before this slot: ignored by every replica alike (LogEra)
        }
        if (slot <= restoredThroughSlot)
        {
            return; // held already: restored from disk, or in a peer's snapshot (StateMachine.onSnapshotLoaded)
        }
        if (durability != null)
        {
            durability.beforeApply(slot, value);
        }
        if (transfer != null && transfer.receiving())
        {
            // Journaled: applied after the snapshot it waits for, from the journal. A plan change still ends
            // the era here: the host must not wait for this replica to apply it.
            noteEraEnd(slot, value);
            return;
        }
        final int applied = applySlot(slot, value, true);
        stateSlot = slot;
        if (durability != null && era.started())
        {
            durability.afterApply(applied, stateMachine, duplicates);
        }
    }

    /** Applies a decided slot's commands (first copies only); {@code live}: complete local submitters. */
    private int applySlot(final long slot, final long[] value, final boolean live)
    {
        int applied = 0;
        boolean endsHere = false;
        for (int at = 0, i = 0; at + proposalWords <= value.length; at += proposalWords, i++)
        {
            if (Commands.isPlanChange(value, at))
            {
                endsHere |= applyPlanChange(slot, i, value, at, live);
                continue;
            }
            if (Commands.isEraReport(value, at))
            {
                if (era.onReport(Commands.origin(value, at), Commands.incarnation(value, at),
                    Commands.reportPosition(value, at), Commands.reportAllowsMajority(value, at), slot))
                {
                    onEraStart(slot);
                }
                continue;
            }
            if (!era.started())
            {
                continue; // the preamble of a cold start: nothing but reports counts (LogEra)
            }
            final int length = Commands.length(value, at, proposalWords);
            if (Commands.isClientFragment(value, at))
            {
                applied += length < 0 ? 0 : applyClientFragment(slot * maxBatch + i, value, at, length, live);
                continue;
            }
            final boolean probe = Commands.isProbe(value, at);
            if (length < 0 && !probe)
            {
                continue;
            }
            final int origin = Commands.origin(value, at);
            final int incarnation = Commands.incarnation(value, at);
            final long counter = Commands.counter(value, at);
            if (!duplicates.firstCopy(origin, incarnation, counter))
            {
                continue;
            }
            if (probe)
            {
                // Ordered and decided like a command, never applied: its reply is where it committed.
                if (live && origin == id)
                {
                    completions.onApplied(origin, incarnation, counter, slot * maxBatch + i);
                }
                continue;
            }
            Commands.payload(value, at, proposalWords, commandWords);
            final long reply = stateMachine.apply(slot * maxBatch + i, origin, commandBuffer, 0, length);
            applied++;
            if (live && origin == id)
            {
                completions.onApplied(origin, incarnation, counter, reply);
            }
        }
        if (endsHere && live)
        {
            eraEnded(slot, "");
        }
        return applied;
    }

    /**
     * The peer's snapshot says a plan change ended the era at {@code slot}: this replica never applied
     * that slot, so it learns the end here, before the journal is replayed (what it journaled past
     * the end is ignored).
     */
    private void eraEndedInSnapshot(final long slot, final long planId)
    {
        if (LogEra.eraOf(slot) == era.era() && era.onPlanChange(slot, planId))
        {
            eraEnded(slot, ", says the peer's snapshot this replica installed");
        }
    }

    /** True if the plan change at {@code at}, decided at {@code slot}, names this era and is the first to end it. */
    /** The era of this replica's log ({@link LogEra}): a plan change names the era it ends by this number. */
    int logEra()
    {
        return era.era();
    }

    private boolean endsEra(final long slot, final long[] value, final int at)
    {
        if (Commands.changedEra(value, at) == era.era() && era.onPlanChange(slot, Commands.changedPlanId(value, at)))
        {
            nextPlanProcesses = Commands.changedPlanProcesses(value, at);
            return true;
        }
        return false;
    }

    /** The era ended at {@code slot} ({@code how} says how this replica learnt it): logged and told to the host. */
    private void eraEnded(final long slot, final String how)
    {
        EventLog.log(EventLog.Level.INFO, "era_ended", id, "a plan change ended era " + era.era() + " at slot " + slot +
            how + "; era " + (era.era() + 1) + " runs plan " + Long.toHexString(era.nextPlan()));
        completions.onEraEnded(id, slot, era.nextPlan(), nextPlanProcesses);
    }

    /** A replica waiting for a snapshot learns from a decided slot only whether a plan change ends its era there. */
    private void noteEraEnd(final long slot, final long[] value)
    {
        for (int at = 0; at + proposalWords <= value.length; at += proposalWords)
        {
            if (Commands.isPlanChange(value, at) && endsEra(slot, value, at))
            {
                eraEnded(slot, " while this replica waits for a snapshot");
                return;
            }
        }
    }

    /**
     * A decided plan change: the first copy that names this era, once the era started, ends it at
     * this slot (the rest of the slot is still applied). Its submitter's reply is its log index, or
     * -1 when it ended nothing (another change came first, or it named an era that was over).
     *
     * @return true if it ended the era.
     */
    private boolean applyPlanChange(final long slot, final int i, final long[] value, final int at,
        final boolean live)
    {
        final int origin = Commands.origin(value, at);
        final int incarnation = Commands.incarnation(value, at);
        final long counter = Commands.counter(value, at);
        if (!era.started() || !duplicates.firstCopy(origin, incarnation, counter))
        {
            return false;
        }
        final boolean ends = endsEra(slot, value, at);
        if (live && origin == id)
        {
            completions.onApplied(origin, incarnation, counter, ends ? slot * maxBatch + i : -1);
        }
        return ends;
    }

    /** The era starts after this slot: a replica not holding exactly the state at its base takes a peer's. */
    private void onEraStart(final long slot)
    {
        final boolean here = stateComplete && era.ownPosition() == era.basePosition();
        EventLog.log(EventLog.Level.INFO, "era_started", id, "era " + era.era() + " started at slot " + slot +
            " from the state through slot " + era.basePosition() + (here ? "; this replica holds it" :
            "; this replica's state is through slot " + era.ownPosition() + ": it takes a peer's snapshot"));
        if (!here)
        {
            stateComplete = false;
            stateSlot = Math.max(stateSlot, slot);
            transfer.want(slot, leader, nowTick);
        }
    }

    /** Takes a client's fragment; applies the command when it is whole. Returns the commands applied, 0 or 1. */
    private int applyClientFragment(final long logIndex, final long[] value, final int at, final int length,
        final boolean live)
    {
        final long clientId = Commands.clientId(value, at);
        final long seq = Commands.clientSeq(value, at);
        Commands.payload(value, at, proposalWords, commandWords);
        final byte[] command = duplicates.clients().onFragment(clientId, seq, Commands.fragment(value, at),
            commandBuffer, length);
        if (command == null)
        {
            return 0;
        }
        final byte[] reply = stateMachine.applyClientCommand(logIndex, clientId, new UnsafeBuffer(command), 0,
            command.length);
        if (reply == null || reply.length > io.mmx.runtime.client.ClientWire.MAX_REPLY_BYTES)
        {
            throw new IllegalStateException(stateMachine.getClass().getName() + " replied " +
                (reply == null ? "null" : reply.length + " bytes") + " to a client; replies are 0.." +
                io.mmx.runtime.client.ClientWire.MAX_REPLY_BYTES + " bytes");
        }
        duplicates.clients().applied(clientId, seq, reply);
        if (live)
        {
            completions.onClientApplied(id, clientId, seq, reply);
        }
        return 1;
    }

    @Override
    public void skipped(final long fromEraSlot, final long toEraSlot)
    {
        final long fromSlot = era.base() + fromEraSlot;
        // Slots past a plan change's end are no one's: not missed.
        final long toSlot = era.endedAt() >= 0 ? Math.min(era.endedAt(), era.base() + toEraSlot) : era.base() + toEraSlot;
        if (handedOver)
        {
            return;
        }
        // Slots the replica restored from disk are not missing, whatever the core could still find.
        final long from = Math.max(fromSlot, restoredThroughSlot + 1);
        if (from > toSlot)
        {
            return;
        }
        if (durability != null)
        {
            durability.gap(from, toSlot);
        }
        gap(from * maxBatch, toSlot * maxBatch + maxBatch - 1);
    }

    @Override
    public void status(final Status status)
    {
        publish(status);
    }

    /** Refreshes the published status (also between core status changes: membership moves too). */
    void publish(final Status s)
    {
        final boolean recovering = !core.ready();
        int suspects = 0;
        for (final boolean b : suspected)
        {
            suspects += b ? 1 : 0;
        }
        final ProcessStatus ps = new ProcessStatus(id, s.role, recovering, !recovering && s.blocked(), leader,
            s.ballot, s.reachableAcceptors, s.neededAcceptors, s.appliedThrough, s.knownDecidedThrough, qps, suspects, deadMembers(),
            lastBumpTick >= 0 && nowTick - lastBumpTick <= REGION_SERVED_TICKS,
            stateSlot < 0 ? -1 : stateSlot * maxBatch + maxBatch - 1, digestText());
        published = ps;
        events.onStatus(ps, s, core.proposals(), core.retransmissions(), nowTick);
        if (!ps.shownRole().equals(lastRole))
        {
            lastRole = ps.shownRole();
            listener.onRoleChange(ps);
        }
    }

    private String digestText()
    {
        final java.util.OptionalLong d = stateComplete ? stateMachine.stateDigest() : java.util.OptionalLong.empty();
        if (!d.isPresent())
        {
            return null;
        }
        // Published every 50 ticks by every process, mostly unchanged: format only a new digest.
        if (digestTextOf == null || d.getAsLong() != lastDigest)
        {
            lastDigest = d.getAsLong();
            // Not String.format: a service whose digest moves with every command (a count) formats at
            // every publish, and at n = 1024 the formatter was 3 % of the node threads' samples.
            final char[] hex = new char[16];
            long v = lastDigest;
            for (int i = 15; i >= 0; i--, v >>>= 4)
            {
                hex[i] = Character.forDigit((int)(v & 15), 16);
            }
            digestTextOf = new String(hex);
        }
        return digestTextOf;
    }

    /** Tells the state machine it missed commands; from then on its digest is not comparable. */
    private void gap(final long fromIndex, final long toIndex)
    {
        stateComplete = false;
        final long toSlot = (toIndex + 1) / maxBatch - 1;
        stateSlot = Math.max(stateSlot, toSlot);
        stateMachine.onGap(fromIndex, toIndex);
        if (transfer != null)
        {
            transfer.want(toSlot, leader, nowTick);
        }
    }

    private int deadMembers()
    {
        return membership == null ? 0 : membership.deadCount();
    }

    /** The process's frame buffer for commands forwarded to the leader. */
    boolean forward(final int leaderId, final long[] words, final int offset)
    {
        return forward(leaderId, words, offset, 1);
    }

    /** Forwards {@code count} whole commands in one frame (at most {@link #forwardCapacity()}). */
    boolean forward(final int leaderId, final long[] words, final int offset, final int count)
    {
        for (int w = 0; w < count * proposalWords; w++)
        {
            sendBuffer.putLong(8 * w, words[offset + w], java.nio.ByteOrder.LITTLE_ENDIAN);
        }
        return transport.send(id, leaderId, NodeFrames.FORWARD, sendBuffer, 0, 8 * proposalWords * count);
    }

    /** Commands one forward frame carries. */
    int forwardCapacity()
    {
        return Math.max(1, Math.min(64, (sendBuffer.capacity() - io.mmx.aeron.frame.FrameHeader.OVERHEAD_LENGTH) /
            (8 * proposalWords)));
    }

}
