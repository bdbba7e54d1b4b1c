package io.mmx.membership.neighbour;

/**
 * Writes this process's heartbeat word into its own memory region.
 */
@FunctionalInterface
public interface HeartbeatWriter
{
    /**
     * @param value the new, strictly greater, counter.
     */
    void writeHeartbeat(long value);
}
