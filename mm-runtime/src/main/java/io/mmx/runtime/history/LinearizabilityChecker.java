package io.mmx.runtime.history;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Wing &amp; Gong backtracking with Lowe's memoisation of (linearized set, state), run per partition.
 */
public final class LinearizabilityChecker
{
    private LinearizabilityChecker()
    {
    }

    private record Memo(BitSet done, Object state)
    {
    }

    /** Signals that the state budget ran out. */
    private static final class Budget extends RuntimeException
    {
        Budget()
        {
            super(null, null, false, false);
        }
    }

    /** Checks every partition of {@code history}; {@code maxStates} bounds explored states across all of them. */
    public static <S> CheckResult check(final History history, final Model<S> model, final long maxStates)
    {
        long total = 0;
        for (final History part : model.partition(history))
        {
            final Search<S> s = new Search<>(part, model, maxStates - total);
            CheckResult.Verdict v;
            try
            {
                v = s.dfs(new BitSet(), model.initial(), 0) ? CheckResult.Verdict.OK
                    : CheckResult.Verdict.NOT_LINEARIZABLE;
            }
            catch (final Budget b)
            {
                v = CheckResult.Verdict.INCONCLUSIVE;
            }
            total += s.explored;
            if (v != CheckResult.Verdict.OK)
            {
                final String key = s.ops.isEmpty() ? null : s.ops.get(0).key();
                return new CheckResult(v, key, s.longest, s.ops, total);
            }
        }
        return new CheckResult(CheckResult.Verdict.OK, null, history.ops().size(), List.of(), total);
    }

    private static final class Search<S>
    {
        final List<Operation> ops;
        final Model<S> model;
        final long budget;
        final int known;
        final Set<Memo> memo = new HashSet<>();
        long explored;
        int longest;

        Search(final History part, final Model<S> model, final long budget)
        {
            final List<Operation> sorted = new ArrayList<>(part.ops());
            sorted.sort(Comparator.comparingLong(Operation::invokeNs));
            this.ops = sorted;
            this.model = model;
            this.budget = budget;
            this.known = (int)sorted.stream().filter(o -> !o.unknown()).count();
        }

        boolean dfs(final BitSet done, final S state, final int knownDone)
        {
            if (knownDone == known)
            {
                return true;
            }
            if (!memo.add(new Memo((BitSet)done.clone(), state)))
            {
                return false;
            }
            if (++explored > budget)
            {
                throw new Budget();
            }
            longest = Math.max(longest, done.cardinality());
            // Minimal ops: invoked before the earliest return among ops still pending.
            long minRet = Long.MAX_VALUE;
            for (int i = done.nextClearBit(0); i < ops.size(); i = done.nextClearBit(i + 1))
            {
                minRet = Math.min(minRet, ops.get(i).completeNs());
            }
            for (int i = done.nextClearBit(0); i < ops.size(); i = done.nextClearBit(i + 1))
            {
                final Operation op = ops.get(i);
                if (op.invokeNs() > minRet)
                {
                    break; // sorted by invoke, so no later op can be minimal either
                }
                final Model.Step<S> step = model.step(state, op);
                if (!step.legal())
                {
                    continue;
                }
                done.set(i);
                final boolean ok = dfs(done, step.next(), knownDone + (op.unknown() ? 0 : 1));
                done.clear(i);
                if (ok)
                {
                    return true;
                }
            }
            return false;
        }
    }
}
