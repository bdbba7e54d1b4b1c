package io.mmx.membership.swim;

import io.mmx.membership.wire.SwimMessage;
import org.agrona.collections.Int2IntHashMap;

/**
 * Bounded buffer of membership updates waiting to be piggybacked. Each message carries the updates
 * sent the fewest times; an update is dropped after {@code retransmitLimit} sends; when full, the
 * most-sent update is evicted (counted). One entry per member: a newer update replaces an older one.
 */
public final class DisseminationBuffer
{
    private final int capacity;
    private final int retransmitLimit;
    private final int[] members;
    private final int[] incarnations;
    private final byte[] statuses;
    private final int[] transmits;
    private final int[] chosen = new int[SwimMessage.MAX_UPDATES];
    private final Int2IntHashMap slotByMember;
    private int size;
    private long evictions;

    /**
     * @param capacity        entries held at most.
     * @param retransmitLimit sends per update.
     */
    public DisseminationBuffer(final int capacity, final int retransmitLimit)
    {
        this.capacity = capacity;
        this.retransmitLimit = retransmitLimit;
        members = new int[capacity];
        incarnations = new int[capacity];
        statuses = new byte[capacity];
        transmits = new int[capacity];
        // Primitive map sized to the capacity, not to n: memory stays bounded however large the cluster.
        slotByMember = new Int2IntHashMap(2 * capacity, 0.65f, -1);
    }

    /**
     * Queue an update, replacing any queued update about the same member.
     *
     * @param member      id.
     * @param incarnation of the member.
     * @param status      its status.
     */
    public void add(final int member, final int incarnation, final MemberStatus status)
    {
        int slot = slotByMember.get(member);
        if (slot < 0)
        {
            if (size < capacity)
            {
                slot = size++;
            }
            else
            {
                slot = 0;
                for (int i = 1; i < size; i++)
                {
                    if (transmits[i] > transmits[slot])
                    {
                        slot = i;
                    }
                }
                evictions++;
                slotByMember.remove(members[slot]);
            }
            slotByMember.put(member, slot);
        }
        members[slot] = member;
        incarnations[slot] = incarnation;
        statuses[slot] = (byte)status.ordinal();
        transmits[slot] = 0;
    }

    /**
     * Write the least-sent updates into a message and count them as sent.
     *
     * @param message    wrapped for encoding, header written.
     * @param maxUpdates at most this many.
     * @return updates written.
     */
    public int fill(final SwimMessage message, final int maxUpdates)
    {
        return fill(message, maxUpdates, -1);
    }

    /**
     * Write the update about {@code priorityMember} first, if one is queued, then the least-sent ones.
     *
     * @param message        wrapped for encoding, header written.
     * @param maxUpdates     at most this many.
     * @param priorityMember member whose update goes first (the leader), or -1.
     * @return updates written.
     */
    public int fill(final SwimMessage message, final int maxUpdates, final int priorityMember)
    {
        final int limit = Math.min(Math.min(maxUpdates, SwimMessage.MAX_UPDATES), size);
        int count = 0;
        final int prioritySlot = priorityMember >= 0 ? slotByMember.get(priorityMember) : -1;
        if (prioritySlot >= 0 && limit > 0)
        {
            chosen[count++] = prioritySlot;
        }
        int level = Integer.MAX_VALUE;
        for (int i = 0; i < size; i++)
        {
            level = Math.min(level, transmits[i]);
        }
        while (count < limit)
        {
            int nextLevel = Integer.MAX_VALUE;
            for (int i = 0; i < size && count < limit; i++)
            {
                final int t = transmits[i];
                if (i == prioritySlot)
                {
                    continue;
                }
                if (t == level)
                {
                    chosen[count++] = i;
                }
                else if (t > level && t < nextLevel)
                {
                    nextLevel = t;
                }
            }
            if (nextLevel == Integer.MAX_VALUE)
            {
                break;
            }
            level = nextLevel;
        }
        sortAscending(chosen, count);
        for (int c = 0; c < count; c++)
        {
            final int i = chosen[c];
            message.putUpdate(c, members[i], incarnations[i], statuses[i]);
            transmits[i]++;
        }
        for (int c = count - 1; c >= 0; c--)
        {
            final int i = chosen[c];
            if (transmits[i] >= retransmitLimit)
            {
                final int last = --size;
                slotByMember.remove(members[i]);
                if (i != last)
                {
                    slotByMember.put(members[last], i);
                }
                members[i] = members[last];
                incarnations[i] = incarnations[last];
                statuses[i] = statuses[last];
                transmits[i] = transmits[last];
            }
        }
        return count;
    }

    private static void sortAscending(final int[] values, final int count)
    {
        for (int i = 1; i < count; i++)
        {
            final int v = values[i];
            int j = i - 1;
            while (j >= 0 && values[j] > v)
            {
                values[j + 1] = values[j];
                j--;
            }
            values[j + 1] = v;
        }
    }

    /** @return updates queued. */
    public int size()
    {
        return size;
    }

    /** @return updates evicted because the buffer was full. */
    public long evictions()
    {
        return evictions;
    }
}
