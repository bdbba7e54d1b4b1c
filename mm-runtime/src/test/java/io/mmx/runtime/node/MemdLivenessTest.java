package io.mmx.runtime.node;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What membership is told of a process on memd, from what the daemons' latest answers about its
 * region said (the daemon side and the sessions are MemdSessionsTest's): its node holds a
 * connection, so it runs; it holds none, so it is dead; no answer recent enough, nothing.
 */
class MemdLivenessTest
{
    private final AtomicLong askedSince = new AtomicLong();

    private MemdLiveness saying(final int said)
    {
        return new MemdLiveness((owner, sinceNs) ->
        {
            askedSince.set(sinceNs);
            return owner == 3 ? said : -1;
        });
    }

    @Test
    void anOwnerHoldingAConnectionRunsAndOneWithoutIsDead()
    {
        final long before = System.nanoTime();
        final MemdLiveness connected = saying(1);
        assertTrue(connected.surelyRuns(3));
        assertFalse(connected.surelyDead(3));
        final long after = System.nanoTime();
        assertTrue(askedSince.get() - (before - MemdLiveness.FRESH_NS) >= 0 &&
            (after - MemdLiveness.FRESH_NS) - askedSince.get() >= 0, "only answers of the last second count");

        final MemdLiveness gone = saying(0);
        assertFalse(gone.surelyRuns(3));
        assertTrue(gone.surelyDead(3));
    }

    @Test
    void withoutAFreshAnswerNothingIsKnown()
    {
        final MemdLiveness unknown = saying(-1);
        assertFalse(unknown.surelyRuns(3));
        assertFalse(unknown.surelyDead(3));
        assertFalse(saying(1).surelyRuns(4), "another process: its own answers decide");
    }
}
