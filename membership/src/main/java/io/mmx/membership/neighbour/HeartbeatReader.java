package io.mmx.membership.neighbour;

/**
 * Reads a plan neighbour's heartbeat word from its memory region with a one-sided read. The link
 * layer (rdma-links) adapts to this; a read that failed or timed out returns {@link #NOT_READABLE}.
 */
@FunctionalInterface
public interface HeartbeatReader
{
    /** Returned when the word could not be read (link down, timeout): says nothing about the owner. */
    long NOT_READABLE = Long.MIN_VALUE;

    /**
     * @param processId a plan neighbour.
     * @return its heartbeat counter, or {@link #NOT_READABLE}.
     */
    long readHeartbeat(int processId);
}
