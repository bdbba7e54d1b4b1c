package io.mmx.perf.consensus.mmx;

import io.mmx.perf.consensus.ConsensusSystem;
import io.mmx.perf.consensus.LogSettings;
import io.mmx.perf.consensus.ReplicatedLog;

/** The mmx node at n = 5 and n = 32 (or the sizes given with {@code --members}), on loopback with shm regions and Aeron UDP. */
public final class MmxSystem implements ConsensusSystem
{
    @Override
    public String name()
    {
        return MmxLog.NAME;
    }

    @Override
    public int[] memberCounts()
    {
        return new int[]{5, 32};
    }

    @Override
    public ReplicatedLog create(final int members, final LogSettings settings)
    {
        return new MmxLog(members, settings);
    }
}
