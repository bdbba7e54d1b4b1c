package io.mmx.membership.node;

import io.mmx.aeron.frame.FrameHeader;
import io.mmx.aeron.transport.AeronTransport;
import io.mmx.aeron.transport.FrameHandler;
import io.mmx.membership.MembershipConfig;
import io.mmx.membership.MembershipListener;
import io.mmx.membership.MembershipNode;
import io.mmx.membership.Outbox;
import io.mmx.membership.neighbour.FabricHeartbeats;
import io.mmx.membership.neighbour.HostLiveness;
import io.mmx.planner.plan.PlanDigest;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;

/**
 * Runs the membership of the processes hosted at one Aeron transport, and nothing else: polls frames
 * into {@link HostedMembers}, reads the injected clock for its ticks, and hands other frame types to
 * an application handler. A membership-only JVM (the module's cluster tests) runs it; an mmx node
 * runs its {@code ProcessHost}, which holds the same {@link HostedMembers}. Run it with an
 * {@code AgentRunner} or, in tests, an {@code AgentInvoker} on the caller's thread.
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
    private final ApplicationHandler applicationHandler;
    private final HostedMembers members;
    private final long startNs;
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
        final int processes = transport.directory().processCount();
        for (final int id : hosted)
        {
            if (!transport.hosts(id))
            {
                throw new IllegalArgumentException("process " + id + " is not hosted at this transport's endpoint");
            }
        }
        // Processes behind one endpoint are hosted by one transport and agent: they stop together.
        final int[] hostOf = new int[processes];
        for (int p = 0; p < processes; p++)
        {
            hostOf[p] = transport.directory().endpointIndexOf(p);
        }
        this.transport = transport;
        this.clock = clock;
        this.applicationHandler = applicationHandler;
        this.members = new HostedMembers(config, processes, hosted, planDigest, neighboursOf, seed, tickNs,
            Outbox.of(transport::send, transport::sendToHostOf), listener, heartbeatsOf, hostOf, liveness);
        this.startNs = clock.nanoTime();
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
        members.advance(clock.nanoTime() - startNs);
        return applicationFrames;
    }

    /** {@inheritDoc} */
    public void onFrame(final FrameHeader header, final DirectBuffer buffer, final int offset, final int length)
    {
        if (!members.onFrame(header.type(), header.srcProcessId(), header.dstProcessId(), buffer, offset, length) &&
            applicationHandler != null)
        {
            applicationFrames++;
            applicationHandler.onApplicationFrame(header, buffer, offset, length, members.nowTick());
        }
    }

    /**
     * @param processId hosted here.
     * @return its membership node.
     */
    public MembershipNode node(final int processId)
    {
        return members.node(processId);
    }

    /** @return the current tick. */
    public long nowTick()
    {
        return members.nowTick();
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
