package io.mmx.planner.plan;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The heap check refuses what cannot fit, names the heap it needs, and lets the documented sizes run. */
class HeapEstimateTest
{
    private static final long GIB = 1L << 30;

    @Test
    void theDocumentedMillionProcessPlanFitsTheDefaultHeap()
    {
        assertDoesNotThrow(() -> HeapEstimate.requireFits(1_000_000, 8, 4 * GIB));
        assertDoesNotThrow(() -> HeapEstimate.requireFits(1_000_000, 32, 4 * GIB));
    }

    @Test
    void aHundredMillionProcessesAreRefusedWithTheHeapTheyNeed()
    {
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> HeapEstimate.requireFits(100_000_000, 8, 4 * GIB));
        final String message = refused.getMessage();
        assertTrue(message.contains("n = 100000000"), message);
        assertTrue(message.contains("-Xmx27g"), message);
        assertTrue(message.contains("4.0 GiB"), message);
    }

    @Test
    void aHeapUnderAGibIsNamedInMibSoTheTwoSizesDiffer()
    {
        // A small JVM (-Xmx64m reports a little less) refused n = 4 as "about 0.1 GiB, but ... 0.1 GiB".
        final String message = assertThrows(IllegalArgumentException.class,
            () -> HeapEstimate.requireFits(4, 2, 62L << 20)).getMessage();
        assertTrue(message.contains("needs about 65 MiB of heap, but this JVM may use 62 MiB"), message);
        assertTrue(message.contains("-Xmx1g"), message);
    }

    @Test
    void theEstimateCoversWhatMeasuredRunsNeeded()
    {
        // n = 400,000 at degree 8 failed in a 64 MiB heap; n = 200,000 at degree 32 failed in 96 MiB.
        assertTrue(HeapEstimate.planBytes(400_000, 8) > 64L << 20);
        assertTrue(HeapEstimate.planBytes(200_000, 32) > 96L << 20);
    }
}
