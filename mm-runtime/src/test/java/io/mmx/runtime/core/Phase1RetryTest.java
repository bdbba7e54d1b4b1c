package io.mmx.runtime.core;

import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When phase 1 sends its Prepare again: after a retry period with no quorum and no new Promise,
 * each resend doubling the wait for the next (up to a cap); never while Promises still come in.
 * Every resend makes every acceptor run a transition and send its window, so resending a phase 1
 * that is under way only adds work (a leader of 4096 processes never reached a quorum that way).
 */
class Phase1RetryTest
{
    private static final int RETRY = 4;
    private static final int N = 9;

    private static final class Prepares extends IgnoringEffects
    {
        final List<Long> ballots = new ArrayList<>();
        long roundOp = -1;

        @Override
        public void broadcast(final Message message)
        {
            if (message instanceof Message.Prepare p)
            {
                ballots.add(p.ballot);
            }
        }

        @Override
        public void memory(final long opId, final MemoryOpKind kind, final int region, final int offsetWords,
            final int lengthWords, final long expected, final long value, final long[] payload)
        {
            roundOp = opId;
        }
    }

    private static Phase1 started(final Prepares effects)
    {
        final CoreConfig config = new CoreConfig().graph(Graph.empty(N)).prepareRetryTicks(RETRY).conclude();
        final Phase1 phase1 = new Phase1(0, config, effects, () -> -1L);
        phase1.start(0);
        phase1.onRoundPersisted(effects.roundOp, MemoryStatus.OK, 0, 0, true);
        assertEquals(1, effects.ballots.size(), "the first Prepare goes out once the round is persisted");
        return phase1;
    }

    private static Message.Promise promise(final Phase1 phase1, final int acceptor)
    {
        return new Message.Promise(acceptor, acceptor, phase1.ballot(), 0, -1, new long[0], new long[0], new long[0][]);
    }

    @Test
    void resendsAfterAQuietRetryPeriodAndDoublesTheWaitEachTime()
    {
        final Prepares effects = new Prepares();
        final Phase1 phase1 = started(effects);
        final List<Long> resentAt = new ArrayList<>();
        for (long tick = 1; tick <= 200; tick++)
        {
            final int before = effects.ballots.size();
            phase1.onTick(tick);
            if (effects.ballots.size() > before)
            {
                resentAt.add(tick);
            }
        }
        // Waits of 4, 8, 16, 32, 64, 128 ticks, the last capped at 32 retry periods.
        final long cap = (long)RETRY << Phase1.MAX_RETRY_BACKOFF_SHIFT;
        assertEquals(List.of(4L, 12L, 28L, 60L, 124L), resentAt, "waits 4, 8, 16, 32, 64 ticks");
        for (int i = 1; i < resentAt.size(); i++)
        {
            assertTrue(resentAt.get(i) - resentAt.get(i - 1) <= cap, "no wait above the cap");
        }
        assertEquals(resentAt.size(), phase1.retransmissions());
        assertTrue(effects.ballots.stream().allMatch(b -> b == phase1.ballot()), "resends repeat the same ballot");
    }

    @Test
    void theWaitStopsGrowingAtTheCap()
    {
        final Prepares effects = new Prepares();
        final Phase1 phase1 = started(effects);
        long last = 0;
        long longest = 0;
        for (long tick = 1; tick <= 2000; tick++)
        {
            final int before = effects.ballots.size();
            phase1.onTick(tick);
            if (effects.ballots.size() > before)
            {
                longest = Math.max(longest, tick - last);
                last = tick;
            }
        }
        assertEquals((long)RETRY << Phase1.MAX_RETRY_BACKOFF_SHIFT, longest);
    }

    @Test
    void noResendWhilePromisesStillComeIn()
    {
        final Prepares effects = new Prepares();
        final Phase1 phase1 = started(effects);
        // One new Promise in every retry period, short of the quorum of 5 for four periods.
        for (int acceptor = 1; acceptor <= 4; acceptor++)
        {
            phase1.onPromise(promise(phase1, acceptor));
            for (long tick = (acceptor - 1) * RETRY + 1; tick <= acceptor * RETRY; tick++)
            {
                phase1.onTick(tick);
            }
        }
        assertEquals(1, effects.ballots.size(), "Promises kept coming: the Prepare was not sent again");
        // Then nothing for a period and the next: the Prepare goes out again.
        for (long tick = 4 * RETRY + 1; tick <= 6 * RETRY; tick++)
        {
            phase1.onTick(tick);
        }
        assertEquals(2, effects.ballots.size(), "a quiet retry period sends the Prepare again");
        assertEquals(1, phase1.retransmissions());
    }

    @Test
    void aNewPhaseWaitsOneRetryPeriodAgain()
    {
        final Prepares effects = new Prepares();
        final Phase1 phase1 = started(effects);
        for (long tick = 1; tick <= 100; tick++)
        {
            phase1.onTick(tick);
        }
        final int sent = effects.ballots.size();
        phase1.start(100);
        phase1.onRoundPersisted(effects.roundOp, MemoryStatus.OK, 1, 100, true); // the word holds round 1
        final int afterStart = effects.ballots.size();
        assertTrue(afterStart > sent, "the new phase's Prepare went out");
        for (long tick = 101; tick <= 100 + RETRY; tick++)
        {
            phase1.onTick(tick);
        }
        assertEquals(afterStart + 1, effects.ballots.size(), "the first resend of a new phase waits one retry period");
    }
}
