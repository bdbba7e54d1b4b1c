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
    /** The longest duty cycle so far, in nanoseconds of the clock (its start to its end). */
    private volatile long longestCycleNs;
    private long lastSlowCycleLogNs = Long.MIN_VALUE / 2;
    /** A duty cycle at least this long is an event line (at most one per {@link #SLOW_CYCLE_LOG_EVERY_NS}). */
    static final long SLOW_CYCLE_NS = 500_000_000L;
    static final long SLOW_CYCLE_LOG_EVERY_NS = 10_000_000_000L;

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
            final long startNs = clock.nanoTime();
            final int work = host.doWork(startNs);
            final long cycleNs = clock.nanoTime() - startNs;
            if (cycleNs > longestCycleNs)
            {
                longestCycleNs = cycleNs;
            }
            if (cycleNs >= SLOW_CYCLE_NS && startNs - lastSlowCycleLogNs >= SLOW_CYCLE_LOG_EVERY_NS)
            {
                // Heartbeats beat and ticks run between cycles: one this long lets neighbours' monitors see
                // this JVM's processes as slow, the leader's followers its claim age.
                lastSlowCycleLogNs = startNs;
                EventLog.log(EventLog.Level.WARN, "slow_cycle", "a duty cycle took " + cycleNs / 1_000_000 +
                    " ms (its " + work + " items of work); the longest so far " + longestCycleNs / 1_000_000 + " ms");
            }
            if (host.eraEndedAt() >= 0)
            {
                // The hosts switch eras (InProcessHost.successor); a node does not yet: its regions, Aeron
                // stream and memory daemons are one plan's. Stop rather than serve an era that ended.
                throw new EraEnded("a plan change to plan " + Long.toHexString(host.nextPlanId()) +
                    " was decided at slot " + host.eraEndedAt() + ", and a running mmx node cannot switch plans " +
                    "live yet: stop every node and start them with the new plan (docs/protocol.md §8b)");
            }
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

    /** A plan change ended the era the node runs: it stops, and this is not a bug. */
    static final class EraEnded extends IllegalStateException
    {
        private static final long serialVersionUID = 1L;

        EraEnded(final String message)
        {
            super(message);
        }
    }

    /** The longest duty cycle so far, in nanoseconds. */
    long longestCycleNs()
    {
        return longestCycleNs;
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
