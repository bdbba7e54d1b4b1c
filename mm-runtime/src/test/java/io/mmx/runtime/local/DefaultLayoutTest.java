package io.mmx.runtime.local;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How a local cluster is laid out in JVMs, and sized, when a command is not told. */
class DefaultLayoutTest
{
    @Test
    void smallClustersRunAProcessPerJvmMidSizedOnesEightJvmsLargeOnesJvmsOf256()
    {
        assertEquals(1, LocalCluster.defaultProcsPerJvm(5));
        assertEquals(4, LocalCluster.defaultProcsPerJvm(32), "n = 32: 8 JVMs of 4, as the demo always ran");
        assertEquals(32, LocalCluster.defaultProcsPerJvm(256), "n = 256: 8 JVMs of 32");
        assertEquals(256, LocalCluster.defaultProcsPerJvm(1024), "n = 1024: 4 JVMs of 256, not 8 of 128");
        assertEquals(256, LocalCluster.defaultProcsPerJvm(4096), "n = 4096: 16 JVMs of 256");
        assertEquals(256, LocalCluster.defaultProcsPerJvm(300), "past 256: JVMs of 256, the last one smaller");
        assertThrows(IllegalArgumentException.class, () -> LocalCluster.defaultProcsPerJvm(0));
    }

    @Test
    void childrenCompileWithC1OnlyOnceJvmsOutnumberCoresFourToOne()
    {
        final String c1 = "-XX:TieredStopAtLevel=1";
        assertEquals(java.util.List.of("-Xmx1722m", "-XX:+UseSerialGC", c1), LocalCluster.childJvmOptions(4096, 256, 2),
            "n = 4096 on 2 cores");
        assertFalse(LocalCluster.childJvmOptions(1024, 256, 2).contains(c1), "n = 1024 on 2 cores");
        assertFalse(LocalCluster.childJvmOptions(256, 32, 2).contains(c1), "n = 256 on 2 cores");
        assertFalse(LocalCluster.childJvmOptions(4096, 256, 4).contains(c1), "n = 4096 on 4 cores");
    }

    @Test
    void heapGrowsWithTheProcessesAJvmHosts()
    {
        assertEquals(192, LocalCluster.childHeapMiB(1));
        assertTrue(LocalCluster.childHeapMiB(256) >= 4 * LocalCluster.childHeapMiB(1),
            "a JVM of 256 ran out of 192 MiB; it needs several times a single process's heap");
        assertTrue(LocalCluster.childHeapMiB(32) < LocalCluster.childHeapMiB(256));
    }
}
