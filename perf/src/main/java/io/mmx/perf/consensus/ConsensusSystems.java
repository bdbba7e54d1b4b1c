package io.mmx.perf.consensus;

import io.mmx.perf.consensus.aeroncluster.AeronClusterLog;
import io.mmx.perf.consensus.aeroncluster.AeronClusterSystem;

import java.util.List;

/**
 * Every system the consensus benchmark runs, baseline first. The runner measures them in this order, in
 * one JVM, and reports each against the baseline measured in the same run.
 */
public final class ConsensusSystems
{
    /** Name of the system every other is compared with. */
    public static final String BASELINE = AeronClusterLog.NAME;

    private ConsensusSystems()
    {
    }

    /** @return the registered systems, the baseline first. */
    public static List<ConsensusSystem> registered()
    {
        return List.of(
            new AeronClusterSystem(),
            new io.mmx.perf.consensus.mmx.MmxSystem());
    }
}
