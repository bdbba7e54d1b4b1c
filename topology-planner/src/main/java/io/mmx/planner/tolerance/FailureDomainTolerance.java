package io.mmx.planner.tolerance;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.spectral.SpectrumEstimate;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Crash tolerance when whole failure domains fail (DESIGN section 1: a host or rack failure takes
 * regions with it, a process crash does not). After the domains D fail, the survivors V' keep
 * their regions, the lost regions never count, and a quorum still needs more than floor(n/2) of
 * all n acceptors. A live set S inside V' reaches N[S] \ P_D, i.e. its closed neighbourhood in the
 * induced graph G[V'], so further crashes are tolerated up to |V'| - 1 - s*_D where s*_D is the
 * largest S in V' with |N_{G[V']}[S]| ≤ floor(n/2).
 *
 * <p><b>Certified</b> (sound for every choice of r domains): N_{G[V']}[S] = N_G[S] \ P_D has at least
 * |N_G[S]| - |P_D| vertices, so a blocked S has |N_G[S]| ≤ floor(n/2) + |P_D| and the plan's own
 * proven bounds ({@link CertifiedBound#liveSetUpperBound}) apply at that raised threshold; the bound
 * only weakens as |P_D| grows, so the r largest domains are the worst case. Exact values replace
 * it when the graph is small enough for {@link ExactTolerance} and every combination is tried.
 *
 * <p><b>Attack</b>: every combination of r domains when there are at most {@code exhaustiveLimit},
 * otherwise a documented heuristic: the r largest domains plus seeded random combinations up to
 * that limit (the true worst case may then be worse than reported). Each combination gets an
 * {@link AttackSearch} on G[V'] with an equal share of the budget.
 */
public final class FailureDomainTolerance
{
    private final long seed;
    private final long attackBudgetMillis;
    private final int maxFailedDomains;
    private final int exhaustiveLimit;
    private final ExactTolerance exact;

    /**
     * @param seed               seed for combination sampling and attacks.
     * @param attackBudgetMillis total attack time over all levels and combinations.
     * @param maxFailedDomains   the largest number of failed domains to examine.
     * @param exhaustiveLimit    the most combinations per level tried (all of them if at most this many).
     * @param exact              exact solver for small survivor graphs, or null.
     */
    public FailureDomainTolerance(
        final long seed,
        final long attackBudgetMillis,
        final int maxFailedDomains,
        final int exhaustiveLimit,
        final ExactTolerance exact)
    {
        if (attackBudgetMillis < 0 || maxFailedDomains < 0 || exhaustiveLimit < 1)
        {
            throw new IllegalArgumentException("failure-domain analysis needs attackBudgetMillis >= 0, " +
                "maxFailedDomains >= 0 and exhaustiveLimit >= 1; got " + attackBudgetMillis + ", " +
                maxFailedDomains + ", " + exhaustiveLimit);
        }
        this.seed = seed;
        this.attackBudgetMillis = attackBudgetMillis;
        this.maxFailedDomains = maxFailedDomains;
        this.exhaustiveLimit = exhaustiveLimit;
        this.exact = exact;
    }

    /**
     * @param graph    the plan graph.
     * @param domainOf domain label (≥ 0) of every process, length n.
     * @param spectrum spectral estimate of {@code graph}, or null for combinatorial bounds only.
     */
    public FailureDomainReport analyze(final Graph graph, final int[] domainOf, final SpectrumEstimate spectrum)
    {
        final int n = graph.n();
        if (domainOf.length != n)
        {
            throw new IllegalArgumentException("domain labels cover " + domainOf.length + " processes but the plan has " +
                n + ": give exactly one label per process");
        }
        final int[] dense = new int[n];
        final int[] labels = denseLabels(domainOf, dense);
        final int domains = labels.length;
        final int[] sizes = new int[domains];
        for (final int d : dense)
        {
            sizes[d]++;
        }
        final Integer[] bySize = new Integer[domains];
        Arrays.setAll(bySize, i -> i);
        Arrays.sort(bySize, (a, b) -> sizes[b] != sizes[a] ? Integer.compare(sizes[b], sizes[a]) : Integer.compare(a, b));

        final int threshold = n / 2;
        final int levels = Math.min(maxFailedDomains, domains);
        final List<DomainFailureLevel> out = new ArrayList<>();
        final SplittableRandom random = new SplittableRandom(seed);
        for (int r = 0; r <= levels; r++)
        {
            final List<int[]> combinations = new ArrayList<>();
            final boolean exhaustive = binomialAtMost(domains, r, exhaustiveLimit);
            if (exhaustive)
            {
                enumerate(domains, r, 0, new int[r], 0, combinations);
            }
            else
            {
                final Set<String> seen = new LinkedHashSet<>();
                final int[] largest = new int[r];
                for (int i = 0; i < r; i++)
                {
                    largest[i] = bySize[i];
                }
                addDistinct(largest, combinations, seen);
                for (int attempt = 0; combinations.size() < exhaustiveLimit && attempt < 4 * exhaustiveLimit; attempt++)
                {
                    addDistinct(randomCombination(domains, r, random), combinations, seen);
                }
            }
            int lost = 0;
            for (int i = 0; i < r; i++)
            {
                lost += sizes[bySize[i]];
            }
            final long perCombination = attackBudgetMillis / (long)(levels + 1) / combinations.size();
            int attackWorst = Integer.MAX_VALUE;
            int[] attackDomains = new int[0];
            int[] attackWitness = new int[0];
            boolean allExact = exhaustive && exact != null;
            int exactWorst = Integer.MAX_VALUE;
            for (int c = 0; c < combinations.size(); c++)
            {
                final int[] combination = combinations.get(c);
                final boolean[] dead = new boolean[domains];
                for (final int d : combination)
                {
                    dead[d] = true;
                }
                final int[] survivors = survivors(dense, dead);
                final Graph induced = induced(graph, survivors);
                final int m = survivors.length;
                final int tolerance;
                final int[] witness;
                if (m <= threshold)
                {
                    tolerance = -1;
                    witness = survivors;
                }
                else
                {
                    final AttackResult attack = new AttackSearch(seed + 7919L * r + c, perCombination)
                        .search(induced, threshold, null);
                    tolerance = m - 1 - attack.witness().length;
                    witness = new int[attack.witness().length];
                    for (int i = 0; i < witness.length; i++)
                    {
                        witness[i] = survivors[attack.witness()[i]];
                    }
                }
                if (tolerance < attackWorst)
                {
                    attackWorst = tolerance;
                    attackDomains = new int[combination.length];
                    for (int i = 0; i < combination.length; i++)
                    {
                        attackDomains[i] = labels[combination[i]];
                    }
                    attackWitness = witness;
                }
                if (allExact)
                {
                    final OptionalInt s = m <= threshold ? OptionalInt.of(m) : exact.maxBlockedSetSize(induced, threshold);
                    if (s.isPresent())
                    {
                        exactWorst = Math.min(exactWorst, m - 1 - s.getAsInt());
                    }
                    else
                    {
                        allExact = false;
                    }
                }
            }
            final int certified = certifiedFurtherCrashes(graph, spectrum, n - lost, lost, threshold);
            final OptionalInt exactValue = allExact ? OptionalInt.of(exactWorst) : OptionalInt.empty();
            final String method = (exhaustive ? "exhaustive over " + combinations.size() + " combinations" :
                "heuristic: the " + r + " largest domains and " + (combinations.size() - 1) +
                " seeded random combinations of " + r + " domains; the worst case may be worse") +
                "; certified via the raised threshold floor(n/2) + |P_D| = " + (threshold + lost);
            out.add(new DomainFailureLevel(r, lost, allExact ? exactWorst : certified, attackWorst, exactValue,
                attackDomains, attackWitness, combinations.size(), exhaustive, method));
            if (attackWorst < 0)
            {
                // More failed domains can only make it worse: consensus is already blocked.
                break;
            }
        }
        int largest = 0;
        for (final int s : sizes)
        {
            largest = Math.max(largest, s);
        }
        return new FailureDomainReport(domains, largest, List.copyOf(out),
            "Failed domains lose their processes and regions; counts are further process crashes among survivors " +
            "(regions survive). Certified: |N_G[S] minus lost| >= |N_G[S]| - lost, so the plan's proven live-set " +
            "bound at threshold floor(n/2) + lost applies, worst for the largest domains; exact when the " +
            "survivor graphs are small and every combination was tried. Attack: concrete blocking live sets, " +
            "exhaustive or heuristic as each level says.");
    }

    private static int certifiedFurtherCrashes(
        final Graph graph, final SpectrumEstimate spectrum, final int survivors, final int lost, final int threshold)
    {
        if (survivors <= threshold)
        {
            return -1;
        }
        final int sUpper = Math.min(threshold, CertifiedBound.liveSetUpperBound(graph, spectrum, threshold + lost).size());
        return survivors - 1 - Math.min(survivors, sUpper);
    }

    private static int[] denseLabels(final int[] domainOf, final int[] dense)
    {
        final java.util.TreeMap<Integer, Integer> index = new java.util.TreeMap<>();
        for (int p = 0; p < domainOf.length; p++)
        {
            if (domainOf[p] < 0)
            {
                throw new IllegalArgumentException("process " + p + " has domain label " + domainOf[p] +
                    ": labels must be >= 0");
            }
            index.putIfAbsent(domainOf[p], 0);
        }
        final int[] labels = new int[index.size()];
        int next = 0;
        for (final var entry : index.entrySet())
        {
            labels[next] = entry.getKey();
            entry.setValue(next++);
        }
        for (int p = 0; p < domainOf.length; p++)
        {
            dense[p] = index.get(domainOf[p]);
        }
        return labels;
    }

    private static boolean binomialAtMost(final int n, final int k, final int limit)
    {
        long value = 1;
        for (int i = 0; i < k; i++)
        {
            value = value * (n - i) / (i + 1);
            if (value > limit)
            {
                return false;
            }
        }
        return true;
    }

    private static void enumerate(
        final int domains, final int r, final int from, final int[] current, final int depth, final List<int[]> out)
    {
        if (depth == r)
        {
            out.add(current.clone());
            return;
        }
        for (int d = from; d <= domains - (r - depth); d++)
        {
            current[depth] = d;
            enumerate(domains, r, d + 1, current, depth + 1, out);
        }
    }

    private static int[] randomCombination(final int domains, final int r, final SplittableRandom random)
    {
        final int[] pool = new int[domains];
        Arrays.setAll(pool, i -> i);
        for (int i = 0; i < r; i++)
        {
            final int j = i + random.nextInt(domains - i);
            final int tmp = pool[i];
            pool[i] = pool[j];
            pool[j] = tmp;
        }
        final int[] combination = Arrays.copyOf(pool, r);
        Arrays.sort(combination);
        return combination;
    }

    private static void addDistinct(final int[] combination, final List<int[]> out, final Set<String> seen)
    {
        final int[] sorted = combination.clone();
        Arrays.sort(sorted);
        if (seen.add(Arrays.toString(sorted)))
        {
            out.add(sorted);
        }
    }

    private static int[] survivors(final int[] dense, final boolean[] dead)
    {
        int count = 0;
        for (final int d : dense)
        {
            count += dead[d] ? 0 : 1;
        }
        final int[] survivors = new int[count];
        for (int p = 0, i = 0; p < dense.length; p++)
        {
            if (!dead[dense[p]])
            {
                survivors[i++] = p;
            }
        }
        return survivors;
    }

    /** The subgraph induced by {@code vertices} (sorted), relabelled 0..k-1 in that order. */
    static Graph induced(final Graph graph, final int[] vertices)
    {
        final int[] index = new int[graph.n()];
        Arrays.fill(index, -1);
        for (int i = 0; i < vertices.length; i++)
        {
            index[vertices[i]] = i;
        }
        final Graph.Builder builder = Graph.builder(vertices.length);
        for (int i = 0; i < vertices.length; i++)
        {
            final int v = vertices[i];
            for (int k = 0; k < graph.degree(v); k++)
            {
                final int j = index[graph.neighbour(v, k)];
                if (j > i)
                {
                    builder.addEdge(i, j);
                }
            }
        }
        return builder.build();
    }
}
