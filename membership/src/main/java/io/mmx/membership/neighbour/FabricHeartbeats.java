package io.mmx.membership.neighbour;

import io.mmx.rdma.fabric.CompletionHandler;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.OpType;
import io.mmx.rdma.fabric.WordOutcome;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.collections.Long2LongHashMap;

import java.util.Arrays;

/**
 * Heartbeats through the memory fabric: the owner bumps the heartbeat word of its own region with a
 * fetch-and-add through its loopback link (DESIGN §4: every region-word operation goes through the
 * fabric, the owner's included), and each plan neighbour's word is read with one-sided 8-byte reads,
 * so the monitored process spends no CPU on being watched.
 *
 * <p>On a link that completes inline (shm, in-process) a bump or read runs at once
 * ({@link MemoryFabric#wordNow}): {@link #readHeartbeat(int)} returns the word as it is now, and
 * nothing is left to poll. Elsewhere reads are pipelined one interval deep: {@link #readHeartbeat(int)}
 * returns the value of the last completed read of that neighbour and, if no read of it is in flight,
 * submits the next one, whose result {@link #poll()} caches; a suspicion then lags the owner's last
 * bump by at most one heartbeat interval more than {@code neighbourStaleTicks}. At most one read per
 * neighbour and one bump are outstanding, so a slow link cannot queue work without bound.
 *
 * <p>{@link HeartbeatReader#NOT_READABLE} is returned until a first read completes and whenever the
 * last one failed (timeout, refusal, lost region) or could not be submitted: an unreadable word is
 * not an advance, so a neighbour behind a dead link is suspected too.
 *
 * <p>Single-threaded, like the fabric: the agent that drives the {@link NeighbourMonitor} calls
 * {@link #poll()}. If the fabric is shared with other users, the host polls it itself and forwards
 * the completions for which {@link #owns(long)} holds to {@link #onCompletion}. No allocation after
 * construction.
 */
public final class FabricHeartbeats implements HeartbeatReader, HeartbeatWriter, CompletionHandler
{
    private static final int NOT_A_NEIGHBOUR = -1;
    private static final long NO_OPERATION = 0;

    private final MemoryFabric fabric;
    private final int selfId;
    private final int[] neighbours;
    private final long heartbeatOffset;
    private final long timeoutNs;
    private final int pollLimit;
    private final Int2IntHashMap indexByNeighbour = new Int2IntHashMap(NOT_A_NEIGHBOUR);
    private final Long2LongHashMap indexByCorrelationId;
    private final long[] lastValue;
    private final long[] readInFlight;
    private final WordOutcome now = new WordOutcome();
    private long bumpInFlight = NO_OPERATION;
    private boolean hostPolls;
    private long bumps;
    private long skippedBumps;
    private long failedBumps;
    private long completedReads;
    private long failedReads;

    /**
     * @param fabric          the fabric of the owner process ({@code fabric.selfId()}).
     * @param neighbours      the owner's plan neighbours whose heartbeat words are read.
     * @param heartbeatOffset offset of the heartbeat word within a region's data area, a multiple of 8.
     *                        It is the region layout's heartbeat word: mm-runtime's core owns the layout
     *                        and the node assembly passes its offset here, so every process agrees.
     * @param timeoutNs       deadline of each read and bump; keep it well under the stale period so that
     *                        a hung link shows up as {@link HeartbeatReader#NOT_READABLE} before suspicion.
     */
    public FabricHeartbeats(
        final MemoryFabric fabric, final int[] neighbours, final long heartbeatOffset, final long timeoutNs)
    {
        if (heartbeatOffset < 0 || (heartbeatOffset & 7) != 0)
        {
            throw new IllegalArgumentException("heartbeatOffset " + heartbeatOffset +
                " must be a non-negative multiple of 8: the heartbeat is an aligned 8-byte region word");
        }
        if (timeoutNs <= 0)
        {
            throw new IllegalArgumentException("timeoutNs must be positive, got " + timeoutNs);
        }
        this.fabric = fabric;
        this.selfId = fabric.selfId();
        this.neighbours = neighbours.clone();
        this.heartbeatOffset = heartbeatOffset;
        this.timeoutNs = timeoutNs;
        // One read per neighbour plus the bump is all that can be in flight, hence all one poll can deliver.
        this.pollLimit = neighbours.length + 1;
        indexByCorrelationId = new Long2LongHashMap(Math.max(8, 2 * pollLimit), 0.65f, NOT_A_NEIGHBOUR);
        lastValue = new long[neighbours.length];
        readInFlight = new long[neighbours.length];
        Arrays.fill(lastValue, NOT_READABLE);
        for (int i = 0; i < neighbours.length; i++)
        {
            if (neighbours[i] == selfId || indexByNeighbour.put(neighbours[i], i) != NOT_A_NEIGHBOUR)
            {
                throw new IllegalArgumentException("neighbours " + Arrays.toString(neighbours) + " of process " +
                    selfId + " must be distinct and exclude the process itself");
            }
        }
    }

