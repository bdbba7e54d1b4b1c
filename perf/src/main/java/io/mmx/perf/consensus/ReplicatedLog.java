package io.mmx.perf.consensus;

import org.agrona.DirectBuffer;

/**
 * A running consensus system as the load driver sees it: commands go in through {@link #submit}, and
 * {@link #poll} reports which of them committed. One instance is one cluster of {@link #members()}
 * members and one client, started once and measured at several loads.
 * <p>
 * Threading: every method is called from the single load-driver thread. An implementation that runs
 * threads of its own (members, drivers) hands commits back through {@link #poll}, never by calling the
 * listener from another thread, so that the driver's bookkeeping needs no locks.
 * <p>
 * To add a system (the mmx node), implement this and a {@link ConsensusSystem} that creates it, and
 * register the latter in {@link ConsensusSystems}.
 */
public interface ReplicatedLog extends AutoCloseable
{
    /** @return the system's name in reports, e.g. {@code aeron-cluster}. */
    String name();

    /** @return how many members replicate the log. */
    int members();

    /**
     * Launch every member and the client, and return once a command submitted now can commit
     * (leader elected, client connected).
     *
     * @throws Exception naming what did not come up within the start timeout; the caller then calls
     *                   {@link #close()}, which must release whatever was started.
     */
    void start() throws Exception;

    /**
     * Offer one command without blocking.
     *
     * @param commandId unique per submission; the load driver also writes it, little-endian, into the
     *                  first 8 bytes of the payload, so a log that returns the command can read it back.
     * @param payload   the command bytes.
     * @param offset    where the command starts in {@code payload}.
     * @param length    command length in bytes, 8..{@link ConsensusBenchmark#MAX_PAYLOAD_BYTES}.
     * @return true if taken (it will be reported by {@link #poll} once committed), false if back-pressured:
     *         the driver polls and offers the same command again.
     */
    boolean submit(long commandId, DirectBuffer payload, int offset, int length);

    /**
     * Do client-side work and report commits learnt since the last call.
     *
     * @param listener told once per committed command.
     * @return amount of work done (0 lets the driver idle), as in Agrona's {@code Agent.doWork()}.
     */
    int poll(CommitListener listener);

    /**
     * @return the processes besides this JVM that run the system (its members' JVMs), whose CPU time the
     * benchmark counts with this JVM's; empty when everything runs in this JVM.
     */
    default long[] otherPids()
    {
        return new long[0];
    }

    /** @return one line for the report about the run's health (leader, errors), or empty. */
    default String diagnostics()
    {
        return "";
    }

    /** Stop the client and every member and delete everything this log wrote; safe after a failed start. */
    @Override
    void close();
}
