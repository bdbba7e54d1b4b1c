package io.mmx.perf.consensus.mmx;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** How the consensus benchmark lays an mmx cluster out in JVMs. */
class MmxLayoutTest
{
    @Test
    void smallClustersRunAProcessPerJvmMidSizedOnesEightJvmsLargeOnesJvmsOf256()
    {
        assertEquals(1, MmxLog.procsPerJvm(5));
        assertEquals(4, MmxLog.procsPerJvm(32));
        assertEquals(32, MmxLog.procsPerJvm(256), "n = 256: 8 JVMs of 32");
        assertEquals(256, MmxLog.procsPerJvm(1024), "n = 1024: 4 JVMs of 256, not 8 of 128");
        assertEquals(256, MmxLog.procsPerJvm(4096), "n = 4096: 16 JVMs of 256");
        assertEquals(256, MmxLog.procsPerJvm(300), "past 256: JVMs of 256, the last one smaller");
    }
}
