package io.mmx.membership.node;

import io.mmx.aeron.frame.FrameHeader;
import io.mmx.aeron.transport.AeronTransport;
import io.mmx.aeron.transport.FrameHandler;
import io.mmx.membership.MembershipConfig;
import io.mmx.membership.MembershipListener;
import io.mmx.membership.MembershipNode;
import io.mmx.membership.neighbour.FabricHeartbeats;
import io.mmx.membership.neighbour.HostLiveness;
import io.mmx.membership.wire.MessageType;
import io.mmx.planner.plan.PlanDigest;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;

/**
 * Drives the membership nodes of every process hosted by one transport: polls frames into the nodes,
 * converts the injected clock into ticks, and hands other frame types to an application handler.
 * Run it with an {@code AgentRunner} or, in tests, an {@code AgentInvoker} on the caller's thread.
 */
public final class MembershipAgent implements Agent, FrameHandler
{
    /** Receives frames that are not membership messages. */
    @FunctionalInterface
    public interface ApplicationHandler
    {
        /**
         * @param header  of the frame.
         * @param buffer  holding the payload.
         * @param offset  of the payload.
         * @param length  of the payload.
         * @param nowTick current tick.
         */
        void onApplicationFrame(FrameHeader header, DirectBuffer buffer, int offset, int length, long nowTick);
    }

    private final AeronTransport transport;
    private final NanoClock clock;
    private final long tickNs;
    private final int[] hosted;
    private final MembershipNode[] nodeByProcess;
    private final ApplicationHandler applicationHandler;
    private final FabricHeartbeats[] heartbeats;
    private final long startNs;
    private long nowTick;
    private int applicationFrames;

    /**
     * An agent without neighbour monitoring through memory; the parameters are those of
     * {@link #MembershipAgent(AeronTransport, MembershipConfig, int[], PlanDigest, int[][], long, NanoClock, long,
     * MembershipListener, ApplicationHandler, FabricHeartbeats[], HostLiveness)}.
     */
    public MembershipAgent(
        final AeronTransport transport,
        final MembershipConfig config,
        final int[] hosted,
        final PlanDigest planDigest,
        final int[][] neighboursOf,
        final long seed,
        final NanoClock clock,
        final long tickNs,
        final MembershipListener listener,
        final ApplicationHandler applicationHandler)
    {
        this(transport, config, hosted, planDigest, neighboursOf, seed, clock, tickNs, listener, applicationHandler, null,
            HostLiveness.NONE);
    }

