package io.mmx.perf.consensus;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The runner measures each registered system at each member count and reports a failing one without stopping. */
class ConsensusBenchmarkTest
{
    /** A registrable system backed by {@link ExecutorLog}, optionally failing to start. */
    private record ExecutorSystem(String name, boolean failsToStart) implements ConsensusSystem
    {
        @Override
        public int[] memberCounts()
        {
            return new int[]{5, 32};
        }

        @Override
        public ReplicatedLog create(final int members, final LogSettings settings)
        {
            return new ExecutorLog(name, members)
            {
                @Override
                public void start()
                {
                    if (failsToStart)
                    {
                        throw new IllegalStateException("no quorum");
                    }
                }
            };
        }
    }

    @Test
    void everyMemberCountAndInFlightBoundIsARowAndAFailedSystemIsANote() throws Exception
    {
        final ConsensusBenchmark.Options options = ConsensusBenchmark.Options.parse(
            new String[]{"--duration", "0.2", "--warmup", "0", "--in-flight", "1,4"});
        final List<LoadResult> results = new ArrayList<>();
        final List<String> notes = new ArrayList<>();

        final boolean allRan = ConsensusBenchmark.run(
            List.of(new ExecutorSystem("broken", true), new ExecutorSystem("working", false)), options, results,
            notes);

        assertFalse(allRan);
        assertEquals(4, results.size(), "2 member counts x 2 bounds of the working system");
        assertEquals(List.of("working 5/1", "working 5/4", "working 32/1", "working 32/4"),
            results.stream().map(r -> r.system() + " " + r.members() + "/" + r.inFlight()).toList());
        assertTrue(results.stream().allMatch(r -> r.commits() > 0 && r.lost() == 0), results.toString());
        assertEquals(2, notes.stream().filter(n -> n.startsWith("broken n = ") && n.contains("FAILED at start") &&
            n.contains("no quorum")).count(), notes.toString());
    }

    @Test
    void membersReplaceTheSizesOfEverySystemButTheBaseline() throws Exception
    {
        final ConsensusBenchmark.Options options = ConsensusBenchmark.Options.parse(
            new String[]{"--duration", "0.1", "--warmup", "0", "--in-flight", "2", "--members", "7,9"});
        final List<LoadResult> results = new ArrayList<>();
        final boolean allRan = ConsensusBenchmark.run(List.of(new ExecutorSystem(ConsensusSystems.BASELINE, false),
            new ExecutorSystem("other", false)), options, results, new ArrayList<>());
        assertTrue(allRan);
        assertEquals(List.of(ConsensusSystems.BASELINE + " 5", ConsensusSystems.BASELINE + " 32", "other 7", "other 9"),
            results.stream().map(r -> r.system() + " " + r.members()).toList());
    }

    @Test
    void roundsMeasureEverySystemInTurnAndNameTheRoundOfEachRow() throws Exception
    {
        final ConsensusBenchmark.Options options = ConsensusBenchmark.Options.parse(
            new String[]{"--duration", "0.1", "--warmup", "0", "--in-flight", "2", "--members", "7", "--rounds", "2"});
        final List<LoadResult> results = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
        assertTrue(ConsensusBenchmark.run(List.of(new ExecutorSystem(ConsensusSystems.BASELINE, false),
            new ExecutorSystem("other", false)), options, results, notes));
        // The baseline and the other system alternate, so drift in the machine's load reaches both alike.
        assertEquals(List.of(ConsensusSystems.BASELINE + " 5 r1", ConsensusSystems.BASELINE + " 32 r1", "other 7 r1",
                ConsensusSystems.BASELINE + " 5 r2", ConsensusSystems.BASELINE + " 32 r2", "other 7 r2"),
            results.stream().map(r -> r.system() + " " + r.members() + " r" + r.round()).toList());
        assertTrue(notes.stream().anyMatch(n -> n.startsWith("other n = 7 (round 2 of 2): started")), notes.toString());
    }

    @Test
    void badMembersAreRefusedNamingTheRange()
    {
        for (final String bad : new String[]{"2", "5,4097", "x"})
        {
            final IllegalArgumentException ex = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> ConsensusBenchmark.Options.parse(new String[]{"--members", bad}));
            assertTrue(ex.getMessage().contains("--members"), ex.getMessage());
        }
    }
}
