package io.mmx.runtime.core;

import io.mmx.membership.Role;
import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The proposer round in the region must never go down, whatever a backend does with a write
 * whose timeout was reported: here the timed-out persist of round 1 lands after the persist of
 * round 2 (no fence), then the process restarts. Its next round must be above 2, or it would
 * reuse a ballot it may already have sent Accepts under.
 */
class ProposerRoundTest
{
    /** One process's region as words; ops are recorded and completed by the test. */
    static final class Memory extends IgnoringEffects
    {
        final long[] words;
        final List<long[]> ops = new ArrayList<>(); // opId, kind, offset, expected, value

        Memory(final int regionWords)
        {
            words = new long[regionWords];
        }

        @Override
        public void memory(final long opId, final MemoryOpKind kind, final int region, final int offsetWords,
            final int lengthWords, final long expected, final long value, final long[] payload)
        {
            ops.add(new long[] {opId, kind.ordinal(), offsetWords, expected, value, lengthWords});
        }

        /** The newest op on {@code offset}, removed from the list. */
        long[] take(final int offset)
        {
            for (int i = ops.size() - 1; i >= 0; i--)
            {
                if (ops.get(i)[2] == offset)
                {
                    return ops.remove(i);
                }
            }
            throw new AssertionError("no op on word " + offset + " in " + ops.size() + " ops");
        }

        /** Lets the op take effect; returns what its completion carries (the previous word). */
        long land(final long[] op)
        {
            final int offset = (int)op[2];
            final long previous = words[offset];
            final MemoryOpKind kind = MemoryOpKind.values()[(int)op[1]];
            if (kind == MemoryOpKind.WRITE || kind == MemoryOpKind.CAS && previous == op[3])
            {
                words[offset] = op[4];
            }
            return previous;
        }
    }

    private static MmPaxosCore boot(final CoreConfig config, final Memory memory)
    {
        final MmPaxosCore core = new MmPaxosCore(0, config, memory, 1);
        core.start(0);
        final long[] read = memory.take(0);
        final long[] header = java.util.Arrays.copyOf(memory.words, RegionLayout.HEADER_WORDS);
        core.onMemoryCompletion(read[0], MemoryStatus.OK, 0, header, 0);
        core.onLeaderChange(0, 0);
        return core;
    }

    @Test
    void aLateLandingOfAnEarlierRoundNeverLowersThePersistedRound()
    {
        final CoreConfig config = new CoreConfig().graph(Graph.empty(1)).conclude();
        final Memory memory = new Memory(config.layout().regionWords());
        final long[] header = new long[RegionLayout.HEADER_WORDS];
        RegionLayout.initHeader(header, 0, config.planHash());
        System.arraycopy(header, 0, memory.words, 0, header.length);

        final MmPaxosCore first = boot(config, memory);
        final long[] round1 = memory.take(RegionLayout.PROPOSER_ROUND_WORD);
        assertEquals(1, round1[4], "the first round persisted");
        first.onMemoryCompletion(round1[0], MemoryStatus.TIMEOUT, 0, null, 0); // not landed yet
        first.onTick(config.prepareRetryTicks()); // a failed persist is retried a period later
        long[] round2 = memory.take(RegionLayout.PROPOSER_ROUND_WORD);
        first.onMemoryCompletion(round2[0], MemoryStatus.OK, memory.land(round2), null, 0);
        // Whatever the proposer did next, the word now says the highest round it may use.
        while (memory.words[RegionLayout.PROPOSER_ROUND_WORD] < 2)
        {
            round2 = memory.take(RegionLayout.PROPOSER_ROUND_WORD);
            first.onMemoryCompletion(round2[0], MemoryStatus.OK, memory.land(round2), null, 0);
        }
        final long used = memory.words[RegionLayout.PROPOSER_ROUND_WORD];
        memory.land(round1); // the timed-out op of round 1 lands now, after the round-2 persist
        memory.ops.clear();

        boot(config, memory); // a restart
        final long[] next = memory.take(RegionLayout.PROPOSER_ROUND_WORD);
        assertTrue(next[4] > used, "the restarted proposer persists round " + next[4] + ", but round " + used +
            " may have been used before the restart (the region says " + memory.words[RegionLayout.PROPOSER_ROUND_WORD] +
            ")");
    }

    @Test
    void aProcessWhoseRegionCameBackEmptyIsBlockedWhenNamedLeader()
    {
        final CoreConfig config = new CoreConfig().graph(Graph.empty(1)).conclude();
        final Memory memory = new Memory(config.layout().regionWords());
        final long[] header = new long[RegionLayout.HEADER_WORDS];
        RegionLayout.initHeader(header, 0, config.planHash());
        header[RegionLayout.INCARNATION_WORD] = 1; // formatted again after a loss, nothing published since
        System.arraycopy(header, 0, memory.words, 0, header.length);

        final MmPaxosCore amnesiac = boot(config, memory); // boot names process 0 leader
        final Status named = amnesiac.status();
        assertTrue(named.barred && named.blocked(), "named leader but may not lead, so blocked: " + named);
        assertEquals(Role.FOLLOWER, named.role, "it never runs phase 1");
        assertTrue(named.toString().contains("may not lead"), named.toString());
        amnesiac.onLeaderChange(-1, 1);
        assertTrue(!amnesiac.status().blocked(), "not named: a follower like any other: " + amnesiac.status());

        memory.words[RegionLayout.INCARNATION_WORD] = 0; // the same region, never lost
        memory.ops.clear();
        final Status fresh = boot(config, memory).status();
        assertTrue(!fresh.barred, "a process that kept its region may lead: " + fresh);
    }

    @Test
    void aRoundPersistThatFailsAtOnceIsRetriedAfterAPeriodNotInALoop()
    {
        final CoreConfig config = new CoreConfig().graph(Graph.empty(1)).conclude();
        final Memory memory = new Memory(config.layout().regionWords());
        final long[] header = new long[RegionLayout.HEADER_WORDS];
        RegionLayout.initHeader(header, 0, config.planHash());
        System.arraycopy(header, 0, memory.words, 0, header.length);

        final MmPaxosCore core = boot(config, memory);
        long[] persist = memory.take(RegionLayout.PROPOSER_ROUND_WORD);
        for (int failure = 0; failure < 3; failure++)
        {
            // The region refuses at once (fenced, not connected): no new round until a period passed.
            final long now = 10L * failure;
            core.onMemoryCompletion(persist[0], MemoryStatus.REFUSED, 0, null, now);
            assertTrue(memory.ops.stream().noneMatch(op -> op[2] == RegionLayout.PROPOSER_ROUND_WORD),
                "a failed persist was retried at once, a round burnt per turn");
            core.onTick(now + config.prepareRetryTicks() - 1);
            assertTrue(memory.ops.stream().noneMatch(op -> op[2] == RegionLayout.PROPOSER_ROUND_WORD),
                "retried before a prepare retry period passed");
            core.onTick(now + config.prepareRetryTicks());
            persist = memory.take(RegionLayout.PROPOSER_ROUND_WORD);
            assertEquals(failure + 2, persist[4], "each retry persists the next round");
            memory.ops.clear();
        }
        core.onMemoryCompletion(persist[0], MemoryStatus.OK, memory.land(persist), null, 40);
        core.onTick(100);
        assertTrue(memory.ops.stream().noneMatch(op -> op[2] == RegionLayout.PROPOSER_ROUND_WORD),
            "a persisted round is not persisted again: phase 1 goes on with its Prepare");
        assertEquals(4, memory.words[RegionLayout.PROPOSER_ROUND_WORD], "the fourth round landed");
    }
}
