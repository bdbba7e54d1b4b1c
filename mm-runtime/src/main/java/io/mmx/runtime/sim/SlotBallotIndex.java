package io.mmx.runtime.sim;

import java.util.Arrays;

/**
 * Values keyed by (slot, ballot), for the checkers: an array indexed by slot of short chains,
 * one link per ballot (a slot sees few ballots). A lookup allocates nothing and hashes nothing;
 * the checkers ask once per accepted entry of every published acceptor state.
 */
final class SlotBallotIndex<V>
{
    private Link<V>[] bySlot = newArray(16); // small at first: see SafetyChecker.chosen

    /** The value of (slot, ballot), or null. */
    V get(final long slot, final long ballot)
    {
        for (Link<V> l = slot < bySlot.length ? bySlot[(int)slot] : null; l != null; l = l.next)
        {
            if (l.ballot == ballot)
            {
                return l.value;
            }
        }
        return null;
    }

    /** Sets (slot, ballot) to {@code value} unless it has one; returns the value it had, or null. */
    V putIfAbsent(final long slot, final long ballot, final V value)
    {
        final V before = get(slot, ballot);
        if (before == null)
        {
            add(slot, ballot, value);
        }
        return before;
    }

    /** Sets (slot, ballot) to {@code value}. */
    void put(final long slot, final long ballot, final V value)
    {
        for (Link<V> l = slot < bySlot.length ? bySlot[(int)slot] : null; l != null; l = l.next)
        {
            if (l.ballot == ballot)
            {
                l.value = value;
                return;
            }
        }
        add(slot, ballot, value);
    }

    private void add(final long slot, final long ballot, final V value)
    {
        if (slot >= bySlot.length)
        {
            bySlot = Arrays.copyOf(bySlot, (int)Math.max(slot + 1, bySlot.length * 2L));
        }
        bySlot[(int)slot] = new Link<>(ballot, value, bySlot[(int)slot]);
    }

    @SuppressWarnings("unchecked")
    private static <V> Link<V>[] newArray(final int length)
    {
        return new Link[length];
    }

    private static final class Link<V>
    {
        final long ballot;
        V value;
        final Link<V> next;

        Link(final long ballot, final V value, final Link<V> next)
        {
            this.ballot = ballot;
            this.value = value;
            this.next = next;
        }
    }
}
