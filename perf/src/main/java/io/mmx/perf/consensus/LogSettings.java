package io.mmx.perf.consensus;

import java.nio.file.Path;

/**
 * What every system under test gets, the same for all in one run.
 *
 * @param workDir          an empty directory of this system's own, deleted by the runner afterwards.
 * @param idleStrategy     name of the idle strategy for every thread the system runs (see
 *                         {@code io.mmx.aeron.transport.TransportContext#idleStrategy(String)}), or null for
 *                         the system's own default.
 * @param maxPayloadBytes  the largest command that will be submitted.
 * @param startTimeoutNs   how long {@link ReplicatedLog#start()} may take before it gives up.
 */
public record LogSettings(Path workDir, String idleStrategy, int maxPayloadBytes, long startTimeoutNs)
{
}
