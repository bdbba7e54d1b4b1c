package io.mmx.runtime.history;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mmx.runtime.history.CheckResult.Verdict;
import io.mmx.runtime.history.Operation.Kind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Hand-written histories with known verdicts. */
class LinearizabilityCheckerTest
{
    private static final long U = Long.MAX_VALUE;
    private final List<Operation> ops = new ArrayList<>();

    private void put(final int c, final String v, final long s, final long e)
    {
        ops.add(new Operation(ops.size(), c, Kind.PUT, "k", v, null, null, s, e));
    }

    private void get(final int c, final String r, final long s, final long e)
    {
        ops.add(new Operation(ops.size(), c, Kind.GET, "k", null, null, r, s, e));
    }

    private void cas(final int c, final String exp, final String v, final boolean ok, final long s, final long e)
    {
        ops.add(new Operation(ops.size(), c, Kind.CAS, "k", v, exp, Boolean.toString(ok), s, e));
    }

    private Verdict verdict()
    {
        return LinearizabilityChecker.check(new History(ops), new KeyValueModel(), 1_000_000).verdict();
    }

    @Test
    void fiftyThousandOpsOnOneKeyNeedNoDeepStack()
    {
        // Two clients overlapping pairwise: the search depth equals the history's length.
        for (int i = 0; i < 25_000; i++)
        {
            put(1, "v" + i, 10L * i, 10L * i + 6);
            get(2, "v" + i, 10L * i + 7, 10L * i + 9);
        }
        assertEquals(Verdict.OK, verdict());
        get(2, "v0", 10L * 25_000, 10L * 25_000 + 1);
        assertEquals(Verdict.NOT_LINEARIZABLE, verdict());
    }

    @Test
    void sequentialOk()
    {
        put(1, "a", 0, 1);
        get(1, "a", 2, 3);
        cas(1, "a", "b", true, 4, 5);
        get(2, "b", 6, 7);
        assertEquals(Verdict.OK, verdict());
    }

    @Test
    void staleReadAfterCompletedWrite()
    {
        put(1, "a", 0, 1);
        put(1, "b", 2, 3);
        get(2, "a", 4, 5);
        assertEquals(Verdict.NOT_LINEARIZABLE, verdict());
    }

    @Test
    void concurrentWriteAndReadEitherValue()
    {
        put(1, "a", 0, 1);
        put(1, "b", 2, 10);
        get(2, "a", 3, 5);
        get(3, "b", 3, 5);
        assertEquals(Verdict.OK, verdict());
    }

    @Test
    void readsDisagreeOnOrderOfConcurrentWrites()
    {
        put(1, "a", 0, 100);
        put(2, "b", 0, 100);
        get(3, "a", 10, 20);
        get(4, "b", 30, 40);
        get(3, "a", 50, 60);
        assertEquals(Verdict.NOT_LINEARIZABLE, verdict());
    }

    @Test
    void casSucceedsTwiceForSameExpected()
    {
        put(1, "a", 0, 1);
        cas(2, "a", "b", true, 2, 10);
        cas(3, "a", "c", true, 2, 10);
        assertEquals(Verdict.NOT_LINEARIZABLE, verdict());
    }

    @Test
    void unknownWriteLaterVisible()
    {
        put(1, "a", 0, 1);
        put(2, "b", 2, U);
        get(3, "a", 3, 4);
        get(3, "b", 5, 6);
        assertEquals(Verdict.OK, verdict());
    }

    @Test
    void unknownWriteNeverVisible()
    {
        put(1, "a", 0, 1);
        put(2, "b", 2, U);
        get(3, "a", 3, 4);
        get(3, "a", 50, 60);
        assertEquals(Verdict.OK, verdict());
    }

    @Test
    void stateLimitGivesInconclusive()
    {
        for (int i = 0; i < 20; i++)
        {
            put(i, "v" + i, 0, 100);
        }
        get(99, "none", 200, 300);
        final CheckResult r = LinearizabilityChecker.check(new History(ops), new KeyValueModel(), 50);
        assertEquals(Verdict.INCONCLUSIVE, r.verdict());
        assertEquals("k", r.key());
    }
}
