package io.mmx.perf.idle;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** Thread kinds by the names HotSpot gives its threads, and this JVM's own threads read from /proc. */
class ProcFsTest
{
    @Test
    void theJvmsOwnThreadsAreToldApart()
    {
        assertEquals("JIT", ProcFs.threadKind("C2 CompilerThre"));
        assertEquals("JIT", ProcFs.threadKind("C1 CompilerThre"));
        assertEquals("refinement", ProcFs.threadKind("G1 Refine#0"));
        assertEquals("collector", ProcFs.threadKind("GC Thread#1"));
        assertEquals("collector", ProcFs.threadKind("G1 Conc#0"));
        assertEquals("collector", ProcFs.threadKind("G1 Main Marker"));
        assertEquals("collector", ProcFs.threadKind("VM Thread"));
        assertEquals("main", ProcFs.threadKind("java"));
        assertEquals("JVM other", ProcFs.threadKind("Signal Dispatch"));
    }

    @Test
    void thisJvmsThreadsAreCountedByKind()
    {
        final Map<String, long[]> kinds = ProcFs.threadTicks(ProcessHandle.current().pid());
        if (kinds.isEmpty())
        {
            System.out.println("ProcFsTest: no /proc on this machine, nothing to count");
            return;
        }
        assertTrue(kinds.containsKey("main") || kinds.containsKey("JVM other"), kinds.keySet().toString());
        assertTrue(kinds.values().stream().allMatch(t -> t[0] >= 0 && t[1] >= 0));
    }
}
