package io.mmx.runtime.sim;

import java.util.Arrays;

/**
 * Simulated-time event queue: a binary heap of slot indices over parallel primitive arrays, so
 * that millions of events cost no boxing. Ties in time break by insertion order: deterministic.
 * Grows by doubling up to {@link #MAX_EVENTS}.
 */
final class EventQueue
{
    static final int MAX_EVENTS = 1 << 26;

    long[] time;
    private long[] seq;
    int[] kind;
    int[] proc;
    int[] inc;
    int[] c;
    long[] a;
    long[] b;
    Object[] obj;
    private int[] heap;
    private int size;
    private int[] free;
    private int freeCount;
    private int used;
    private long nextSeq;

    EventQueue(final int initialCapacity)
    {
        allocate(Math.max(16, initialCapacity));
    }

    private void allocate(final int capacity)
    {
        time = new long[capacity];
        seq = new long[capacity];
        kind = new int[capacity];
        proc = new int[capacity];
        inc = new int[capacity];
        c = new int[capacity];
        a = new long[capacity];
        b = new long[capacity];
        obj = new Object[capacity];
        heap = new int[capacity];
        free = new int[capacity];
    }

    private void grow()
    {
        final int capacity = time.length * 2;
        if (capacity > MAX_EVENTS)
        {
            throw new IllegalStateException("simulation event queue exceeded " + MAX_EVENTS + " events");
        }
        time = Arrays.copyOf(time, capacity);
        seq = Arrays.copyOf(seq, capacity);
        kind = Arrays.copyOf(kind, capacity);
        proc = Arrays.copyOf(proc, capacity);
        inc = Arrays.copyOf(inc, capacity);
        c = Arrays.copyOf(c, capacity);
        a = Arrays.copyOf(a, capacity);
        b = Arrays.copyOf(b, capacity);
        obj = Arrays.copyOf(obj, capacity);
        heap = Arrays.copyOf(heap, capacity);
        free = Arrays.copyOf(free, capacity);
    }

    int size()
    {
        return size;
    }

    long peekTime()
    {
        return time[heap[0]];
    }

    /** Schedules an event; returns its slot (valid until popped and released). */
    int push(final long t, final int k, final int p, final int incarnation, final int ci, final long av, final long bv,
        final Object o)
    {
        final int slot;
        if (freeCount > 0)
        {
            slot = free[--freeCount];
        }
        else
        {
            if (used == time.length)
            {
                grow();
            }
            slot = used++;
        }
        time[slot] = t;
        seq[slot] = nextSeq++;
        kind[slot] = k;
        proc[slot] = p;
        inc[slot] = incarnation;
        c[slot] = ci;
        a[slot] = av;
        b[slot] = bv;
        obj[slot] = o;
        int i = size++;
        heap[i] = slot;
        while (i > 0)
        {
            final int parent = (i - 1) >>> 1;
            if (!less(heap[i], heap[parent]))
            {
                break;
            }
            swap(i, parent);
            i = parent;
        }
        return slot;
    }

    /** Removes the earliest event and returns its slot; call {@link #release} when done with it. */
    int pop()
    {
        assert size > 0;
        final int top = heap[0];
        heap[0] = heap[--size];
        int i = 0;
        while (true)
        {
            final int l = 2 * i + 1;
            if (l >= size)
            {
                break;
            }
            final int r = l + 1;
            final int m = r < size && less(heap[r], heap[l]) ? r : l;
            if (!less(heap[m], heap[i]))
            {
                break;
            }
            swap(i, m);
            i = m;
        }
        return top;
    }

    void release(final int slot)
    {
        obj[slot] = null;
        free[freeCount++] = slot;
    }

    private boolean less(final int x, final int y)
    {
        return time[x] < time[y] || (time[x] == time[y] && seq[x] < seq[y]);
    }

    private void swap(final int i, final int j)
    {
        final int t = heap[i];
        heap[i] = heap[j];
        heap[j] = t;
    }
}
