package io.mmx.runtime.node;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the liveness locks say: a hosted process surely runs, one whose node closed (as a killed JVM's
 * lock is dropped) surely died, one never hosted here is unknown (neither). Only "surely died" lets a
 * leader be declared stopped on the early bound, so unknown must never read as dead.
 */
class ShmLivenessTest
{
    @Test
    void heldFreeAndNeverHostedAreTold(@TempDir final Path dir)
    {
        final ShmLiveness gone = new ShmLiveness(dir, new int[]{3});
        gone.close(); // the node of process 3 stopped: its file stays, nobody holds the lock
        try (ShmLiveness node = new ShmLiveness(dir, new int[]{1, 2}))
        {
            assertTrue(node.surelyRuns(1), "held by a running node (this JVM)");
            assertFalse(node.surelyDead(1));
            assertTrue(node.surelyDead(3), "its file exists and nobody holds it");
            assertFalse(node.surelyRuns(3));
            assertFalse(node.surelyDead(7), "never hosted on this machine: cannot tell, not dead");
            assertFalse(node.surelyRuns(7));
            assertTrue(node.surelyRuns(1), "asking did not take or drop its owner's lock");
        }
    }

    /**
     * A node asking about a process it hosts itself (a follower whose leader shares its JVM) must not
     * drop that process's lock: record locks belong to the process, and closing any channel of the
     * file drops them all, so a probe that opened and closed the file made every other JVM find the
     * lock free and declare a live leader dead (n = 4096: "declared leader 1026 stopped: its memory
     * heartbeat stood still for 12 ms").
     */
    @Test
    void askingAboutAHostedProcessKeepsItsLockForOtherProcesses(@TempDir final Path dir) throws Exception
    {
        try (ShmLiveness node = new ShmLiveness(dir, new int[]{1, 2}))
        {
            assertEquals("HELD", probeFromAnotherProcess(dir.resolve("process-1.live")), "held before asking");
            assertTrue(node.surelyRuns(1));
            assertFalse(node.surelyDead(2));
            assertEquals("HELD", probeFromAnotherProcess(dir.resolve("process-1.live")),
                "another process still finds process 1's lock held after its own node asked");
            assertEquals("HELD", probeFromAnotherProcess(dir.resolve("process-2.live")));
        }
        assertEquals("FREE", probeFromAnotherProcess(dir.resolve("process-1.live")), "the node closed: free");
    }

    private static String probeFromAnotherProcess(final Path file) throws Exception
    {
        final String javaBin = ProcessHandle.current().info().command().orElse("java");
        final Process child = new ProcessBuilder(javaBin, "-cp", System.getProperty("java.class.path"),
            LockProbe.class.getName(), file.toString()).redirectErrorStream(true).start();
        final String out;
        try (java.io.InputStream in = child.getInputStream())
        {
            out = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
        }
        if (!child.waitFor(60, java.util.concurrent.TimeUnit.SECONDS))
        {
            child.destroyForcibly();
            throw new AssertionError("the probe JVM did not finish in 60 s");
        }
        return out;
    }
}
