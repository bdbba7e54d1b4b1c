package io.mmx.runtime.sim;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The checker passes over a run it checked already (one Commit's array reaches every learner), and
 * only that: the same array at other slots, another process's order, or other values are checked.
 */
class SafetyCheckerTest
{
    private static SafetyChecker checker()
    {
        final SafetyChecker c = new SafetyChecker(3);
        for (long id = 1; id <= 4; id++)
        {
            c.proposed(id);
        }
        return c;
    }

    @Test
    void theSameRunAtOtherSlotsIsCheckedAgain()
    {
        final SafetyChecker c = checker();
        final long[][] run = {{1}, {2}};
        c.learnedRun(0, 10, run);
        c.learnedRun(1, 10, run);
        assertNull(c.violation());
        c.learnedRun(2, 11, run);
        assertNotNull(c.violation(), "slot 11 learned as [1] after it was chosen as [2]");
        assertTrue(c.violation().startsWith("agreement: slot 11"), c.violation());
    }

    @Test
    void aRunAppliedAgainIsStillOrderedPerProcess()
    {
        final SafetyChecker c = checker();
        final long[][] run = {{1}, {2}, {3}};
        c.decidedRun(0, 10, run, 0, 3);
        c.decidedRun(1, 10, run, 0, 2); // within the run checked last: only its order is checked
        c.decidedRun(1, 12, run, 2, 1);
        assertNull(c.violation());
        c.decidedRun(1, 10, run, 0, 2);
        assertEquals("integrity: process 1 applied slot 10 after slot 12", c.violation());
    }

    @Test
    void anotherArrayIsComparedByItsValues()
    {
        final SafetyChecker c = checker();
        c.decidedRun(0, 10, new long[][] {{1}, {2}}, 0, 2);
        c.decidedRun(1, 10, new long[][] {{1}, {2}}, 0, 2);
        assertNull(c.violation(), "equal values in another array agree");
        c.decidedRun(2, 10, new long[][] {{1}, {3}}, 0, 2);
        assertNotNull(c.violation());
        assertTrue(c.violation().startsWith("agreement: slot 11"), c.violation());
    }
}
