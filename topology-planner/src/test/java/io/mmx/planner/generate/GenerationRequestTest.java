package io.mmx.planner.generate;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GenerationRequestTest
{
    private static void assertRejected(final int n, final int degree, final String... phrases)
    {
        final IllegalArgumentException error =
            assertThrows(IllegalArgumentException.class, () -> GenerationRequest.validate(n, degree));
        for (final String phrase : phrases)
        {
            assertTrue(error.getMessage().contains(phrase), () -> "'" + phrase + "' in: " + error.getMessage());
        }
    }

    @Test
    void rejectsTooFewProcesses()
    {
        assertRejected(1, 1, "n = 1", "use n >= 2");
    }

    @Test
    void rejectsDegreeBelowOne()
    {
        assertRejected(10, 0, "degree = 0", "use degree >= 1");
    }

    @Test
    void rejectsDegreeNotBelowN()
    {
        assertRejected(8, 8, "degree = 8", "n - 1 = 7", "lower the degree or raise n");
    }

    @Test
    void rejectsOddEndpointCount()
    {
        assertRejected(9, 3, "n·degree must be even", "n·d/2 edges", "change n or degree");
    }

    @Test
    void rejectsDegreeOneBeyondAPair()
    {
        assertRejected(4, 1, "degree 1", "use degree >= 2");
        assertDoesNotThrow(() -> GenerationRequest.validate(2, 1));
    }

    @Test
    void rejectsGraphsTooLargeForMemory()
    {
        assertRejected(1 << 30, 4, "exceeds", "lower n or degree");
    }

    @Test
    void recordValidatesOnConstruction()
    {
        assertThrows(IllegalArgumentException.class, () -> new GenerationRequest(5, 5, 1L));
        assertDoesNotThrow(() -> new GenerationRequest(4096, 8, 1L));
    }
}
