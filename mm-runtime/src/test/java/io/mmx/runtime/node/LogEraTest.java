package io.mmx.runtime.node;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How a plan change ends an era and begins the next, and what the era file keeps of it. */
class LogEraTest
{
    @TempDir
    Path dir;

    @Test
    void theFirstPlanChangeEndsTheEraAndTheFileKeepsIt()
    {
        final LogEra era = LogEra.load(dir, 5);
        assertFalse(era.pastEnd(1_000_000));
        assertTrue(era.onPlanChange(40, 0xF00DL));
        assertFalse(era.onPlanChange(41, 0xBEEFL), "a later change ends nothing");
        assertTrue(era.pastEnd(41));
        assertFalse(era.pastEnd(40), "the change's own slot is the era's last");
        final LogEra again = LogEra.load(dir, 5);
        assertEquals(40, again.endedAt());
        assertEquals(0xF00DL, again.nextPlan());
        assertTrue(again.pastEnd(41), "a restarted replica ignores the same slots");
    }

    @Test
    void theNextEraStartsAtOnceFromTheCutAndNumbersItsSlotsAfterEveryEarlierOne()
    {
        final LogEra first = LogEra.load(dir, 5);
        first.onPlanChange(40, 0xF00DL);
        final LogEra next = LogEra.after(dir, 7, first, 40, 40);
        assertEquals(1, next.era());
        assertTrue(next.started());
        assertEquals(40, next.basePosition());
        assertEquals(next.ownPosition(), next.basePosition(), "this replica holds the state at the cut");
        assertEquals(LogEra.SLOTS, next.base());
        assertEquals(-1, next.endedAt());
        final LogEra reloaded = LogEra.load(dir, 7);
        assertEquals(1, reloaded.era());
        assertTrue(reloaded.started());
        assertEquals(40, reloaded.basePosition());
        final LogEra behind = LogEra.after(null, 7, first, 40, -1);
        assertEquals(-1, behind.ownPosition(), "a replica behind the cut takes a peer's snapshot");
    }

    @Test
    void aCutOutsideTheEraOrOtherThanTheOneDecidedIsRefused() throws Exception
    {
        final LogEra first = LogEra.load(dir, 5);
        assertThrows(IllegalStateException.class, () -> LogEra.after(null, 5, first, LogEra.SLOTS + 3, -1));
        first.onPlanChange(40, 0xF00DL);
        final IllegalStateException other = assertThrows(IllegalStateException.class,
            () -> LogEra.after(null, 5, first, 41, 41));
        assertTrue(other.getMessage().contains("slot 40"), other.getMessage());
        Files.writeString(dir.resolve(LogEra.FILE), "era 0\nposition -1\nmajority false\nstarted -1 -1\nended 40\n");
        assertThrows(IllegalStateException.class, () -> LogEra.load(dir, 5), "a cut line without its plan");
    }
}
