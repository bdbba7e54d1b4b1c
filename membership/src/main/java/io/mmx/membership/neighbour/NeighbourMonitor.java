package io.mmx.membership.neighbour;

/**
 * Bumps this process's heartbeat and watches its plan neighbours' heartbeats. A neighbour whose
 * counter has not advanced for {@code staleTicks} ticks <em>and</em> over the last
 * ⌈{@code staleTicks} / {@code intervalTicks}⌉ reads this process made is suspected (the host takes
 * over its acceptor, which is safe even if the neighbour is only slow); it is cleared when the counter
 * moves again. Counting reads, as {@link LeaderWatch} does, keeps this process's own stalls out: a
 * reader that did not run for 300 ms makes one read when it wakes, not 30 intervals' worth.
 * Unreadable words do not count as advances: a neighbour behind a dead link is suspected too.
 *
 * <p>With a {@link HostLiveness} that knows (shm: every process on one machine), a neighbour whose
 * host surely runs is slow, not crashed: it is suspected only once its word has stood still for
 * {@code runningStaleTicks} (a lease in the node), asked again every ⌈staleTicks / intervalTicks⌉
 * reads until then. A JVM held up for a few hundred milliseconds (a collector pause on a loaded
 * machine) had all its processes suspected by every neighbour on other hosts at once, and each
 * takeover and hand-back cost the cluster transitions on contended records.
 */
public final class NeighbourMonitor
{
    /** Told of suspicions and recoveries. */
    public interface Listener
    {
        /**
         * @param neighbourId the neighbour.
         * @param suspected   true when it stopped, false when it resumed.
         * @param nowTick     when.
         */
        void onNeighbourSuspicion(int neighbourId, boolean suspected, long nowTick);
    }

    private final int[] neighbours;
    private final long[] lastValue;
    private final long[] lastChangeTick;
    private final int[] stillReads;
    private final boolean[] suspected;
    private final int intervalTicks;
    private final int staleTicks;
    private final int staleReads;
    private final HostLiveness liveness;
    private final int runningStaleTicks;
    private long suspicionsVetoed;
    private long beat;
    private long nextBeatTick;

    /**
     * @param neighbours    plan neighbours.
     * @param intervalTicks ticks between own heartbeats and between reads, at least 1.
     * @param staleTicks    ticks without an advance before suspicion, at least 1; the reads without an
     *                      advance this process must also have made are ⌈staleTicks / intervalTicks⌉.
     * @param startTick     tick the monitor starts at (grace: nobody is suspected before startTick + staleTicks).
     */
    public NeighbourMonitor(final int[] neighbours, final int intervalTicks, final int staleTicks, final long startTick)
    {
        this(neighbours, intervalTicks, staleTicks, startTick, HostLiveness.NONE, staleTicks);
    }

    /**
     * As {@link #NeighbourMonitor(int[], int, int, long)}, asking {@code liveness} before suspecting.
     *
     * @param liveness          what the operating system says of a neighbour's host, or {@link HostLiveness#NONE}.
     * @param runningStaleTicks ticks a neighbour whose host surely runs may stand still before it is
     *                          suspected, at least {@code staleTicks}.
     */
    public NeighbourMonitor(final int[] neighbours, final int intervalTicks, final int staleTicks, final long startTick,
        final HostLiveness liveness, final int runningStaleTicks)
    {
        if (intervalTicks < 1 || staleTicks < 1 || runningStaleTicks < staleTicks)
        {
            throw new IllegalArgumentException("intervalTicks and staleTicks must be at least 1 and runningStaleTicks " +
                "at least staleTicks, got " + intervalTicks + ", " + staleTicks + " and " + runningStaleTicks);
        }
        this.liveness = liveness;
        this.runningStaleTicks = runningStaleTicks;
        this.neighbours = neighbours.clone();
        this.intervalTicks = intervalTicks;
        this.staleTicks = staleTicks;
        staleReads = (staleTicks + intervalTicks - 1) / intervalTicks;
        lastValue = new long[neighbours.length];
        lastChangeTick = new long[neighbours.length];
        stillReads = new int[neighbours.length];
        suspected = new boolean[neighbours.length];
        java.util.Arrays.fill(lastValue, HeartbeatReader.NOT_READABLE);
        java.util.Arrays.fill(lastChangeTick, startTick);
        nextBeatTick = startTick;
    }

    /**
     * Beat and read, once per interval.
     *
     * @param nowTick  now.
     * @param writer   own region.
     * @param reader   neighbours' regions.
     * @param listener told of changes.
     * @return number of suspicion changes.
     */
    public int tick(
        final long nowTick, final HeartbeatWriter writer, final HeartbeatReader reader, final Listener listener)
    {
        return tick(nowTick, writer, reader, listener, false);
    }

    /**
     * As {@link #tick(long, HeartbeatWriter, HeartbeatReader, Listener)}; {@code beatEveryTick}: also bump
     * the own heartbeat on ticks between intervals (a leader does, so that its watchers can tell a stop
     * within a few ticks).
     *
     * @return number of suspicion changes.
     */
    public int tick(final long nowTick, final HeartbeatWriter writer, final HeartbeatReader reader,
        final Listener listener, final boolean beatEveryTick)
    {
        if (nowTick < nextBeatTick)
        {
            if (beatEveryTick)
            {
                writer.writeHeartbeat(++beat);
            }
            return 0;
        }
        nextBeatTick = nowTick + intervalTicks;
        writer.writeHeartbeat(++beat);
        int changes = 0;
        for (int i = 0; i < neighbours.length; i++)
        {
            final long value = reader.readHeartbeat(neighbours[i]);
            if (value != HeartbeatReader.NOT_READABLE && value != lastValue[i])
            {
                lastValue[i] = value;
                lastChangeTick[i] = nowTick;
                stillReads[i] = 0;
                if (suspected[i])
                {
                    suspected[i] = false;
                    changes++;
                    listener.onNeighbourSuspicion(neighbours[i], false, nowTick);
                }
            }
            else
            {
                // Saturates: only whether staleReads is reached matters.
                stillReads[i] = Math.min(stillReads[i] + 1, staleReads);
                if (!suspected[i] && stillReads[i] >= staleReads && nowTick - lastChangeTick[i] >= staleTicks)
                {
                    if (nowTick - lastChangeTick[i] < runningStaleTicks && liveness.surelyRuns(neighbours[i]))
                    {
                        suspicionsVetoed++;
                        stillReads[i] = 0; // ask again after as many reads
                        continue;
                    }
                    suspected[i] = true;
                    changes++;
                    listener.onNeighbourSuspicion(neighbours[i], true, nowTick);
                }
            }
        }
        return changes;
    }

    /**
     * @param neighbourId a neighbour.
     * @return true if currently suspected.
     */
    public boolean isSuspected(final int neighbourId)
    {
        for (int i = 0; i < neighbours.length; i++)
        {
            if (neighbours[i] == neighbourId)
            {
                return suspected[i];
            }
        }
        return false;
    }

    /** @return suspicions not raised because the neighbour's host surely ran (each asking counts). */
    public long suspicionsVetoed()
    {
        return suspicionsVetoed;
    }

    /** @return own heartbeat counter. */
    public long beat()
    {
        return beat;
    }
}
