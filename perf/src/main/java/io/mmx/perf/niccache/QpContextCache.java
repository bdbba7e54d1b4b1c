package io.mmx.perf.niccache;

import java.util.Arrays;

/**
 * A set-associative LRU cache of QP contexts, as held in NIC SRAM. A QP maps to set
 * {@code qpId mod sets}: NICs hand out QP numbers consecutively and index the context cache by
 * their low bits, so a benchmark's consecutive QPs spread evenly over the sets.
 */
public final class QpContextCache
{
    private static final int EMPTY = -1;

    private final int sets;
    private final int ways;
    private final int[] tags;

    /**
     * @param entries contexts the cache holds; a multiple of {@code ways}.
     * @param ways    associativity; {@code ways == entries} is fully associative.
     */
    public QpContextCache(final int entries, final int ways)
    {
        if (ways < 1 || entries < ways || entries % ways != 0)
        {
            throw new IllegalArgumentException("a cache of " + entries + " entries cannot have " + ways +
                " ways; entries must be a positive multiple of ways");
        }
        this.sets = entries / ways;
        this.ways = ways;
        this.tags = new int[entries];
        Arrays.fill(tags, EMPTY);
    }

    /**
     * References one QP context, loading it on a miss (evicting the set's least recently used).
     *
     * @return true on a hit.
     */
    public boolean access(final int qpId)
    {
        final int base = (qpId % sets) * ways;
        int found = ways - 1;
        boolean hit = false;
        for (int i = 0; i < ways; i++)
        {
            final int tag = tags[base + i];
            if (tag == qpId)
            {
                found = i;
                hit = true;
                break;
            }
            if (tag == EMPTY)
            {
                found = i;
                break;
            }
        }
        // Slots 0..ways-1 run from most to least recently used.
        System.arraycopy(tags, base, tags, base + 1, found);
        tags[base] = qpId;
        return hit;
    }
}
