package io.mmx.runtime.sim;

import java.util.Arrays;

/**
 * Simulated-time event queue: a binary heap of slot indices over primitive arrays, so that
 * millions of events cost no boxing. Ties in time break by insertion order: deterministic.
 * The heap holds each event's (time, sequence) beside its slot, so sifting compares neighbouring
 * words instead of reaching into the events. An event's fields lie together, four words per
 * slot (one cache line holds two events), not in one array per field: at n = 4096 the queue
 * holds tens of thousands of events and each one is touched twice, when pushed and when run.
 * Grows by doubling up to {@link #MAX_EVENTS}.
 */
final class EventQueue
{
    static final int MAX_EVENTS = 1 << 26;

    private static final int STRIDE = 4;

    /** Per slot: kind | proc << 32, inc | c << 32, a, b. */
    private long[] words;
    private Object[] obj;
    private int[] heap;
    private long[] heapTime;
    private long[] heapSeq;
    private int size;
    private int[] free;
    private int freeCount;
    private int used;
    private long nextSeq;
    private long poppedTime;

    EventQueue(final int initialCapacity)
    {
        allocate(Math.max(16, initialCapacity));
    }

    private void allocate(final int capacity)
    {
        heapTime = new long[capacity];
        heapSeq = new long[capacity];
        words = new long[capacity * STRIDE];
        obj = new Object[capacity];
        heap = new int[capacity];
        free = new int[capacity];
    }

    private void grow()
    {
        final int capacity = obj.length * 2;
        if (capacity > MAX_EVENTS)
        {
            throw new IllegalStateException("simulation event queue exceeded " + MAX_EVENTS + " events");
        }
        heapTime = Arrays.copyOf(heapTime, capacity);
        heapSeq = Arrays.copyOf(heapSeq, capacity);
        words = Arrays.copyOf(words, capacity * STRIDE);
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
        return heapTime[0];
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
            if (used == obj.length)
            {
                grow();
            }
            slot = used++;
        }
        final int w = slot * STRIDE;
        words[w] = (k & 0xFFFFFFFFL) | (long)p << 32;
        words[w + 1] = (incarnation & 0xFFFFFFFFL) | (long)ci << 32;
        words[w + 2] = av;
        words[w + 3] = bv;
        if (o != null)
        {
            obj[slot] = o; // most events carry no object: no reference stored for the collector to track
        }
        final long sq = nextSeq++;
        int i = size++;
        while (i > 0)
        {
            final int parent = (i - 1) >>> 1;
            if (!less(t, sq, parent))
            {
                break;
            }
            move(parent, i);
            i = parent;
        }
        heap[i] = slot;
        heapTime[i] = t;
        heapSeq[i] = sq;
        return slot;
    }

    /** Removes the earliest event and returns its slot; call {@link #release} when done with it. */
    int pop()
    {
        assert size > 0;
        final int top = heap[0];
        poppedTime = heapTime[0];
        final int last = --size;
        final int slot = heap[last];
        final long t = heapTime[last];
        final long sq = heapSeq[last];
        int i = 0;
        while (true)
        {
            final int l = 2 * i + 1;
            if (l >= size)
            {
                break;
            }
            final int r = l + 1;
            final int m = r < size && less(heapTime[r], heapSeq[r], l) ? r : l;
            if (!less(heapTime[m], heapSeq[m], t, sq))
            {
                break;
            }
            move(m, i);
            i = m;
        }
        heap[i] = slot;
        heapTime[i] = t;
        heapSeq[i] = sq;
        return top;
    }

    void release(final int slot)
    {
        if (obj[slot] != null)
        {
            obj[slot] = null;
        }
        free[freeCount++] = slot;
    }

    /** The time of the event {@link #pop} returned last. */
    long poppedTime()
    {
        return poppedTime;
    }

    int kind(final int slot)
    {
        return (int)words[slot * STRIDE];
    }

    int proc(final int slot)
    {
        return (int)(words[slot * STRIDE] >>> 32);
    }

    int inc(final int slot)
    {
        return (int)words[slot * STRIDE + 1];
    }

    int c(final int slot)
    {
        return (int)(words[slot * STRIDE + 1] >>> 32);
    }

    long a(final int slot)
    {
        return words[slot * STRIDE + 2];
    }

    long b(final int slot)
    {
        return words[slot * STRIDE + 3];
    }

    Object obj(final int slot)
    {
        return obj[slot];
    }

    /** Whether (t, sq) comes before the event at heap position {@code i}. */
    private boolean less(final long t, final long sq, final int i)
    {
        return less(t, sq, heapTime[i], heapSeq[i]);
    }

    private static boolean less(final long t1, final long sq1, final long t2, final long sq2)
    {
        return t1 < t2 || (t1 == t2 && sq1 < sq2);
    }

    private void move(final int from, final int to)
    {
        heap[to] = heap[from];
        heapTime[to] = heapTime[from];
        heapSeq[to] = heapSeq[from];
    }
}
