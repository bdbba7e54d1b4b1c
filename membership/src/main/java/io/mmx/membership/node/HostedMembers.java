package io.mmx.membership.node;

import io.mmx.aeron.frame.FrameHeader;
import io.mmx.membership.MembershipConfig;
import io.mmx.membership.MembershipListener;
import io.mmx.membership.MembershipNode;
import io.mmx.membership.Outbox;
import io.mmx.membership.neighbour.FabricHeartbeats;
import io.mmx.membership.neighbour.HostLiveness;
import io.mmx.membership.wire.MessageType;
import org.agrona.DirectBuffer;

/**
 * The membership nodes of every process one host runs, without I/O: frames are handed in, time is
 * handed in as elapsed nanoseconds and turned into ticks, messages leave through an {@link Outbox}.
 * A host's single thread calls every method.
 *
 * <p>What counts as work for an idle strategy: nothing here. Membership's frames, heartbeats and
 * ticks are periodic and their deadlines are many ticks long; counted, they would reset the caller's
 * idle strategy several times a tick, and an idle host would never park.
 */
public final class HostedMembers
{
    /** Shortest tick the nodes take. */
    public static final long MIN_TICK_NS = 100_000;

    private final long tickNs;
    private final int[] hosted;
    private final MembershipNode[] nodeByProcess;
    /** The heartbeats this object polls: those the host does not poll itself ({@link FabricHeartbeats#polledByHost()}). */
    private final FabricHeartbeats[] polledHere;
    private long nowTick;
    /** When each hosted node was last ticked, same order as {@code hosted}. */
    private final long[] tickedAt;
    /**
     * {@link MembershipNode#needsEveryTick()} of each hosted node after its last tick: what it depends on
     * (leading, watching the leader) changes only in a tick, and asking each node on every wake cost a
     * cache miss per process.
     */
    private final boolean[] everyTick;
    /** {@link MembershipNode#neighbourSuspicionChanges()} of each hosted node after its last tick. */
    private final long[] suspicionChanges;
    /** Whether each hosted node's last tick changed a neighbour's suspicion. */
    private final boolean[] suspicionsMoved;

    /**
     * @param config       membership configuration.
     * @param processes    processes of the plan.
     * @param hosted       ids of the processes this host runs.
     * @param planDigest   the plan's content hash.
     * @param neighboursOf plan neighbours of each hosted process, same order as {@code hosted}.
     * @param seed         base seed; each node gets seed ^ its id.
     * @param tickNs       nanoseconds per tick, at least {@link #MIN_TICK_NS}.
     * @param outbox       where the nodes' messages go.
     * @param listener     events of every hosted node, neighbour suspicions included.
     * @param heartbeatsOf heartbeats of each hosted process, same order as {@code hosted} (an entry may be
     *                     null: that process is not monitored through memory), or null for none.
     * @param hostOf       the host (endpoint) of every process: processes of one host stop together.
     * @param liveness     what the operating system says of other processes' hosts, or {@link HostLiveness#NONE}.
     */
    public HostedMembers(
        final MembershipConfig config,
        final int processes,
        final int[] hosted,
        final io.mmx.planner.plan.PlanDigest planDigest,
        final int[][] neighboursOf,
        final long seed,
        final long tickNs,
        final Outbox outbox,
        final MembershipListener listener,
        final FabricHeartbeats[] heartbeatsOf,
        final int[] hostOf,
        final HostLiveness liveness)
    {
        if (tickNs < MIN_TICK_NS)
        {
            throw new IllegalArgumentException("tickNs must be at least " + MIN_TICK_NS + " (100 µs), got " + tickNs);
        }
        if (heartbeatsOf != null && heartbeatsOf.length != hosted.length)
        {
            throw new IllegalArgumentException("heartbeatsOf has " + heartbeatsOf.length + " entries but " +
                hosted.length + " processes are hosted: pass one per hosted process, in the same order");
        }
        if (config.concludedFor() != processes)
        {
            config.conclude(processes);
        }
        this.tickNs = tickNs;
        this.hosted = hosted.clone();
        this.tickedAt = new long[hosted.length];
        this.everyTick = new boolean[hosted.length];
        this.suspicionChanges = new long[hosted.length];
        this.suspicionsMoved = new boolean[hosted.length];
        final java.util.List<FabricHeartbeats> polled = new java.util.ArrayList<>();
        nodeByProcess = new MembershipNode[processes];
        for (int i = 0; i < hosted.length; i++)
        {
            final int id = hosted[i];
            final FabricHeartbeats hb = heartbeatsOf != null ? heartbeatsOf[i] : null;
            if (hb != null && hb.selfId() != id)
            {
                throw new IllegalArgumentException("heartbeatsOf[" + i + "] acts for process " + hb.selfId() +
                    " but hosted[" + i + "] is process " + id + ": pass each process's own fabric");
            }
            if (hb != null && !hb.isPolledByHost())
            {
                polled.add(hb);
            }
            nodeByProcess[id] = new MembershipNode(config, processes, id, planDigest, neighboursOf[i], seed ^ id,
                outbox, listener, hb, hb, 0, hostOf, liveness);
        }
        // Visiting hundreds of heartbeats only to find that the host polls them cost a cache miss each, twice a wake.
        polledHere = polled.toArray(new FabricHeartbeats[0]);
    }

