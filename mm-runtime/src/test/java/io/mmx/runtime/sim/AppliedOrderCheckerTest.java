package io.mmx.runtime.sim;

import io.mmx.runtime.node.StateMachine;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each rule of {@link AppliedOrderChecker} fires on the history that breaks it, and only then. */
class AppliedOrderCheckerTest
{
    private final AppliedOrderChecker checker = new AppliedOrderChecker(3);
    private final boolean[] allLive = {true, true, true};

    private void apply(final int replica, final long index, final long value)
    {
        final UnsafeBuffer b = new UnsafeBuffer(new byte[8]);
        b.putLong(0, value, ByteOrder.LITTLE_ENDIAN);
        final StateMachine m = checker.replica(replica);
        m.apply(index, 0, b, 0, 8);
    }

    private void submit(final long... values)
    {
        for (final long v : values)
        {
            checker.submitted(v);
        }
    }

    private static void assertNamed(final String violation, final String rule)
    {
        assertTrue(violation != null && violation.startsWith(rule), "expected a '" + rule + "' violation: " + violation);
    }

    @Test
    void oneOrderAtEveryReplicaPasses()
    {
        submit(10, 11, 12);
        for (int r = 0; r < 3; r++)
        {
            apply(r, 0, 10);
            apply(r, 3, 11);
        }
        apply(0, 9, 12);
        checker.acknowledged(11, 11);
        assertNull(checker.checkSafety());
        assertTrue(checker.checkConverged(allLive).startsWith("replica 1 applied 2 of the 3"));
        apply(1, 9, 12);
        apply(2, 9, 12);
        assertNull(checker.checkConverged(allLive));
    }

    @Test
    void twoCommandsAtOneIndexBreakAgreement()
    {
        submit(10, 11);
        apply(0, 0, 10);
        apply(1, 0, 11);
        assertNamed(checker.checkSafety(), "agreement");
    }

    @Test
    void aHoleBelowWhatAReplicaAppliedBreaksThePrefix()
    {
        submit(10, 11);
        apply(0, 0, 10);
        apply(0, 1, 11);
        apply(1, 1, 11);
        assertNamed(checker.checkSafety(), "prefix");
    }

    @Test
    void aCommandAppliedTwiceOrNeverSubmittedIsCaught()
    {
        submit(10);
        apply(0, 0, 10);
        apply(0, 5, 10);
        assertNamed(checker.violation(), "once");
        final AppliedOrderChecker other = new AppliedOrderChecker(1);
        final UnsafeBuffer b = new UnsafeBuffer(new byte[8]);
        b.putLong(0, 99, ByteOrder.LITTLE_ENDIAN);
        other.replica(0).apply(0, 0, b, 0, 8);
        assertNamed(other.violation(), "once");
    }

    @Test
    void anAcknowledgementMustBeOfAnAppliedCommandWithItsOwnReply()
    {
        submit(10, 11);
        apply(0, 0, 10);
        checker.acknowledged(11, 11);
        assertNamed(checker.violation(), "acknowledged");
        final AppliedOrderChecker other = new AppliedOrderChecker(1);
        other.submitted(10);
        final UnsafeBuffer b = new UnsafeBuffer(new byte[8]);
        b.putLong(0, 10, ByteOrder.LITTLE_ENDIAN);
        other.replica(0).apply(0, 0, b, 0, 8);
        other.acknowledged(10, 12);
        assertNamed(other.violation(), "acknowledged");
    }

    @Test
    void aGapFailsConvergence()
    {
        submit(10, 11);
        for (int r = 0; r < 3; r++)
        {
            apply(r, 0, 10);
        }
        checker.replica(2).onGap(1, 8);
        apply(0, 9, 11);
        apply(1, 9, 11);
        apply(2, 9, 11);
        assertNull(checker.checkSafety());
        assertTrue(checker.checkConverged(allLive).contains("missed log indices 1..8"), checker.checkConverged(allLive));
        assertNull(checker.checkConverged(new boolean[] {true, true, false}));
    }
}