    /**
     * An agent with neighbour monitoring through memory: each hosted process bumps its heartbeat word
     * and reads its plan neighbours' words through its own fabric, polled from {@link #doWork()}.
     *
     * @param transport          launched transport.
     * @param config             membership configuration.
     * @param hosted             ids of the processes this JVM hosts.
     * @param planDigest         the plan's content hash.
     * @param neighboursOf       plan neighbours of each hosted process, same order as {@code hosted}.
     * @param seed               base seed; each node gets seed ^ its id.
     * @param clock              time source.
     * @param tickNs             nanoseconds per tick.
     * @param listener           events of every hosted node, neighbour suspicions included.
     * @param applicationHandler frames of other types, or null.
     * @param heartbeatsOf       heartbeats of each hosted process, same order as {@code hosted} (an entry may be
     *                           null: that process is not monitored through memory), or null for none.
     * @param liveness           what the operating system says of other processes' hosts (a leader whose host
     *                           surely runs is not declared stopped), or {@link HostLiveness#NONE}.
     */
    public MembershipAgent(
        final AeronTransport transport,
        final MembershipConfig config,
        final int[] hosted,
        final PlanDigest planDigest,
        final int[][] neighboursOf,
        final long seed,
        final NanoClock clock,
        final long tickNs,
        final MembershipListener listener,
        final ApplicationHandler applicationHandler,
        final FabricHeartbeats[] heartbeatsOf,
        final HostLiveness liveness)
    {
        if (tickNs < 100_000)
        {
            throw new IllegalArgumentException("tickNs must be at least 100 µs, got " + tickNs);
        }
        final int processes = transport.directory().processCount();
        this.transport = transport;
        this.clock = clock;
        this.tickNs = tickNs;
        this.hosted = hosted.clone();
        this.applicationHandler = applicationHandler;
        if (heartbeatsOf != null && heartbeatsOf.length != hosted.length)
        {
            throw new IllegalArgumentException("heartbeatsOf has " + heartbeatsOf.length + " entries but " +
                hosted.length + " processes are hosted: pass one per hosted process, in the same order");
        }
        heartbeats = new FabricHeartbeats[hosted.length];
        nodeByProcess = new MembershipNode[processes];
        startNs = clock.nanoTime();
        if (config.concludedFor() != processes)
        {
            config.conclude(processes);
        }
        // Processes behind one endpoint are hosted by one transport and agent: they stop together.
        final int[] hostOf = new int[processes];
        for (int p = 0; p < processes; p++)
        {
            hostOf[p] = transport.directory().endpointIndexOf(p);
        }
        for (int i = 0; i < hosted.length; i++)
        {
            final int id = hosted[i];
            if (!transport.hosts(id))
            {
                throw new IllegalArgumentException("process " + id + " is not hosted at this transport's endpoint");
            }
            final FabricHeartbeats hb = heartbeatsOf != null ? heartbeatsOf[i] : null;
            if (hb != null && hb.selfId() != id)
            {
                throw new IllegalArgumentException("heartbeatsOf[" + i + "] acts for process " + hb.selfId() +
                    " but hosted[" + i + "] is process " + id + ": pass each process's own fabric");
            }
            heartbeats[i] = hb;
            nodeByProcess[id] = new MembershipNode(config, processes, id, planDigest, neighboursOf[i], seed ^ id,
                transport::send, listener, hb, hb, 0, hostOf, liveness);
        }
    }

    /**
     * Polls frames and heartbeats and advances the tick.
     *
     * @return frames handed to the application handler: work after which more may follow at once.
     * Membership's own frames, heartbeats and ticks are periodic and their deadlines are many ticks
     * long, so they are not counted: counted, they would reset the caller's idle strategy several
     * times a tick, and an idle node would never park.
     */
    public int doWork()
    {
        applicationFrames = 0;
        transport.poll(this);
        pollHeartbeats();
        final long tick = (clock.nanoTime() - startNs) / tickNs;
        if (tick > nowTick)
        {
            nowTick = tick;
            for (final int id : hosted)
            {
                nodeByProcess[id].tick(tick);
            }
            // Memory on shm completes at once: the tick's heartbeat reads are taken in this cycle.
            pollHeartbeats();
        }
        return applicationFrames;
    }

    private void pollHeartbeats()
    {
        for (final FabricHeartbeats hb : heartbeats)
        {
            if (hb != null)
            {
                hb.poll();
            }
        }
    }

    /** {@inheritDoc} */
    public void onFrame(final FrameHeader header, final DirectBuffer buffer, final int offset, final int length)
    {
        final int type = header.type();
        final int dst = header.dstProcessId();
        if (MessageType.isMembership(type))
        {
            if (dst == FrameHeader.ALL_LOCAL)
            {
                final int src = header.srcProcessId();
                for (final int id : hosted)
                {
                    if (id != src)
                    {
                        nodeByProcess[id].onMessage(nowTick, src, type, buffer, offset, length);
                    }
                }
            }
            else if (nodeByProcess[dst] != null)
            {
                nodeByProcess[dst].onMessage(nowTick, header.srcProcessId(), type, buffer, offset, length);
            }
        }
        else if (applicationHandler != null)
        {
            applicationFrames++;
            applicationHandler.onApplicationFrame(header, buffer, offset, length, nowTick);
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

    /** @return the transport. */
    public AeronTransport transport()
    {
        return transport;
    }

    /** {@inheritDoc} */
    public String roleName()
    {
        return "mmx-membership";
    }
}
