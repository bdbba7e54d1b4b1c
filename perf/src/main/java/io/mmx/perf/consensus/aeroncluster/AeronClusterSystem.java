package io.mmx.perf.consensus.aeroncluster;

import io.mmx.perf.consensus.ConsensusSystem;
import io.mmx.perf.consensus.LogSettings;
import io.mmx.perf.consensus.ReplicatedLog;

/** The baseline system: Aeron Cluster with 3 members, the size the issue asks for. */
public final class AeronClusterSystem implements ConsensusSystem
{
    @Override
    public String name()
    {
        return AeronClusterLog.NAME;
    }

    @Override
    public int[] memberCounts()
    {
        return new int[]{3};
    }

    @Override
    public ReplicatedLog create(final int members, final LogSettings settings)
    {
        return new AeronClusterLog(members, settings);
    }
}
