package io.mmx.runtime.sim;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.mmx.planner.change.GraphChange;
import io.mmx.planner.generate.RandomRegularGenerator;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.Plan;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The plan changes of one {@link HostSimulation} run, drawn up front: for each change its kind, the
 * plan it changes to, and when it is submitted; and the hosts of every plan. Hosts are numbered once
 * for the whole run: the first plan's hosts hold contiguous ids, {@code perHost} each (the last
 * may hold fewer); a grow adds one host with the next {@code perHost} ids, and a shrink removes the
 * last host a grow added, so no surviving process changes id.
 */
public final class ChangeSchedule
{
    /** What a change does to the plan. */
    public enum Kind
    {
        /** A new random regular graph over the same processes, its degree drawn again. */
        REGRAPH,
        /**
         * The same graph under a new era: every host crashed by the time the era begins comes back
         * as a new, empty machine whose processes join the era and take a peer's snapshot.
         */
        REPLACE,
        /** One host more, its processes new and empty (the planner's grow: d/2 edges rewired per process). */
        GROW,
        /** The last host a grow added leaves (the planner's shrink of the highest ids). */
        SHRINK;

        String cliName()
        {
            return name().toLowerCase(Locale.ROOT);
        }

        static Kind byName(final String name)
        {
            for (final Kind k : values())
            {
                if (k.cliName().equals(name))
                {
                    return k;
                }
            }
            throw new IllegalArgumentException("'" + name + "' is not a kind of plan change; known: regraph, " +
                "replace, grow, shrink");
        }
    }

    final Plan[] plans;
    final Kind[] kinds;
    /** Hosts of each plan: hosts 0 .. hostsIn[k] - 1. */
    final int[] hostsIn;
    /** The host of every process id any plan has. */
    final int[] hostOf;
    final int[] firstId;
    final int[] lastId;
    final int maxHosts;

    /**
     * @param first    the first plan.
     * @param perHost  processes per host.
     * @param changes  how many changes.
     * @param fixed    kinds to use in turn, or empty to draw each.
     * @param random   the changes' own stream, so runs without changes draw as before.
     */
    ChangeSchedule(final Plan first, final int perHost, final int changes, final List<Kind> fixed,
        final SplittableRandom random)
    {
        plans = new Plan[1 + changes];
        kinds = new Kind[changes];
        hostsIn = new int[1 + changes];
        plans[0] = first;
        final int n0 = first.graph().n();
        hostsIn[0] = (n0 + perHost - 1) / perHost;
        final List<int[]> ranges = new ArrayList<>();
        for (int h = 0; h < hostsIn[0]; h++)
        {
            ranges.add(new int[] {h * perHost, Math.min(n0, (h + 1) * perHost) - 1});
        }
        final List<Integer> grown = new ArrayList<>();
        for (int k = 0; k < changes; k++)
        {
            final Graph g = plans[k].graph();
            final int d = g.degree(0);
            final boolean canGrow = g.n() + perHost <= 256 && (d % 2 == 0 || perHost % 2 == 0);
            final boolean canShrink = !grown.isEmpty() && (d % 2 == 0 || perHost % 2 == 0) &&
                g.n() - perHost > d + 1;
            Kind kind = fixed.isEmpty() ? Kind.values()[random.nextInt(4)] : fixed.get(k % fixed.size());
            if (kind == Kind.SHRINK && !canShrink)
            {
                kind = canGrow ? Kind.GROW : Kind.REGRAPH;
            }
            if (kind == Kind.GROW && !canGrow)
            {
                kind = Kind.REGRAPH;
            }
            kinds[k] = kind;
            final long graphSeed = random.nextLong();
            final Graph next;
            switch (kind)
            {
                case GROW:
                    next = GraphChange.grow(g, perHost, graphSeed).graph();
                    grown.add(hostsIn[k]);
                    if (ranges.size() == hostsIn[k])
                    {
                        ranges.add(new int[] {g.n(), g.n() + perHost - 1});
                    }
                    else if (ranges.get(hostsIn[k])[0] != g.n())
                    {
                        throw new IllegalStateException("host " + hostsIn[k] + " held ids from " +
                            ranges.get(hostsIn[k])[0] + ", a grow now adds ids from " + g.n());
                    }
                    hostsIn[k + 1] = hostsIn[k] + 1;
                    break;
                case SHRINK:
                    next = GraphChange.shrink(g, perHost, graphSeed).graph();
                    // A later grow adds the same ids again, on the same host number: a new machine there.
                    grown.remove(grown.size() - 1);
                    hostsIn[k + 1] = hostsIn[k] - 1;
                    break;
                case REPLACE:
                    next = g;
                    hostsIn[k + 1] = hostsIn[k];
                    break;
                default:
                    final int drawn = 3 + random.nextInt(3);
                    final int degree = Math.min(g.n() - 1, (g.n() * drawn) % 2 == 0 ? drawn : drawn + 1);
                    next = new RandomRegularGenerator().generate(g.n(), degree, graphSeed);
                    hostsIn[k + 1] = hostsIn[k];
                    break;
            }
            plans[k + 1] = Plan.sealed(next, next.degree(0), "random", graphSeed, null,
                JsonNodeFactory.instance.objectNode());
            for (int j = 0; j <= k; j++)
            {
                if (plans[j].digest().id64() == plans[k + 1].digest().id64())
                {
                    throw new IllegalStateException("change " + k + " drew the plan of era " + j + " again");
                }
            }
        }
        maxHosts = ranges.size();
        firstId = new int[maxHosts];
        lastId = new int[maxHosts];
        int maxN = 0;
        for (int h = 0; h < maxHosts; h++)
        {
            firstId[h] = ranges.get(h)[0];
            lastId[h] = ranges.get(h)[1];
            maxN = Math.max(maxN, lastId[h] + 1);
        }
        hostOf = new int[maxN];
        for (int h = 0; h < maxHosts; h++)
        {
            for (int p = firstId[h]; p <= lastId[h]; p++)
            {
                hostOf[p] = h;
            }
        }
    }

    /** Processes any plan of the run has. */
    int maxN()
    {
        return hostOf.length;
    }

    /** The process ids of host {@code h}. */
    int[] idsOf(final int h)
    {
        return java.util.stream.IntStream.rangeClosed(firstId[h], lastId[h]).toArray();
    }

    /** The directory of plan {@code k}: every host's ids and a loopback endpoint. */
    String directory(final int k)
    {
        final StringBuilder b = new StringBuilder();
        for (int h = 0; h < hostsIn[k]; h++)
        {
            b.append(h == 0 ? "" : ";").append(firstId[h]).append('-').append(lastId[h]).append("@127.0.0.1:")
                .append(40_000 + h);
        }
        return b.toString();
    }

    /** The kinds, for a run's description. */
    String kindsText()
    {
        final StringBuilder b = new StringBuilder();
        for (final Kind k : kinds)
        {
            b.append(b.length() == 0 ? "" : ",").append(k.cliName());
        }
        return b.toString();
    }

    /** True if a change adds processes that must take a snapshot: the run needs state directories. */
    boolean needsState()
    {
        for (final Kind k : kinds)
        {
            if (k == Kind.GROW || k == Kind.REPLACE)
            {
                return true;
            }
        }
        return false;
    }
}
