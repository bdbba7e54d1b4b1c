package io.mmx.planner.tolerance;

import io.mmx.planner.graph.Graph;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Searches, within a time budget, for a large live set S with |N[S]| ≤ threshold (floor(n/2) for
 * the plan), which proves f_max ≤ n - 1 - |S|.
 *
 * <p>It works on the dual view: pick a cover C of exactly {@code threshold} vertices; the largest
 * S with N[S] inside C is the interior {v : N[v] inside C}. Tabu search swaps one vertex into C and
 * one out, keeping for every vertex w the count {@code missing[w]} = |N[w] \ C| and, per vertex, how
 * many of its closed neighbours are interior, one or two vertices short of it. A swap adds the
 * outside vertex that completes the most interiors (ties: the most vertices then one short) and
 * removes the cover vertex that breaks the fewest (ties: the fewest one short); the ties give the
 * search a gradient across the wide plateaus of the interior count, and bucket queues make each
 * swap O(d^2) instead of O(n) (about 1.7 million swaps per CPU second at n = 4096, d = 8).
 * Weighting near-interior vertices more heavily was tried and did worse. Starts: sweeps of the
 * lambda2 Ritz vector when given (the best starts on random regular graphs), then, in turn,
 * perturbations of the worker's best cover (iterated local search), breadth-first balls from
 * random vertices, and crossovers: the intersection of two covers from a small pool of the best
 * distinct covers found so far, filled greedily back to the cover size. Recombination is what
 * made the difference: the covers of good local optima share most of their vertices, and
 * searching from their common core reached in 3 s what restarts alone reached in 10 s (docs/topo.md,
 * {@code bin/perf attack}). When ten restarts in a row bring no improvement the pool is cleared and
 * a new epoch begins from balls, so the pool does not settle on one basin. From {@value #PORTFOLIO_MIN_VERTICES} vertices up two such searches
 * run in parallel, one per core of the planner's two-core target, with different seeds and tabu
 * tenures, and share the pool. The witness is verified against the graph before it is returned;
 * if verification ever failed, the empty set would be returned instead.
 *
 * <p>The budget is wall-clock time from the call: under load the searches get less CPU and find
 * less ({@link #onThreadCpuTime} counts each worker's CPU time instead, for benchmarks). With two workers, which covers each sees in the shared pool depends on thread timing, so
 * only the single-worker search (below {@value #PORTFOLIO_MIN_VERTICES} vertices) replays exactly;
 * the witness is checkable either way, and plans leave attack results out of their content hash.
 */
public final class AttackSearch
{
    /**
     * Per worker: tabu tenure after adding a vertex to the cover (it may not leave) and after
     * removing one (it may not return), each plus up to twice as much at random.
     */
    private static final int[][] TENURES = {{3, 7}, {5, 12}};
    /** Graphs from this size up run one worker per tenure setting in parallel; smaller ones finish at once anyway. */
    private static final int PORTFOLIO_MIN_VERTICES = 512;
    /** Seed offset between workers (an odd constant, so the streams differ). */
    private static final long WORKER_SEED_STRIDE = 0x9E3779B97F4A7C15L;
    /**
     * Restarts cycle through this many kinds: crossover (once the pool holds two covers), then
     * perturbations of the best; a fresh ball replaces the crossover while the pool is short.
     */
    private static final int RESTART_CYCLE = 3;
    /** A tabu run ends after this many iterations per vertex without improvement (plus a constant). */
    private static final long PATIENCE_PER_VERTEX = 10;
    /** The same without recombination: longer runs were better there (the previous search, kept as a baseline). */
    private static final long PATIENCE_PER_VERTEX_WITHOUT_RECOMBINATION = 50;
    /**
     * Restarts in a row without improving the worker's epoch best after which the pool is cleared
     * and a new epoch starts from balls: without it the pool fills with variants of one local
     * optimum and crossovers only return to it (seen on the graph of seed 5, stuck at 655).
     */
    private static final int EPOCH_STALL = 10;
    /** Distinct covers kept for crossover. */
    private static final int POOL_SIZE = 6;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final long seed;
    private final long budgetNanos;
    private final boolean recombination;
    /** Whether the budget is each worker thread's CPU time rather than wall-clock time from the call. */
    private final boolean threadCpuBudget;

    /**
     * @param seed         seed of every random choice; the same seed and budget replay the same run
     *                     as long as the time checks fall at the same iterations.
     * @param budgetMillis time budget (≥ 0); the first start and a few hundred swaps always run.
     */
    public AttackSearch(final long seed, final long budgetMillis)
    {
        this(seed, budgetMillis, true, false);
    }

    private AttackSearch(final long seed, final long budgetMillis, final boolean recombination,
        final boolean threadCpuBudget)
    {
        if (budgetMillis < 0)
        {
            throw new IllegalArgumentException("attack time budget must be >= 0 ms, got " + budgetMillis);
        }
        this.seed = seed;
        this.budgetNanos = budgetMillis * 1_000_000L;
        this.recombination = recombination;
        this.threadCpuBudget = threadCpuBudget;
    }

    /**
     * The search as it was before crossovers: restarts from perturbations and balls only, and
     * independent workers. Kept as the baseline that {@code bin/perf planner} measures against.
     */
    public static AttackSearch withoutRecombination(final long seed, final long budgetMillis)
    {
        return new AttackSearch(seed, budgetMillis, false, false);
    }

    /**
     * The same search with the budget counted in each worker thread's CPU time: what the search
     * would do with the budget on otherwise idle cores, whatever else runs. For benchmarks on a
     * shared machine ({@code bin/perf attack --cpu}); plans use wall-clock time.
     */
    public AttackSearch onThreadCpuTime()
    {
        if (!THREADS.isCurrentThreadCpuTimeSupported())
        {
            throw new IllegalStateException("this JVM cannot measure a thread's CPU time; use the wall-clock budget");
        }
        return new AttackSearch(seed, budgetNanos / 1_000_000L, recombination, true);
    }

    /** Now on the budget's clock, read on the worker's own thread. */
    private static long now(final boolean threadCpu)
    {
        return threadCpu ? THREADS.getCurrentThreadCpuTime() : System.nanoTime();
    }

    /** Attack on the plan's own threshold floor(n/2), without a spectral start. */
    public AttackResult search(final Graph graph)
    {
        return search(graph, graph.n() / 2, null, Integer.MAX_VALUE);
    }

    /** As {@link #search(Graph, int, double[], int)} without a known optimum. */
    public AttackResult search(final Graph graph, final int threshold, final double[] sweepVector)
    {
        return search(graph, threshold, sweepVector, Integer.MAX_VALUE);
    }

    /**
     * @param graph       the graph.
     * @param threshold   blocked means |N[S]| ≤ threshold.
     * @param sweepVector a vector of length n to sweep (e.g. the lambda2 Ritz vector), or null.
     * @param stopAtSize  a proven upper bound on the answer: reaching it ends the search early.
     */
    public AttackResult search(final Graph graph, final int threshold, final double[] sweepVector, final int stopAtSize)
    {
        final long start = System.nanoTime();
        final int n = graph.n();
        final int coverSize = Math.max(0, Math.min(threshold, n));
        if (coverSize == n || coverSize == 0)
        {
            // All of V is blocked when the threshold reaches n; nothing non-empty is when it is 0.
            final int[] witness = coverSize == n ? identity(n) : new int[0];
            return verified(graph, threshold, witness, start, coverSize == n ? "whole-set" : "empty");
        }
        final long deadline = start + budgetNanos;
        final Worker[] workers = new Worker[n >= PORTFOLIO_MIN_VERTICES ? TENURES.length : 1];
        final CoverPool pool = new CoverPool(POOL_SIZE);
        for (int w = 0; w < workers.length; w++)
        {
            workers[w] = new Worker(graph, coverSize, sweepVector, stopAtSize, deadline, w, pool);
        }
        if (workers.length == 1)
        {
            workers[0].run();
        }
        else
        {
            // One worker per core on the planner's two-core target; each is deterministic given the seed.
            final Thread[] threads = new Thread[workers.length - 1];
            for (int w = 1; w < workers.length; w++)
            {
                threads[w - 1] = new Thread(workers[w], "attack-search-" + w);
                threads[w - 1].setDaemon(true);
                threads[w - 1].start();
            }
            workers[0].run();
            for (final Thread thread : threads)
            {
                try
                {
                    thread.join();
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while the attack search ran", ex);
                }
            }
        }
        Worker best = workers[0];
        for (final Worker worker : workers)
        {
            if (worker.bestInterior > best.bestInterior)
            {
                best = worker;
            }
        }
        return verified(graph, threshold, augment(graph, best.best, coverSize), start, best.bestMethod);
    }

    /**
     * One iterated tabu search with its own random stream and tabu tenures. Different tenures
     * reach different local optima on the same graph (on random 8-regular graphs at n = 4096 each
     * setting wins on some graphs), so a portfolio beats either alone.
     */
    private final class Worker implements Runnable
    {
        private final Graph graph;
        private final int coverSize;
        private final double[] sweepVector;
        private final int stopAtSize;
        private final long deadline;
        private final int index;
        private final CoverPool pool;
        boolean[] best;
        int bestInterior = -1;
        String bestMethod = "empty";

        Worker(final Graph graph, final int coverSize, final double[] sweepVector, final int stopAtSize,
            final long deadline, final int index, final CoverPool pool)
        {
            this.pool = pool;
            this.graph = graph;
            this.coverSize = coverSize;
            this.sweepVector = sweepVector;
            this.stopAtSize = stopAtSize;
            this.deadline = deadline;
            this.index = index;
        }

        @Override
        public void run()
        {
            final int n = graph.n();
            // A CPU-time budget starts when the worker does, on its own thread's clock.
            final long deadline = threadCpuBudget ? now(true) + budgetNanos : this.deadline;
            final SplittableRandom random = new SplittableRandom(seed + WORKER_SEED_STRIDE * index);
            final CoverState state = new CoverState(graph, TENURES[index][0], TENURES[index][1]);
            final long patience = (recombination ? PATIENCE_PER_VERTEX : PATIENCE_PER_VERTEX_WITHOUT_RECOMBINATION) * n +
                20_000L;
            int restart = 0;
            // The cover perturbations start from: the best of the current epoch, not of the whole run.
            boolean[] anchor = null;
            int anchorInterior = -1;
            int stalled = 0;
            do
            {
                final String method;
                boolean[][] parents = null;
                if (restart < 2 && sweepVector != null && sweepVector.length == n)
                {
                    // Workers take the two sweep directions in opposite orders.
                    state.reset(sweep(sweepVector, coverSize, (restart + index) % 2 == 1));
                    method = "spectral-sweep+tabu";
                }
                else if (anchor != null && restart % RESTART_CYCLE != 0)
                {
                    final int strength = Math.max(2, coverSize / (20 + random.nextInt(80)));
                    state.reset(perturb(graph, anchor, random, strength));
                    method = "perturbed-best+tabu";
                }
                else if (recombination && (parents = pool.pickTwo(random)) != null)
                {
                    state.resetToCore(parents[0], parents[1], coverSize, random);
                    method = "crossover+tabu";
                }
                else
                {
                    state.reset(ball(graph, random.nextInt(n), coverSize));
                    method = "bfs-ball+tabu";
                }
                if (state.interior > bestInterior)
                {
                    bestInterior = state.interior;
                    best = state.inC.clone();
                    bestMethod = method;
                }
                final int found = state.tabu(random, deadline, threadCpuBudget, patience, stopAtSize);
                if (found > bestInterior)
                {
                    bestInterior = found;
                    best = state.bestCover.clone();
                    bestMethod = method;
                }
                if (found > anchorInterior)
                {
                    anchorInterior = found;
                    anchor = state.bestCover.clone();
                    stalled = 0;
                }
                else if (recombination && ++stalled >= EPOCH_STALL)
                {
                    // The pool has converged on one basin: forget it and seed a new one from fresh balls.
                    anchor = null;
                    anchorInterior = -1;
                    stalled = 0;
                    pool.clear();
                }
                if (recombination)
                {
                    pool.offer(state.bestCover, found);
                }
                restart++;
            }
            while (now(threadCpuBudget) < deadline && bestInterior < stopAtSize);
        }
    }

    /**
     * The best distinct covers found by any worker, for crossover. Workers offer and pick under one
     * lock; both happen once per tabu run (hundreds of milliseconds apart), so it is never contended.
     */
    private static final class CoverPool
    {
        private final int capacity;
        private final List<boolean[]> covers = new ArrayList<>();
        private final List<Integer> scores = new ArrayList<>();

        CoverPool(final int capacity)
        {
            this.capacity = capacity;
        }

        /** Keeps {@code cover} (copied) if it is new and at least as good as the worst kept. */
        synchronized void offer(final boolean[] cover, final int score)
        {
            for (final boolean[] kept : covers)
            {
                if (Arrays.equals(kept, cover))
                {
                    return;
                }
            }
            if (covers.size() < capacity)
            {
                covers.add(cover.clone());
                scores.add(score);
                return;
            }
            int worst = 0;
            for (int i = 1; i < scores.size(); i++)
            {
                if (scores.get(i) < scores.get(worst))
                {
                    worst = i;
                }
            }
            if (score >= scores.get(worst))
            {
                covers.set(worst, cover.clone());
                scores.set(worst, score);
            }
        }

        /** Empties the pool (a new epoch); the workers keep their best covers for the result. */
        synchronized void clear()
        {
            covers.clear();
            scores.clear();
        }

        /** Two different kept covers at random (shared, not copied: kept covers are never written), or null. */
        synchronized boolean[][] pickTwo(final SplittableRandom random)
        {
            if (covers.size() < 2)
            {
                return null;
            }
            final int a = random.nextInt(covers.size());
            final int b = (a + 1 + random.nextInt(covers.size() - 1)) % covers.size();
            return new boolean[][] {covers.get(a), covers.get(b)};
        }
    }

    /** Interior of the cover, then greedily any vertex whose extra coverage still fits. */
    private static int[] augment(final Graph graph, final boolean[] cover, final int threshold)
    {
        final int n = graph.n();
        final boolean[] inS = new boolean[n];
        final boolean[] covered = new boolean[n];
        int coveredCount = 0;
        for (int v = 0; v < n; v++)
        {
            if (isInterior(graph, cover, v))
            {
                inS[v] = true;
            }
        }
        for (int v = 0; v < n; v++)
        {
            if (inS[v])
            {
                coveredCount += mark(graph, v, covered);
            }
        }
        boolean grew = true;
        while (grew)
        {
            grew = false;
            for (int v = 0; v < n; v++)
            {
                if (!inS[v] && coveredCount + newCoverage(graph, v, covered) <= threshold)
                {
                    inS[v] = true;
                    coveredCount += mark(graph, v, covered);
                    grew = true;
                }
            }
        }
        int size = 0;
        for (int v = 0; v < n; v++)
        {
            size += inS[v] ? 1 : 0;
        }
        final int[] witness = new int[size];
        for (int v = 0, i = 0; v < n; v++)
        {
            if (inS[v])
            {
                witness[i++] = v;
            }
        }
        return witness;
    }

    private static boolean isInterior(final Graph graph, final boolean[] cover, final int v)
    {
        if (!cover[v])
        {
            return false;
        }
        for (int i = 0; i < graph.degree(v); i++)
        {
            if (!cover[graph.neighbour(v, i)])
            {
                return false;
            }
        }
        return true;
    }

    private static int newCoverage(final Graph graph, final int v, final boolean[] covered)
    {
        int count = covered[v] ? 0 : 1;
        for (int i = 0; i < graph.degree(v); i++)
        {
            count += covered[graph.neighbour(v, i)] ? 0 : 1;
        }
        return count;
    }

    private static int mark(final Graph graph, final int v, final boolean[] covered)
    {
        int count = 0;
        if (!covered[v])
        {
            covered[v] = true;
            count++;
        }
        for (int i = 0; i < graph.degree(v); i++)
        {
            final int w = graph.neighbour(v, i);
            if (!covered[w])
            {
                covered[w] = true;
                count++;
            }
        }
        return count;
    }

    private static AttackResult verified(
        final Graph graph, final int threshold, final int[] witness, final long start, final String method)
    {
        final int n = graph.n();
        final boolean[] inSet = new boolean[n];
        for (final int v : witness)
        {
            inSet[v] = true;
        }
        final int closed = graph.closedNeighbourhoodSize(inSet);
        final long elapsedMillis = (System.nanoTime() - start) / 1_000_000L;
        if (closed > threshold)
        {
            // Never expected; an attack must not claim a witness it cannot show.
            return new AttackResult(n - 1, new int[0], 0, elapsedMillis, "empty (search produced an invalid set)");
        }
        return new AttackResult(n - 1 - witness.length, witness, closed, elapsedMillis, method);
    }

    private static int[] identity(final int n)
    {
        final int[] all = new int[n];
        Arrays.setAll(all, i -> i);
        return all;
    }

    /**
     * Runs {@code runs} short tabu runs from balls and crossovers on {@code graph} and reports
     * whether the incremental bookkeeping matched a recomputation after every one (for tests).
     */
    static boolean bookkeepingStaysConsistent(final Graph graph, final long seed, final int runs)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final CoverState state = new CoverState(graph, 3, 7);
        final int coverSize = graph.n() / 2;
        boolean[] previous = null;
        for (int run = 0; run < runs; run++)
        {
            final boolean[] start = ball(graph, random.nextInt(graph.n()), coverSize);
            if (previous != null && run % 2 == 1)
            {
                state.resetToCore(previous, start, coverSize, random);
            }
            else
            {
                state.reset(start);
            }
            if (!state.consistent())
            {
                return false;
            }
            state.tabu(random, Long.MAX_VALUE, false, 2_000, Integer.MAX_VALUE);
            if (!state.consistent())
            {
                return false;
            }
            previous = state.bestCover.clone();
        }
        return true;
    }

    /** The first {@code size} vertices of a breadth-first search from {@code source} (then any). */
    static boolean[] ball(final Graph graph, final int source, final int size)
    {
        final int n = graph.n();
        final boolean[] inC = new boolean[n];
        final int[] queue = new int[n];
        int head = 0;
        int tail = 0;
        int taken = 0;
        int nextSource = 0;
        queue[tail++] = source;
        inC[source] = true;
        taken++;
        while (taken < size)
        {
            if (head == tail)
            {
                while (inC[nextSource])
                {
                    nextSource++;
                }
                inC[nextSource] = true;
                queue[tail++] = nextSource;
                taken++;
                continue;
            }
            final int u = queue[head++];
            for (int i = 0; i < graph.degree(u) && taken < size; i++)
            {
                final int w = graph.neighbour(u, i);
                if (!inC[w])
                {
                    inC[w] = true;
                    queue[tail++] = w;
                    taken++;
                }
            }
        }
        return inC;
    }

    private static boolean[] sweep(final double[] vector, final int size, final boolean descending)
    {
        final int n = vector.length;
        final Integer[] order = new Integer[n];
        Arrays.setAll(order, i -> i);
        Arrays.sort(order, (a, b) -> descending ? Double.compare(vector[b], vector[a]) : Double.compare(vector[a], vector[b]));
        final boolean[] inC = new boolean[n];
        for (int i = 0; i < size; i++)
        {
            inC[order[i]] = true;
        }
        return inC;
    }

    /** Swaps {@code swaps} random cover vertices out for random outside vertices (a kick for iterated local search). */
    private static boolean[] perturb(final Graph graph, final boolean[] cover, final SplittableRandom random, final int swaps)
    {
        final int n = graph.n();
        final boolean[] inC = cover.clone();
        for (int k = 0; k < swaps; k++)
        {
            int out;
            do
            {
                out = random.nextInt(n);
            }
            while (!inC[out]);
            int in;
            do
            {
                in = random.nextInt(n);
            }
            while (inC[in]);
            inC[out] = false;
            inC[in] = true;
        }
        return inC;
    }

    /**
     * The cover C with incremental bookkeeping: missing[w] = |N[w] \ C|, the interior count, and
     * for every vertex x the numbers count0/1/2[x] of closed neighbours w with missing[w] = 0, 1, 2.
     * Adding x to C makes count1[x] vertices interior (ties broken by count2[x], vertices then one
     * step away); removing x destroys count0[x] interior vertices (ties by count1[x]). Outside
     * vertices sit in {@link #adds}, cover vertices in {@link #removes}, keyed accordingly.
     */
    private static final class CoverState
    {
        /** Counts are clamped below this for keys, so keys stay few even for dense graphs. */
        private static final int MAX_RADIX = 64;
        /** count0, count1 and count2 share one long, 21 bits each (counts up to 2^21 - 1). */
        private static final int FIELD_BITS = 21;
        private static final long FIELD_MASK = (1L << FIELD_BITS) - 1;
        private final int clamp;
        private final int radix;
        private final int keys;

        private final int n;
        private final int[] offsets;
        private final int[] targets;
        final boolean[] inC;
        final int[] missing;
        /**
         * count0[x] | count1[x] << 21 | count2[x] << 42: one memory access per update, which is most
         * of a swap's cost (with three arrays the search made 1.34 times fewer swaps per CPU second).
         */
        private final long[] counts;
        private final BucketQueue adds;
        private final BucketQueue removes;
        final long[] addTabuUntil;
        final long[] removeTabuUntil;
        boolean[] bestCover;
        int interior;

        private final int addTenure;
        private final int removeTenure;

        CoverState(final Graph graph, final int addTenure, final int removeTenure)
        {
            this.addTenure = addTenure;
            this.removeTenure = removeTenure;
            this.n = graph.n();
            this.offsets = graph.offsets();
            this.targets = graph.targets();
            this.inC = new boolean[n];
            this.missing = new int[n];
            if (graph.maxDegree() + 1L > FIELD_MASK)
            {
                throw new IllegalArgumentException("the attack search packs neighbour counts in 21 bits; degree " +
                    graph.maxDegree() + " is too large");
            }
            this.counts = new long[n];
            // Counts never exceed maxDegree + 1: a radix just above keeps the bucket scans short.
            this.radix = Math.min(MAX_RADIX, graph.maxDegree() + 2);
            this.clamp = radix - 1;
            this.keys = radix * radix;
            this.adds = new BucketQueue(n, keys);
            this.removes = new BucketQueue(n, keys);
            this.addTabuUntil = new long[n];
            this.removeTabuUntil = new long[n];
        }

        private int addKey(final int x)
        {
            final long c = counts[x];
            return Math.min((int)((c >>> FIELD_BITS) & FIELD_MASK), clamp) * radix +
                Math.min((int)(c >>> (2 * FIELD_BITS)), clamp);
        }

        private int removeKey(final int x)
        {
            final long c = counts[x];
            return keys - 1 - (Math.min((int)(c & FIELD_MASK), clamp) * radix +
                Math.min((int)((c >>> FIELD_BITS) & FIELD_MASK), clamp));
        }

        private void requeue(final int x)
        {
            if (inC[x])
            {
                removes.update(x, removeKey(x));
            }
            else
            {
                adds.update(x, addKey(x));
            }
        }

        /**
         * Whether the incremental counts equal a recomputation from the cover (for tests): missing,
         * the interior count, the packed count0/1/2 and every queue key.
         */
        boolean consistent()
        {
            int recountInterior = 0;
            for (int w = 0; w < n; w++)
            {
                int m = inC[w] ? 0 : 1;
                for (int i = offsets[w]; i < offsets[w + 1]; i++)
                {
                    m += inC[targets[i]] ? 0 : 1;
                }
                if (m != missing[w])
                {
                    return false;
                }
                recountInterior += m == 0 ? 1 : 0;
            }
            for (int x = 0; x < n; x++)
            {
                long c = unit(missing[x]);
                for (int i = offsets[x]; i < offsets[x + 1]; i++)
                {
                    c += unit(missing[targets[i]]);
                }
                if (c != counts[x] || (inC[x] ? removes.keyOf(x) != removeKey(x) || adds.keyOf(x) >= 0 :
                    adds.keyOf(x) != addKey(x) || removes.keyOf(x) >= 0))
                {
                    return false;
                }
            }
            return recountInterior == interior;
        }

        void reset(final boolean[] cover)
        {
            System.arraycopy(cover, 0, inC, 0, n);
            interior = 0;
            for (int w = 0; w < n; w++)
            {
                int m = inC[w] ? 0 : 1;
                for (int i = offsets[w]; i < offsets[w + 1]; i++)
                {
                    m += inC[targets[i]] ? 0 : 1;
                }
                missing[w] = m;
                interior += m == 0 ? 1 : 0;
            }
            adds.clear();
            removes.clear();
            for (int x = 0; x < n; x++)
            {
                counts[x] = 0;
                tally(x, missing[x], 1);
                for (int i = offsets[x]; i < offsets[x + 1]; i++)
                {
                    tally(x, missing[targets[i]], 1);
                }
                if (inC[x])
                {
                    removes.insert(x, removeKey(x));
                }
                else
                {
                    adds.insert(x, addKey(x));
                }
            }
            Arrays.fill(addTabuUntil, 0);
            Arrays.fill(removeTabuUntil, 0);
            bestCover = inC.clone();
        }

        /**
         * Starts from the vertices both parents cover, then adds, one at a time, the outside vertex
         * that completes the most interiors until the cover has {@code coverSize} vertices.
         */
        void resetToCore(final boolean[] a, final boolean[] b, final int coverSize, final SplittableRandom random)
        {
            final boolean[] core = new boolean[n];
            int size = 0;
            for (int v = 0; v < n; v++)
            {
                core[v] = a[v] && b[v];
                size += core[v] ? 1 : 0;
            }
            reset(core);
            for (; size < coverSize; size++)
            {
                flip(adds.pick(addTabuUntil, 0, random), true);
            }
            System.arraycopy(inC, 0, bestCover, 0, n);
        }

        /** The packed-count increment for one closed neighbour with missing = m (none when m > 2). */
        private static long unit(final int m)
        {
            return m > 2 ? 0 : 1L << (FIELD_BITS * m);
        }

        private void tally(final int x, final int m, final int delta)
        {
            counts[x] += delta * unit(m);
        }

        private void changeMissing(final int w, final int delta)
        {
            final int before = missing[w];
            final int after = before + delta;
            missing[w] = after;
            if (before == 0)
            {
                interior--;
            }
            else if (after == 0)
            {
                interior++;
            }
            if (before > 2 && after > 2)
            {
                return;
            }
            final long change = unit(after) - unit(before);
            counts[w] += change;
            requeue(w);
            for (int i = offsets[w]; i < offsets[w + 1]; i++)
            {
                final int x = targets[i];
                counts[x] += change;
                requeue(x);
            }
        }

        private void flip(final int v, final boolean into)
        {
            if (into)
            {
                adds.remove(v);
                inC[v] = true;
                removes.insert(v, removeKey(v));
            }
            else
            {
                removes.remove(v);
                inC[v] = false;
                adds.insert(v, addKey(v));
            }
            final int delta = into ? -1 : 1;
            changeMissing(v, delta);
            for (int i = offsets[v]; i < offsets[v + 1]; i++)
            {
                changeMissing(targets[i], delta);
            }
        }

        /**
         * Tabu search from the current cover until the deadline, {@code patience} iterations
         * without improving on its own best, or reaching {@code stopAtSize}; returns the best
         * interior count seen (its cover in {@link #bestCover}).
         */
        int tabu(final SplittableRandom random, final long deadline, final boolean threadCpu, final long patience,
            final int stopAtSize)
        {
            int best = interior;
            long lastImprovement = 0;
            for (long iteration = 1; iteration - lastImprovement < patience && best < stopAtSize; iteration++)
            {
                if ((iteration & 0xFF) == 0 && now(threadCpu) > deadline)
                {
                    break;
                }
                final int in = adds.pick(addTabuUntil, iteration, random);
                if (in < 0)
                {
                    break;
                }
                flip(in, true);
                removeTabuUntil[in] = iteration + addTenure + random.nextInt(addTenure * 2 + 1);
                final int out = removes.pick(removeTabuUntil, iteration, random);
                if (out < 0)
                {
                    flip(in, false);
                    break;
                }
                flip(out, false);
                addTabuUntil[out] = iteration + removeTenure + random.nextInt(removeTenure * 2 + 1);
                if (interior > best)
                {
                    best = interior;
                    lastImprovement = iteration;
                    System.arraycopy(inC, 0, bestCover, 0, n);
                }
            }
            return best;
        }
    }
}
