package io.mmx.runtime.core;

import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** One learner against scripted memory completions: skipping slots below the floor, and its decided log. */
class LearnerTest
{
    /** Records the learner's memory ops and skips; completions are fed by the test. */
    static final class Script extends AcceptorDriverTest.Script
    {
        final List<long[]> ops = new ArrayList<>();
        final List<long[]> payloads = new ArrayList<>();
        final List<String> skips = new ArrayList<>();

        /** Each op as {opId, kind, region, offset, length, value}. */
        @Override
        public void memory(final long opId, final MemoryOpKind kind, final int region, final int offsetWords,
            final int lengthWords, final long expected, final long value, final long[] payload)
        {
            ops.add(new long[] {opId, kind.ordinal(), region, offsetWords, lengthWords, value});
            payloads.add(payload == null ? null : java.util.Arrays.copyOf(payload, lengthWords));
        }

        @Override
        public void skipped(final long fromSlot, final long toSlot)
        {
            skips.add(fromSlot + ".." + toSlot);
        }

        long[] last()
        {
            return ops.get(ops.size() - 1);
        }
    }

    private final CoreConfig config = new CoreConfig().graph(Graph.empty(3)).conclude();
    private final RegionLayout layout = config.layout();
    private final Script script = new Script();
    private final Learner learner = new Learner(0, config, script);

    @Test
    void aSlotBelowTheFloorThatNoLogGivesBackIsSkippedAndItsTornEntriesClearedBeforeTheMark()
    {
        learner.recover(9);
        learner.reportedDurable(49); // slots 10..49 decided and reclaimed: only others' logs held them
        final long tick = tickUntilSkip(9);
        assertEquals(List.of("10..49"), script.skips);
        assertEquals(8L * config.catchupTicks(), tick, "a skip waits 8 catch-up periods without progress (degree 0)");
        assertEquals(49, learner.appliedThrough());

        // Before DECIDED_THROUGH passes 10..41, their entries are zeroed: a crash in the middle of an
        // earlier incarnation's write can have left one torn there, echo words matching its slot.
        final long[] clear = script.last();
        assertEquals(MemoryOpKind.WRITE_BULK.ordinal(), clear[1]);
        assertEquals(layout.decidedEntryOffsetWords(10), clear[3]);
        assertEquals(32L * layout.decidedEntryWords(), clear[4]);
        assertTrue(java.util.Arrays.stream(script.payloads.get(script.payloads.size() - 1)).allMatch(w -> w == 0));
        assertEquals(9, learner.durableThrough(), "nothing is reported durable before the mark");
        learner.onLogCompletion(clear[0], MemoryStatus.TIMEOUT);
        final long[] again = script.last();
        assertNotEquals(clear[0], again[0]);
        assertEquals(MemoryOpKind.WRITE_BULK.ordinal(), again[1], "a clear that timed out is written again, not skipped");
        learner.onLogCompletion(again[0], MemoryStatus.OK);
        final long[] mark = script.last();
        assertEquals(MemoryOpKind.WRITE.ordinal(), mark[1]);
        assertEquals(RegionLayout.DECIDED_THROUGH_WORD, mark[3]);
        assertEquals(49, mark[5]);
        learner.onLogCompletion(mark[0], MemoryStatus.OK);
        assertEquals(49, learner.durableThrough());
    }

    /** Ticks until the learner skips; every catch-up read of a decided log finds it ending at {@code logEnd}. */
    private long tickUntilSkip(final long logEnd)
    {
        long tick = 0;
        while (script.skips.isEmpty() && tick < 100)
        {
            learner.onTick(++tick, 1);
            final long[] op = script.ops.isEmpty() ? new long[] {0, -1} : script.last();
            if (OpIds.purpose(op[0]) == OpIds.CATCHUP_READ && op[1] == MemoryOpKind.READ.ordinal())
            {
                learner.onCatchupCompletion(op[0], MemoryStatus.OK, logEnd, null, tick);
                script.ops.add(new long[] {0, -1, 0, 0, 0, 0}); // answered
            }
        }
        return tick;
    }

    @Test
    void aSlotAtOrAboveTheFloorIsNeverSkipped()
    {
        learner.recover(9);
        learner.reportedDurable(9);
        learner.hint(49); // decided, but acceptors still hold 10..49: phase 1 can give them back
        for (long tick = 1; tick <= 200; tick++)
        {
            learner.onTick(tick, 1);
        }
        assertTrue(script.skips.isEmpty(), script.skips.toString());
        assertEquals(9, learner.appliedThrough());
    }

    @Test
    void theReloadTrustsNothingPastThePrefixItRecovered()
    {
        learner.recover(40);
        learner.reloadLog();
        final long[] reload = script.last();
        learner.reportedDurable(60);
        tickUntilSkip(40); // applied moves to 60 while the reload is in flight
        final int entryWords = layout.decidedEntryWords();
        final long[] data = new long[(int)reload[4]];
        for (long slot = 0; slot <= 41; slot++)
        {
            final int w = (int)(slot % layout.decidedCapacity()) * entryWords;
            data[w] = slot + 1;
            data[w + 1] = 1;
            data[w + 2] = 1000 + slot;
            data[w + entryWords - 1] = slot + 1;
        }
        assertEquals(60, learner.appliedThrough());
        learner.onReload(reload[0], MemoryStatus.OK, data);
        assertArrayEquals(new long[] {1040}, learner.decidedValue(40));
        assertNull(learner.decidedValue(41), "41 lies past DECIDED_THROUGH 40: it may be torn by the crash");
    }
}