    /**
     * Hands a received frame to the hosted node it is for, or to every hosted node but its sender
     * when {@code dst} is {@link FrameHeader#ALL_LOCAL}.
     *
     * @return false if {@code type} is not a membership message (the frame is the caller's).
     */
    public boolean onFrame(final int type, final int src, final int dst, final DirectBuffer buffer,
        final int offset, final int length)
    {
        if (!MessageType.isMembership(type))
        {
            return false;
        }
        if (dst == FrameHeader.ALL_LOCAL)
        {
            for (final int id : hosted)
            {
                if (id != src)
                {
                    nodeByProcess[id].onMessage(nowTick, src, type, buffer, offset, length);
                }
            }
        }
        else if (dst >= 0 && dst < nodeByProcess.length && nodeByProcess[dst] != null)
        {
            nodeByProcess[dst].onMessage(nowTick, src, type, buffer, offset, length);
        }
        return true;
    }

    /**
     * A protocol (not membership) message from {@code src} arrived for hosted process {@code dst}: see
     * {@link MembershipNode#onProtocolContact}. A process's message to itself is no contact.
     */
    public void onProtocolContact(final int src, final int dst)
    {
        if (src != dst && dst >= 0 && dst < nodeByProcess.length && nodeByProcess[dst] != null)
        {
            nodeByProcess[dst].onProtocolContact(nowTick);
        }
    }

    /**
     * Polls the heartbeats, then advances every hosted node to the tick {@code elapsedNs} reaches (and
     * polls again: memory on shm completes at once, so the tick's heartbeat reads are taken now).
     *
     * @param elapsedNs time since the host started.
     * @return true if a tick passed.
     */
    public boolean advance(final long elapsedNs)
    {
        return advance(elapsedNs, false);
    }

    /**
     * As {@link #advance(long)}; on a {@code quiet} host (no work for a while) a node whose tick is
     * not time-critical ({@link MembershipNode#needsEveryTick()}) is ticked only once
     * {@link #QUIET_TICK_SPACING} ticks passed since its last tick. Its timers (probe timeouts,
     * heartbeat intervals, suspicion deadlines: 50 ticks and more) then run up to that much late; the
     * host's wake-ups no longer visit every process's state, which with hundreds of idle processes per
     * host was most of its CPU (cache misses, not instructions).
     *
     * @param elapsedNs time since the host started.
     * @param quiet     whether the host may thin the ticks of nodes that are not time-critical.
     * @return true if a tick passed.
     */
    public boolean advance(final long elapsedNs, final boolean quiet)
    {
        pollHeartbeats();
        final long tick = elapsedNs / tickNs;
        if (tick <= nowTick)
        {
            return false;
        }
        nowTick = tick;
        for (int i = 0; i < hosted.length; i++)
        {
            if (!quiet || tick - tickedAt[i] >= QUIET_TICK_SPACING || everyTick[i])
            {
                final MembershipNode node = nodeByProcess[hosted[i]];
                tickedAt[i] = tick;
                node.tick(tick);
                everyTick[i] = node.needsEveryTick();
                final long changes = node.neighbourSuspicionChanges();
                suspicionsMoved[i] = changes != suspicionChanges[i];
                suspicionChanges[i] = changes;
            }
        }
        pollHeartbeats();
        return true;
    }

    /**
     * Whether the last {@link #advance(long, boolean)} ticked the {@code index}-th hosted process: the host
     * ticks that process's replica alike, so both run on the same thinned ticks.
     *
     * @param index position in {@code hosted}, as given to the constructor.
     * @return true if its node was ticked at {@link #nowTick()}.
     */
    public boolean tickedNow(final int index)
    {
        return tickedAt[index] == nowTick;
    }

    /**
     * @param index position in {@code hosted}.
     * @return whether that node's tick is time-critical ({@link MembershipNode#needsEveryTick()}) as of its last tick.
     */
    public boolean needsEveryTick(final int index)
    {
        return everyTick[index];
    }

    /**
     * @param index position in {@code hosted}.
     * @return whether that node's last tick changed a neighbour's suspicion.
     */
    public boolean suspicionsMoved(final int index)
    {
        return suspicionsMoved[index];
    }

    /** Ticks between two ticks of a node that is not time-critical on a quiet host (see {@link #advance(long, boolean)}). */
    public static final int QUIET_TICK_SPACING = 12;

    private void pollHeartbeats()
    {
        for (final FabricHeartbeats hb : polledHere)
        {
            hb.poll();
        }
    }

    /** The era the hosted members serve ended: none declares its leader stopped any more ({@link MembershipNode#eraEnded}). */
    public void eraEnded()
    {
        for (final int id : hosted)
        {
            nodeByProcess[id].eraEnded();
        }
    }

    /**
     * @param processId hosted here.
     * @return its membership node.
     */
    public MembershipNode node(final int processId)
    {
        return nodeByProcess[processId];
    }

    /** @return the current tick. */
    public long nowTick()
    {
        return nowTick;
    }
}
