package io.mmx.runtime.node;

import io.mmx.aeron.frame.FrameCounters;
import io.mmx.runtime.host.ProcessHost;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.NanoClock;

/**
 * The node's single agent: one duty cycle of its {@link ProcessHost} at the clock's time, the
 * transport's refusal lines once a tick, and the node's failure when the host throws. Everything a
 * node does happens on this agent's thread.
 */
final class NodeAgent implements Agent
{
    private final ProcessHost host;
    private final NanoClock clock;
    private final PeerRefusals peerRefusals;
    private long lastTick = -1;
    private volatile Throwable failure;

    NodeAgent(final ProcessHost host, final NanoClock clock, final FrameCounters counters, final long tickNs)
    {
        this.host = host;
        this.clock = clock;
        this.peerRefusals = new PeerRefusals(counters, tickNs);
    }

    @Override
    public int doWork()
    {
        try
        {
            final int work = host.doWork(clock.nanoTime());
            final long tick = host.nowTick();
            if (tick > lastTick)
            {
                lastTick = tick;
                peerRefusals.onTick(tick);
            }
            return work;
        }
        catch (final Throwable t)
        {
            // A bug (the core's or the state machine's): the replicas' states can no longer be trusted
            // to match the log. Stop, say why in the status, and fail every pending future at once.
            failure = t;
            host.failAll("node failed: " + t);
            throw new AgentTerminationException(t);
        }
    }

    /** What stopped the agent, or null while it runs. */
    Throwable failure()
    {
        return failure;
    }

    @Override
    public String roleName()
    {
        return "mmx-node";
    }
}
