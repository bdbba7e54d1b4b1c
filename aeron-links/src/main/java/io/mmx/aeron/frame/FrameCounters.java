package io.mmx.aeron.frame;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counters of accepted, sent and dropped frames, one per {@link DropReason}.
 * <p>
 * Single writer (the thread that polls and sends), any number of readers: increments are
 * ordered writes, so a monitoring thread reads consistent, monotonically growing values.
 */
public final class FrameCounters
{
    private static final int ACCEPTED = DropReason.values().length;
    private static final int SENT = ACCEPTED + 1;
    private static final int SEND_RETRIES = SENT + 1;
    private static final int MESSAGES = SEND_RETRIES + 1;

    private final AtomicLongArray values = new AtomicLongArray(MESSAGES + 1);

    /**
     * Count one dropped frame.
     *
     * @param reason why.
     */
    public void onDropped(final DropReason reason)
    {
        increment(reason.ordinal());
    }

    /** Count one frame that passed verification. */
    public void onAccepted()
    {
        increment(ACCEPTED);
    }

    /** Count one frame handed to Aeron. */
    public void onSent()
    {
        onSentMessage(1);
    }

    /**
     * Count frames handed to Aeron together, in one message (one offer).
     *
     * @param frames in that message.
     */
    public void onSentMessage(final int frames)
    {
        values.lazySet(SENT, values.get(SENT) + frames);
        increment(MESSAGES);
    }

    /** Count one retry of an offer that was back-pressured or hit an admin action. */
    public void onSendRetry()
    {
        increment(SEND_RETRIES);
    }

    /**
     * @param reason of interest.
     * @return frames dropped for that reason.
     */
    public long dropped(final DropReason reason)
    {
        return values.get(reason.ordinal());
    }

    /** @return frames dropped on receive for any reason. */
    public long receiveDropped()
    {
        long sum = 0;
        for (int i = 0; i <= DropReason.BAD_PAYLOAD.ordinal(); i++)
        {
            sum += values.get(i);
        }
        return sum;
    }

    /** @return sends dropped for any reason. */
    public long sendDropped()
    {
        long sum = 0;
        for (int i = DropReason.SEND_BACK_PRESSURED.ordinal(); i < ACCEPTED; i++)
        {
            sum += values.get(i);
        }
        return sum;
    }

    /** @return frames accepted. */
    public long accepted()
    {
        return values.get(ACCEPTED);
    }

    /**
     * @return Aeron messages sent: one per frame, or fewer when the transport coalesces the frames of
     * a duty cycle for one destination endpoint into one message.
     */
    public long messages()
    {
        return values.get(MESSAGES);
    }

    /** @return frames sent. */
    public long sent()
    {
        return values.get(SENT);
    }

    /** @return offer retries. */
    public long sendRetries()
    {
        return values.get(SEND_RETRIES);
    }

    private void increment(final int index)
    {
        values.lazySet(index, values.get(index) + 1);
    }

    /** {@inheritDoc} */
    public String toString()
    {
        final StringBuilder sb = new StringBuilder("FrameCounters{accepted=").append(accepted())
            .append(", sent=").append(sent()).append(", messages=").append(messages()).append(", sendRetries=").append(sendRetries());
        for (final DropReason reason : DropReason.values())
        {
            final long value = dropped(reason);
            if (value != 0)
            {
                sb.append(", ").append(reason).append('=').append(value);
            }
        }
        return sb.append('}').toString();
    }
}
