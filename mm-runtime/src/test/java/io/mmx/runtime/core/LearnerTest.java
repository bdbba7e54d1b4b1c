package io.mmx.runtime.core;

import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * One learner against scripted memory completions: skipping slots below the floor, and its decided
 * log (written in runs, the mark never ahead of what is written, a restart resuming from the mark).
 */
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

    @Test
    void theDecidedLogIsWrittenInRunsEndingAtThisProcesssBoundaries()
    {
        final int run = config.logRunSlots();
        assertEquals(32, run, "the default: the larger of catchupBatch and pipelineSlots");
        for (long slot = 0; slot < run - 1; slot++)
        {
            learner.onDecided(slot, new long[] {slot}, 0);
        }
        assertTrue(script.ops.isEmpty(), "31 applied slots are not a run yet: " + script.ops.size() + " ops");
        learner.onDecided(run - 1, new long[] {run - 1}, 0); // process 0's first boundary: slot 31
        final long[] entries = script.last();
        assertEquals(MemoryOpKind.WRITE_BULK.ordinal(), entries[1]);
        assertEquals(layout.decidedEntryOffsetWords(0), entries[3]);
        assertEquals((long)run * layout.decidedEntryWords(), entries[4], "one write for the whole run");
        for (long slot = run; slot < run + 10; slot++)
        {
            learner.onDecided(slot, new long[] {slot}, 0); // applied while the run is in flight
        }
        learner.onLogCompletion(entries[0], MemoryStatus.OK);
        final long[] mark = script.last();
        assertEquals(MemoryOpKind.WRITE.ordinal(), mark[1]);
        assertEquals(run - 1, mark[5], "the mark covers the run written, not the slots applied since");
        assertEquals(-1, learner.durableThrough(), "nothing is durable before the mark is confirmed");
        learner.onLogCompletion(mark[0], MemoryStatus.OK);
        assertEquals(run - 1, learner.durableThrough());
        assertEquals(2, script.ops.size(), "slots 32..41 wait for the next boundary or a tick");

        // Another process's runs end elsewhere: floors follow whichever learner ended a run last.
        final Script other = new Script();
        final Learner second = new Learner(1, config, other);
        for (long slot = 0; slot < run; slot++)
        {
            second.onDecided(slot, new long[] {slot}, 0);
        }
        assertEquals(1, other.ops.size());
        assertEquals((long)(run - run / 3) * layout.decidedEntryWords(), other.last()[4],
            "process 1 of 3 ends its first run at slot 20, a third of a run earlier");
    }

    @Test
    void slotsThatWaitedATickAreWrittenAtTheNextTick()
    {
        for (long slot = 0; slot < 5; slot++)
        {
            learner.onDecided(slot, new long[] {slot}, 1);
        }
        learner.onTick(1, -1);
        assertTrue(script.ops.isEmpty(), "slots applied since the last tick wait one tick more");
        learner.onDecided(5, new long[] {5}, 1);
        learner.onTick(2, -1);
        final long[] entries = script.last();
        assertEquals(MemoryOpKind.WRITE_BULK.ordinal(), entries[1]);
        assertEquals(6L * layout.decidedEntryWords(), entries[4], "what waited a tick, and what joined it since");
        learner.onLogCompletion(entries[0], MemoryStatus.TIMEOUT);
        final long[] again = script.last();
        assertNotEquals(entries[0], again[0]);
        assertEquals(6L * layout.decidedEntryWords(), again[4], "a run that timed out is written again at once");
        learner.onLogCompletion(again[0], MemoryStatus.OK);
        learner.onLogCompletion(script.last()[0], MemoryStatus.OK);
        assertEquals(5, learner.durableThrough());
    }

    /**
     * Random arrivals, ticks, and log completions that time out, against a model of the region:
     * every entry run starts right after the confirmed mark and stays within {@code logRunSlots} of
     * it (what readers rely on), the mark never passes an entry not written whole, a restart from
     * the mark resumes there, and every applied slot reaches the mark within two ticks once
     * arrivals stop.
     */
    @Test
    void theMarkNeverPassesWhatIsWrittenAndARestartResumesFromIt()
    {
        final long seed = Long.getLong("mmx.learner.seed", System.nanoTime());
        System.out.println("LearnerTest seed " + seed + " (replay: -Dmmx.learner.seed=" + seed + ")");
        final java.util.Random random = new java.util.Random(seed);
        final int run = config.logRunSlots();
        final Script region = new Script();
        Learner l = new Learner(0, config, region);
        long mark = -1; // DECIDED_THROUGH in the region
        long wholeThrough = -1; // entries (mark, wholeThrough] are written whole
        long next = 0;
        long tick = 0;
        int consumed = 0;
        for (int step = 0; step < 20_000; step++)
        {
            final int action = random.nextInt(10);
            if (action < 5 && next < 100_000)
            {
                for (int k = random.nextInt(70); k >= 0; k--, next++)
                {
                    l.onDecided(next, new long[] {next}, tick);
                }
            }
            else if (action < 7)
            {
                l.onTick(++tick, -1);
            }
            else if (action == 7 && random.nextInt(50) == 0)
            {
                // Crash and restart: the new incarnation's applied prefix is the mark.
                region.ops.clear();
                region.payloads.clear();
                consumed = 0;
                l = new Learner(0, config, region);
                l.recover(mark);
                assertEquals(mark, l.appliedThrough(), "seed " + seed);
                next = mark + 1;
                wholeThrough = mark;
                continue;
            }
            for (; consumed < region.ops.size(); consumed++)
            {
                final long[] op = region.ops.get(consumed);
                if (OpIds.purpose(op[0]) != OpIds.DECIDED_LOG)
                {
                    continue;
                }
                final boolean ok = random.nextInt(8) != 0;
                if (op[1] == MemoryOpKind.WRITE_BULK.ordinal())
                {
                    final long first = region.payloads.get(consumed)[0] - 1; // an entry's first word: slot + 1
                    assertEquals(layout.decidedEntryOffsetWords(first), op[3], "seed " + seed);
                    final long last = first + op[4] / layout.decidedEntryWords() - 1;
                    assertEquals(mark + 1, first, "seed " + seed + ": a run starts right after the mark");
                    assertTrue(last <= mark + run, "seed " + seed + ": entries past mark + logRunSlots");
                    if (ok)
                    {
                        wholeThrough = Math.max(wholeThrough, last);
                    }
                }
                else
                {
                    assertTrue(op[5] <= wholeThrough, "seed " + seed + ": mark " + op[5] + " past the entries written whole (" +
                        wholeThrough + ")");
                    if (ok)
                    {
                        mark = op[5];
                    }
                }
                l.onLogCompletion(op[0], ok ? MemoryStatus.OK : MemoryStatus.TIMEOUT);
            }
        }
        // Arrivals stop: within two ticks (each op completing at once) everything applied is marked.
        for (int t = 0; t < 2; t++)
        {
            l.onTick(++tick, -1);
            for (; consumed < region.ops.size(); consumed++)
            {
                final long[] op = region.ops.get(consumed);
                if (op[1] == MemoryOpKind.WRITE.ordinal())
                {
                    mark = op[5];
                }
                l.onLogCompletion(op[0], MemoryStatus.OK);
            }
        }
        assertEquals(l.appliedThrough(), mark, "seed " + seed);
        assertEquals(mark, l.durableThrough(), "seed " + seed);
    }

    /**
     * Slots held out of order, from more runs than the learner's table of runs holds: a run's entry
     * is taken while slots of it are still held (they wait for slot 0), so those slots must keep
     * their values by reference of their own. Every slot is then applied in order with its value.
     */
    @Test
    void slotsHeldLongerThanTheirRunsStayInTheTableKeepTheirValues()
    {
        final java.util.Map<Long, long[]> applied = new java.util.LinkedHashMap<>();
        final Effects effects = new IgnoringEffects()
        {
            @Override
            public void decided(final long slot, final long[] value)
            {
                applied.put(slot, value);
            }
        };
        final Learner l = new Learner(0, config, effects);
        final long[][] value = new long[400][];
        for (int s = 0; s < value.length; s++)
        {
            value[s] = new long[] {10L * s + 1};
        }
        // Slots 1..199 one run each (three times the table), then 200..399 in runs of 50.
        for (int s = 1; s < 200; s++)
        {
            l.onDecided(s, new long[][] {value[s]}, 0);
        }
        for (int s = 200; s < 400; s += 50)
        {
            l.onDecided(s, java.util.Arrays.copyOfRange(value, s, s + 50), 0);
        }
        assertTrue(applied.isEmpty(), "nothing applies before slot 0");
        for (int s = 1; s < 400; s++)
        {
            assertSame(value[s], l.decidedValue(s), "slot " + s + " held before slot 0 came");
        }
        l.onDecided(0, new long[][] {value[0]}, 0);
        assertEquals(399, l.appliedThrough());
        assertEquals(400, applied.size());
        long expected = 0;
        for (final java.util.Map.Entry<Long, long[]> e : applied.entrySet())
        {
            assertEquals(expected, e.getKey(), "applied in slot order");
            assertSame(value[(int)expected], e.getValue(), "slot " + expected + " applied with its own value");
            expected++;
        }
        final long[][] served = l.decidedRun(150, 100);
        assertEquals(100, served.length);
        for (int k = 0; k < served.length; k++)
        {
            assertSame(value[150 + k], served[k], "slot " + (150 + k) + " served to a catch-up request");
        }
    }

    @Test
    void aRunLongerThanHalfTheDecidedLogIsRefused()
    {
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> new CoreConfig().graph(Graph.empty(3)).decidedCapacity(256).logRunSlots(129).conclude());
        assertTrue(e.getMessage().contains("logRunSlots 129"), e.getMessage());
        assertEquals(128, new CoreConfig().graph(Graph.empty(3)).decidedCapacity(256).logRunSlots(128).conclude()
            .logRunSlots());
        assertEquals(64, new CoreConfig().graph(Graph.empty(3)).pipelineSlots(64).recordMaxEntries(128)
            .decidedCapacity(128).catchupBatch(100).conclude().logRunSlots(), "the default, capped at half the decided log");
    }
}
