package io.mmx.membership.neighbour;

/**
 * Decides, from this process's own reads of the leader's heartbeat word, that the leader has stopped.
 * Sans-IO and tick-driven: the host reads the word at most once per tick and passes each value to
 * {@link #onRead}.
 * <p>
 * The rule: the leader is declared stopped when its word has not advanced for {@code staleTicks}
 * ticks <em>and</em> over the last {@code staleReads} reads this process made. Counting reads, not only
 * ticks, keeps the reader's own scheduling delays from counting as the leader's silence: a reader
 * that did not run for 300 ms makes one read when it wakes, not 150. Only a word seen moving under
 * this watch can be declared stopped (a leader whose word was never readable from here, behind a
 * broken link, is left to the slower cluster-wide detector), and a declaration is made once; the word
 * must move again before the same leader can be declared stopped again. A declaration the host
 * vetoes ({@link #vetoed()}: its process runs) is asked again every {@code staleReads} reads while
 * the word stands still.
 */
public final class LeaderWatch
{
    private final int staleTicks;
    private final int staleReads;
    private int watched = -1;
    private long lastValue;
    private long lastAdvanceTick;
    private int stillReads;
    private boolean seenMoving;
    private boolean declared;
    private long longestSilenceTicks;

    /**
     * @param staleTicks ticks without an advance before the leader may be declared stopped, at least 1.
     * @param staleReads reads without an advance before the leader may be declared stopped, at least 1.
     */
    public LeaderWatch(final int staleTicks, final int staleReads)
    {
        if (staleTicks < 1 || staleReads < 1)
        {
            throw new IllegalArgumentException("staleTicks and staleReads must be at least 1, got " + staleTicks +
                " and " + staleReads);
        }
        this.staleTicks = staleTicks;
        this.staleReads = staleReads;
    }

    /**
     * Watch {@code leaderId} from now on (-1: nobody); watching another leader starts afresh.
     *
     * @param leaderId the leader to watch, or -1.
     * @param nowTick  now.
     */
    public void watch(final int leaderId, final long nowTick)
    {
        if (leaderId == watched)
        {
            return;
        }
        watched = leaderId;
        lastValue = HeartbeatReader.NOT_READABLE;
        lastAdvanceTick = nowTick;
        stillReads = 0;
        seenMoving = false;
        declared = false;
    }

    /**
     * One read of the watched leader's word, at most one per tick.
     *
     * @param nowTick now.
     * @param value   the word, or {@link HeartbeatReader#NOT_READABLE}.
     * @return true once, when this read makes the watched leader stopped.
     */
    public boolean onRead(final long nowTick, final long value)
    {
        if (watched < 0)
        {
            return false;
        }
        if (value != HeartbeatReader.NOT_READABLE && value != lastValue)
        {
            if (lastValue != HeartbeatReader.NOT_READABLE)
            {
                seenMoving = true;
                longestSilenceTicks = Math.max(longestSilenceTicks, nowTick - lastAdvanceTick);
            }
            lastValue = value;
            lastAdvanceTick = nowTick;
            stillReads = 0;
            declared = false;
            return false;
        }
        stillReads++;
        if (!declared && seenMoving && stillReads >= staleReads && nowTick - lastAdvanceTick >= staleTicks)
        {
            declared = true;
            return true;
        }
        return false;
    }

    /**
     * After a read that did not declare: true when the word has stood still for the early bound
     * ({@code earlyTicks} ticks and {@code earlyReads} reads) and a host that can tell should now be
     * asked whether the leader's process is dead (every {@code earlyReads} still reads, never
     * after a declaration). Only a confirmed death may be declared on this bound
     * ({@link #declareConfirmed}): the word alone waits for the full bound.
     *
     * @param nowTick    now.
     * @param earlyTicks ticks of the early bound, at least 1.
     * @param earlyReads reads of the early bound, at least 1.
     * @return true if the host should ask now.
     */
    public boolean earlyCheckDue(final long nowTick, final int earlyTicks, final int earlyReads)
    {
        return watched >= 0 && !declared && seenMoving && stillReads >= earlyReads && stillReads % earlyReads == 0 &&
            nowTick - lastAdvanceTick >= earlyTicks;
    }

    /** The host confirmed the leader's process dead on the early bound: declared, once, as {@link #onRead} would. */
    public void declareConfirmed()
    {
        declared = true;
    }

    /**
     * The host said the leader runs after all: ask again after another {@code staleReads} still reads
     * (the leader may die while its word still stands).
     */
    public void vetoed()
    {
        declared = false;
        stillReads = 0;
    }

    /** @return reads since the watched word last moved. */
    public int stillReads()
    {
        return stillReads;
    }

    /**
     * @param nowTick now.
     * @return ticks since the watched word last moved.
     */
    public long stillTicks(final long nowTick)
    {
        return nowTick - lastAdvanceTick;
    }

    /** @return the leader watched, or -1. */
    public int watched()
    {
        return watched;
    }

    /** @return the longest time the watched word stood still before it moved again: how close a false declaration came. */
    public long longestSilenceTicks()
    {
        return longestSilenceTicks;
    }
}
