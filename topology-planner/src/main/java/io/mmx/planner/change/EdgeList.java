package io.mmx.planner.change;

import java.util.Arrays;

/**
 * An immutable list of undirected edges {@code (u, v)} with {@code u < v}, in lexicographic
 * order. Stored packed, one long per edge, so a diff at n = 1,000,000 stays compact.
 */
public final class EdgeList
{
    private static final EdgeList EMPTY = new EdgeList(new long[0]);

    private final long[] packed;

    private EdgeList(final long[] packed)
    {
        this.packed = packed;
    }

    static EdgeList empty()
    {
        return EMPTY;
    }

    /** Takes ownership of {@code packed[0..size)}, edges packed by {@link #pack}; sorts them. */
    static EdgeList ofPacked(final long[] packed, final int size)
    {
        final long[] edges = Arrays.copyOf(packed, size);
        Arrays.sort(edges);
        return new EdgeList(edges);
    }

    static long pack(final int u, final int v)
    {
        final int lo = Math.min(u, v);
        final int hi = Math.max(u, v);
        return ((long)lo << 32) | (hi & 0xFFFF_FFFFL);
    }

    /** Edges in the list. */
    public int size()
    {
        return packed.length;
    }

    /** True if the list has no edge. */
    public boolean isEmpty()
    {
        return packed.length == 0;
    }

    /** Smaller endpoint of edge {@code i}. */
    public int u(final int i)
    {
        return (int)(packed[i] >>> 32);
    }

    /** Larger endpoint of edge {@code i}. */
    public int v(final int i)
    {
        return (int)packed[i];
    }

    /** True if the list has the edge between {@code u} and {@code v}. */
    public boolean contains(final int u, final int v)
    {
        return Arrays.binarySearch(packed, pack(u, v)) >= 0;
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof EdgeList && Arrays.equals(((EdgeList)o).packed, packed);
    }

    @Override
    public int hashCode()
    {
        return Arrays.hashCode(packed);
    }

    @Override
    public String toString()
    {
        final StringBuilder text = new StringBuilder("[");
        for (int i = 0; i < packed.length; i++)
        {
            text.append(i == 0 ? "" : ", ").append('(').append(u(i)).append(", ").append(v(i)).append(')');
        }
        return text.append(']').toString();
    }
}
