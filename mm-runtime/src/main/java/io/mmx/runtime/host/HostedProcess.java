package io.mmx.runtime.host;

import io.mmx.membership.MembershipNode;
import io.mmx.membership.neighbour.FabricHeartbeats;
import io.mmx.runtime.core.Message;
import org.agrona.DirectBuffer;

/**
 * One process as its host drives it: its protocol core, its memory fabric and its replica of the
 * state machine. The host gives it its membership node, ticks, frames and commands; the process
 * reaches memory through its fabric and sends through the host's {@link HostTransport}. Every call
 * comes from the host's thread.
 */
public interface HostedProcess
{
    /** @return the process id. */
    int id();

    /** @return the process's plan neighbours. */
    int[] neighbours();

    /** @return the process's memory heartbeats (polled by the host's membership), or null for none. */
    FabricHeartbeats heartbeats();

    /** Starts the core at {@code tick}, following {@code membership}'s leader and suspicions. */
    void start(MembershipNode membership, long tick);

    /** @return the leader the process follows, or -1. */
    int leader();

    /**
     * Polls the process's memory fabric; completions go to its core.
     *
     * @return completions taken (work), heartbeats not counted.
     */
    int pollMemory();

    /**
     * @return true while operations of the process's fabric are outstanding or completions wait to be
     * handed to its core: a host need not poll the memory of a process for which this is false and
     * which it gave no event since.
     */
    boolean memoryPending();

    /**
     * Hands membership's leader to the core if it changed.
     *
     * @return true if the leader changed.
     */
    boolean syncLeader(long tick);

    /** One tick: membership's view into core events, then the core's timers. */
    void onTick(long tick);

    /** @return the era report to propose now (a cold start), or null. */
    long[] eraReportDue(long tick);

    /** A protocol message addressed to this process. */
    void onMessage(Message message, long tick);

    /** A snapshot transfer frame addressed to this process. */
    void onTransferFrame(int type, int src, DirectBuffer buffer, int offset, int length);

    /**
     * Queues one command of proposal width at the core (it proposes only while leading).
     *
     * @return false if it was not queued.
     */
    boolean propose(long[] words, int offset);

    /** Sends the proposals queued in this duty cycle. */
    void flushProposals();

    /**
     * Forwards {@code count} whole commands to the leader in one frame (at most {@link #forwardCapacity()}).
     *
     * @return false if the transport dropped the frame.
     */
    boolean forward(int leader, long[] words, int offset, int count);

    /** @return commands one forward frame carries. */
    int forwardCapacity();

    /**
     * @return false while this process's state waits for a peer's snapshot: commands it submitted then
     * could be applied within the snapshot's part of the log, where it never sees them applied, so
     * the host holds its new submissions until the state is back.
     */
    default boolean stateReady()
    {
        return true;
    }

    /** @return true if the command was applied in this process's state (its replica's duplicate filter saw it). */
    default boolean applied(int origin, int incarnation, long counter)
    {
        return false;
    }
}
