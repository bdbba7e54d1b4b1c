package io.mmx.runtime.node;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

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
}
