package io.mmx.runtime.node;

import io.mmx.aeron.frame.FrameCounters;
import io.mmx.runtime.host.ProcessHost;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.NanoClock;

/**
 * The node's single agent: one duty cycle of its current era's {@link ProcessHost} at the clock's
 * time, then of the eras a plan change ended that still serve peers, the switch to the next era once
 * it is due, the transport's refusal lines once a tick, and the node's failure when a host throws.
 * Everything a node does happens on this agent's thread.
 */
final class NodeAgent implements Agent
{
    /** The node's eras, as the agent drives them. */
    interface Eras
    {
        /** @return the host of the era the node serves. */
        ProcessHost current();

        /** @return the number of the era the node serves, as its status says it. */
        int currentNumber();

        /**
         * Drives the ended eras still retained and retires those due, writing each one's number into
         * {@code eraOfLines[0]} first; @return their work.
         */
        int driveEnded(long nowNs, int[] eraOfLines);

        /**
         * Begins the next era: the current one's plan change is decided and its switch due.
         *
         * @throws EraEnded naming why the node cannot switch: it then stops.
         */
        void switchEra(long nowNs);

        /**
         * The agent stopped (the node failed or left): the node lets go of its connections to regions,
         * so that peers learn its processes are gone rather than slow (memd answers that their owner
         * holds no connection). Agent thread.
         */
        void stopped();
    }

    private final Eras eras;
    /** This thread's era cell of the event log ({@link EventLog#eraOfThread}), taken at start. */
    private int[] eraOfLines = new int[2];
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

    NodeAgent(final Eras eras, final NanoClock clock, final FrameCounters counters, final long tickNs)
    {
        this.eras = eras;
        this.clock = clock;
        this.peerRefusals = new PeerRefusals(counters, tickNs);
    }

    @Override
    public int doWork()
    {
        ProcessHost host = eras.current();
        try
        {
            final long startNs = clock.nanoTime();
            eraOfLines[0] = eras.currentNumber();
            int work = host.doWork(startNs);
            work += eras.driveEnded(startNs, eraOfLines);
            eraOfLines[0] = eras.currentNumber();
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
            if (host.switchDue())
            {
                eras.switchEra(startNs);
                host = eras.current();
                eraOfLines[0] = eras.currentNumber();
                eraOfLines[1] = 1;
                work++;
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
            eras.stopped();
            throw new AgentTerminationException(t);
        }
    }

    /**
     * A plan change ended the era the node runs and the node does not begin the next: it cannot,
     * and stops naming why, or the new plan leaves its processes out, and it leaves the cluster.
     */
    static final class EraEnded extends IllegalStateException
    {
        private static final long serialVersionUID = 1L;
        private final boolean left;

        EraEnded(final String message)
        {
            this(message, null, false);
        }

        EraEnded(final String message, final Throwable cause)
        {
            this(message, cause, false);
        }

        EraEnded(final String message, final Throwable cause, final boolean left)
        {
            super(message, cause);
            this.left = left;
        }

        /** @return true when the new plan has none of the node's processes: it left, as it should. */
        boolean left()
        {
            return left;
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
    public void onStart()
    {
        eraOfLines = EventLog.eraOfThread();
    }

    @Override
    public String roleName()
    {
        return "mmx-node";
    }
}
