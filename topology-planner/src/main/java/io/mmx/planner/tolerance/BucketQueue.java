package io.mmx.planner.tolerance;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Vertices keyed by a small integer, in array buckets with swap-removal: O(1) insert, remove and
 * re-key, and a uniformly random pick among the non-tabu vertices of the highest non-empty key.
 * Local search in {@link AttackSearch} re-keys about (d + 1)^2 vertices per move and picks twice,
 * so neither may cost O(n); uniform ties matter because the interior count has wide plateaus.
 */
final class BucketQueue
{
    private static final int NONE = -1;
    private static final int RANDOM_PROBES = 4;

    private final int[][] items;
    private final int[] sizes;
    private final int[] keyOf;
    private final int[] position;
    private int highest = NONE;

    BucketQueue(final int vertices, final int keys)
    {
        items = new int[keys][];
        sizes = new int[keys];
        keyOf = new int[vertices];
        position = new int[vertices];
        clear();
    }

    void clear()
    {
        Arrays.fill(sizes, 0);
        Arrays.fill(keyOf, NONE);
        highest = NONE;
    }

    void insert(final int v, final int key)
    {
        int[] bucket = items[key];
        if (bucket == null || sizes[key] == bucket.length)
        {
            bucket = Arrays.copyOf(bucket == null ? new int[0] : bucket, Math.max(8, 2 * sizes[key]));
            items[key] = bucket;
        }
        position[v] = sizes[key];
        bucket[sizes[key]++] = v;
        keyOf[v] = key;
        if (key > highest)
        {
            highest = key;
        }
    }

    void remove(final int v)
    {
        final int key = keyOf[v];
        if (key == NONE)
        {
            return;
        }
        final int[] bucket = items[key];
        final int last = bucket[--sizes[key]];
        bucket[position[v]] = last;
        position[last] = position[v];
        keyOf[v] = NONE;
    }

    /** The key of {@code v}, or -1 when it is not queued. */
    int keyOf(final int v)
    {
        return keyOf[v];
    }

    void update(final int v, final int key)
    {
        if (keyOf[v] != key)
        {
            remove(v);
            insert(v, key);
        }
    }

    /**
     * A uniformly random vertex among those with the highest key whose {@code tabuUntil} is at
     * most {@code iteration}; -1 if every vertex is tabu.
     */
    int pick(final long[] tabuUntil, final long iteration, final SplittableRandom random)
    {
        while (highest >= 0 && sizes[highest] == 0)
        {
            highest--;
        }
        for (int key = highest; key >= 0; key--)
        {
            final int size = sizes[key];
            if (size == 0)
            {
                continue;
            }
            final int[] bucket = items[key];
            for (int probe = 0; probe < RANDOM_PROBES; probe++)
            {
                final int v = bucket[random.nextInt(size)];
                if (tabuUntil[v] <= iteration)
                {
                    return v;
                }
            }
            // Mostly tabu: reservoir-sample the eligible ones so the choice stays uniform.
            int chosen = NONE;
            int eligible = 0;
            for (int i = 0; i < size; i++)
            {
                final int v = bucket[i];
                if (tabuUntil[v] <= iteration && random.nextInt(++eligible) == 0)
                {
                    chosen = v;
                }
            }
            if (chosen != NONE)
            {
                return chosen;
            }
        }
        return NONE;
    }
}
