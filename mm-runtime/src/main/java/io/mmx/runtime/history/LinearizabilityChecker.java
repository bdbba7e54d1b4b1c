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

    /** A linearized set as its full prefix [0, base) plus the bits beyond it, and the model state. */
    private record Memo(int base, BitSet beyond, Object state)
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

        /** One level of the search: a prefix linearized so far and the next candidate to try after it. */
        private final class Frame
        {
            final S state;
            final int knownDone;
            final long minRet;
            int next;
            int chosen = -1;

            Frame(final S state, final int knownDone, final BitSet done)
            {
                this.state = state;
                this.knownDone = knownDone;
                // Minimal ops: invoked before the earliest return among ops still pending.
                long m = Long.MAX_VALUE;
                for (int i = done.nextClearBit(0); i < ops.size(); i = done.nextClearBit(i + 1))
                {
                    if (ops.get(i).invokeNs() > m)
                    {
                        break; // invoked after the earliest return, so it returns later still
                    }
                    m = Math.min(m, ops.get(i).completeNs());
                }
                this.minRet = m;
            }
        }

        /**
         * Depth-first search for a linearization, with an explicit stack: a partition may hold many
         * thousands of operations, far deeper than a thread's stack would allow recursion.
         */
        boolean dfs(final BitSet done, final S initial, final int initialKnown)
        {
            if (!enter(done, initial, initialKnown))
            {
                return initialKnown == known;
            }
            final java.util.ArrayDeque<Frame> stack = new java.util.ArrayDeque<>();
            stack.push(new Frame(initial, initialKnown, done));
            while (!stack.isEmpty())
            {
                final Frame top = stack.peek();
                if (top.chosen >= 0)
                {
                    done.clear(top.chosen);
                    top.chosen = -1;
                }
                boolean descended = false;
                for (int i = done.nextClearBit(top.next); i < ops.size(); i = done.nextClearBit(i + 1))
                {
                    final Operation op = ops.get(i);
                    if (op.invokeNs() > top.minRet)
                    {
                        break; // sorted by invoke, so no later op can be minimal either
                    }
                    final Model.Step<S> step = model.step(top.state, op);
                    if (!step.legal())
                    {
                        continue;
                    }
                    done.set(i);
                    top.chosen = i;
                    top.next = i + 1;
                    final int childKnown = top.knownDone + (op.unknown() ? 0 : 1);
                    if (childKnown == known)
                    {
                        return true;
                    }
                    if (enter(done, step.next(), childKnown))
                    {
                        stack.push(new Frame(step.next(), childKnown, done));
                    }
                    descended = true;
                    break;
                }
                if (!descended)
                {
                    stack.pop();
                }
            }
            return false;
        }

        /** False if this (prefix, state) was explored before; counts it against the budget otherwise. */
        private boolean enter(final BitSet done, final S state, final int knownDone)
        {
            if (knownDone == known)
            {
                return false;
            }
            final int base = done.nextClearBit(0);
            if (!memo.add(new Memo(base, done.get(base, Math.max(base, done.length())), state)))
            {
                return false;
            }
            if (++explored > budget)
            {
                throw new Budget();
            }
            longest = Math.max(longest, base + (done.length() > base ? done.get(base, done.length()).cardinality() : 0));
            return true;
        }
    }
}