    /**
     * Bumps the own heartbeat word by one with a fetch-and-add. The word, not {@code value}, is what
     * neighbours see: adding keeps it moving forward across restarts of the owner (the region outlives
     * it), so a restarted owner never rewrites a value a neighbour has already cached. Skipped (and
     * counted) while the previous bump is still in flight.
     *
     * @param value the monitor's own counter, unused.
     */
    public void writeHeartbeat(final long value)
    {
        if (bumpInFlight != NO_OPERATION)
        {
            skippedBumps++;
            return;
        }
        if (fabric.wordNow(OpType.FETCH_AND_ADD, selfId, heartbeatOffset, 1, 0, now))
        {
            if (now.status() == OpStatus.OK)
            {
                bumps++;
            }
            else
            {
                failedBumps++;
            }
            return;
        }
        final long result = fabric.fetchAndAdd(selfId, heartbeatOffset, 1, timeoutNs);
        if (result > 0)
        {
            bumpInFlight = result;
        }
        else
        {
            failedBumps++;
        }
    }

    /**
     * @param processId a plan neighbour given at construction.
     * @return the word of the last completed read, or {@link HeartbeatReader#NOT_READABLE}.
     */
    public long readHeartbeat(final int processId)
    {
        final int index = indexByNeighbour.get(processId);
        if (index == NOT_A_NEIGHBOUR)
        {
            return NOT_READABLE;
        }
        if (readInFlight[index] == NO_OPERATION && fabric.wordNow(OpType.READ, processId, heartbeatOffset, 0, 0, now))
        {
            onRead(index, now.status(), now.value());
            return lastValue[index];
        }
        final long value = lastValue[index];
        if (readInFlight[index] == NO_OPERATION)
        {
            final long result = fabric.read(processId, heartbeatOffset, timeoutNs);
            if (result > 0)
            {
                readInFlight[index] = result;
                indexByCorrelationId.put(result, index);
            }
            else
            {
                // Back pressure or a closed fabric: no fresh value will come, so do not keep serving a stale one.
                failedReads++;
                lastValue[index] = NOT_READABLE;
            }
        }
        return value;
    }

    /**
     * Drains the fabric's completions into the cache.
     *
     * @return the amount of work done, as an Agrona agent counts it.
     */
    public int poll()
    {
        return hostPolls ? 0 : fabric.poll(this, pollLimit);
    }

    /**
     * Declares that the host polls the shared fabric itself and forwards the completions this object
     * {@link #owns}: {@link #poll()} then does nothing, so it never swallows the host's completions.
     *
     * @return this.
     */
    public FabricHeartbeats polledByHost()
    {
        hostPolls = true;
        return this;
    }

    /** @return true if the host polls the fabric ({@link #polledByHost()}): {@link #poll()} does nothing. */
    public boolean isPolledByHost()
    {
        return hostPolls;
    }

    /**
     * @param correlationId from a completion of this fabric.
     * @return true if it is a read or bump submitted here.
     */
    public boolean owns(final long correlationId)
    {
        return correlationId == bumpInFlight || indexByCorrelationId.containsKey(correlationId);
    }

    /** {@inheritDoc} */
    public void onCompletion(
        final long correlationId, final OpType type, final int owner, final OpStatus status, final long value)
    {
        if (correlationId == bumpInFlight)
        {
            bumpInFlight = NO_OPERATION;
            if (status == OpStatus.OK)
            {
                bumps++;
            }
            else
            {
                // TIMEOUT means unknown: the word may have moved; the next bump moves it anyway.
                failedBumps++;
            }
            return;
        }
        final int index = (int)indexByCorrelationId.remove(correlationId);
        if (index == NOT_A_NEIGHBOUR)
        {
            return;
        }
        readInFlight[index] = NO_OPERATION;
        onRead(index, status, value);
    }

    private void onRead(final int index, final OpStatus status, final long value)
    {
        if (status == OpStatus.OK)
        {
            completedReads++;
            lastValue[index] = value;
        }
        else
        {
            failedReads++;
            lastValue[index] = NOT_READABLE;
        }
    }

    /** @return the process whose region is bumped. */
    public int selfId()
    {
        return selfId;
    }

    /** @return the fabric, e.g. for its counters. */
    public MemoryFabric fabric()
    {
        return fabric;
    }

    /** @return bumps that completed OK. */
    public long bumps()
    {
        return bumps;
    }

    /** @return bumps not submitted because the previous one was still in flight. */
    public long skippedBumps()
    {
        return skippedBumps;
    }

    /** @return bumps refused, failed or timed out. */
    public long failedBumps()
    {
        return failedBumps;
    }

    /** @return reads that completed OK. */
    public long completedReads()
    {
        return completedReads;
    }

    /** @return reads refused at submission, failed or timed out; the fabric's counters say why. */
    public long failedReads()
    {
        return failedReads;
    }
}
