package io.mmx.runtime.sim;

import io.mmx.runtime.core.Message;

import java.util.Arrays;

/**
 * Messages between send and delivery, each held once by a handle however many deliveries of it
 * are queued: the event queue keeps the handle, not a reference per delivery. A broadcast to
 * n = 4096 processes then stores one reference instead of 4096 into the long-lived queue arrays
 * (each such store costs the collector a card to refine).
 */
final class MessagesInFlight
{
    private Message[] messages = new Message[256];
    private int[] deliveries = new int[256];
    private int[] free = new int[256];
    private int freeCount;
    private int used;
    /** The message held last and its handle: a broadcast holds the same message once per destination. */
    private Message last;
    private int lastHandle = -1;

    /** One more delivery of {@code m} is queued; returns its handle. */
    int hold(final Message m)
    {
        if (m == last)
        {
            deliveries[lastHandle]++;
            return lastHandle;
        }
        final int h;
        if (freeCount > 0)
        {
            h = free[--freeCount];
        }
        else
        {
            if (used == messages.length)
            {
                messages = Arrays.copyOf(messages, used * 2);
                deliveries = Arrays.copyOf(deliveries, used * 2);
                free = Arrays.copyOf(free, used * 2);
            }
            h = used++;
        }
        messages[h] = m;
        deliveries[h] = 1;
        last = m;
        lastHandle = h;
        return h;
    }

    /** A delivery of handle {@code h} is due: its message, released once its last delivery is taken. */
    Message take(final int h)
    {
        final Message m = messages[h];
        if (--deliveries[h] == 0)
        {
            messages[h] = null;
            free[freeCount++] = h;
            if (h == lastHandle)
            {
                last = null;
                lastHandle = -1;
            }
        }
        return m;
    }
}
