package io.mmx.runtime.sim;

import io.mmx.runtime.node.StateMachine;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.LongArrayList;
import org.agrona.collections.LongHashSet;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * What the replicas of a {@link HostSimulation} applied, and the rules it must obey. Every command
 * is an 8-byte value no other command has; each replica's state machine ({@link #replica}) records
 * the log index and value of every command it applies and replies with the value.
 *
 * <p>Safety, checked as commands are applied and whenever {@link #checkSafety} runs:
 * <ul>
 * <li>agreement: no two replicas apply different commands at one log index, and each applies in
 * increasing log index; together with the prefix rule, every replica's log is a prefix of one
 * common order;</li>
 * <li>prefix: a replica holds every command of the common order up to the last it applied (a
 * replica told it missed commands, {@link StateMachine#onGap}, holds them as a gap);</li>
 * <li>once: no replica applies a command twice (the duplicate filter), and none applies a command
 * no one submitted;</li>
 * <li>acknowledged: a submission completed normally replied its own value, and that value is in
 * the common order.</li>
 * </ul>
 * Liveness ({@link #checkConverged}): every live replica holds the whole common order.
 *
 * <p>A replica told it missed commands ({@link StateMachine#onGap}) holds no comparable state from
 * then on (its duplicate filter lacks the skipped commands too, until a snapshot would replace
 * both): what it applies after the gap is recorded but not checked, and the gap itself fails
 * liveness.
 */
final class AppliedOrderChecker
{
    private final Replica[] replicas;
    /** The common order: log index to command. */
    private final Long2LongHashMap common = new Long2LongHashMap(Long.MIN_VALUE);
    private final LongHashSet commonValues = new LongHashSet();
    private final LongHashSet submitted = new LongHashSet();
    private long highestIndex = -1;
    private int snapshotsLoaded;
    private String violation;
    /** Where gaps are traced, or null. */
    java.util.function.Consumer<String> trace;

    AppliedOrderChecker(final int n)
    {
        replicas = new Replica[n];
        for (int id = 0; id < n; id++)
        {
            replicas[id] = new Replica(id);
        }
    }

    /** The state machine of replica {@code id}. */
    StateMachine replica(final int id)
    {
        return replicas[id];
    }

    /** A command with value {@code value} was submitted. */
    void submitted(final long value)
    {
        submitted.add(value);
    }

    /** @return the first violation seen, or null. */
    String violation()
    {
        return violation;
    }

    /** @return the highest log index any replica applied a command at, or -1. */
    long highestIndex()
    {
        return highestIndex;
    }

    /** @return commands in the common order. */
    int commonSize()
    {
        return common.size();
    }

    /** @return commands replica {@code id} applied. */
    int applied(final int id)
    {
        return replicas[id].indices.size();
    }

    private void violate(final String what)
    {
        if (violation == null)
        {
            violation = what;
        }
    }

    /**
     * A submission with value {@code value} completed normally with {@code reply}: it must be its own
     * value, in the common order.
     */
    void acknowledged(final long value, final long reply)
    {
        if (reply != value)
        {
            violate("acknowledged: command " + text(value) + " completed with the reply of " + text(reply));
        }
        else if (!commonValues.contains(value) && !appliedAfterAGap(value))
        {
            violate("acknowledged: command " + text(value) + " completed, yet no replica applied it");
        }
    }

    /**
     * A submission with value {@code value} failed as applied without a reply (its replica took a
     * peer's snapshot that held it): it must be in the common order all the same.
     */
    void appliedWithoutReply(final long value)
    {
        if (!commonValues.contains(value) && !appliedAfterAGap(value))
        {
            violate("acknowledged: command " + text(value) + " was reported applied without a reply, yet no replica " +
                "applied it");
        }
    }

    /** Whether a replica applied {@code value} after a gap (not in the common order: not comparable). */
    private boolean appliedAfterAGap(final long value)
    {
        for (final Replica r : replicas)
        {
            if (!r.gaps.isEmpty() && r.values.contains(value))
            {
                return true;
            }
        }
        return false;
    }

    /** Checks the prefix rule at every replica; returns the first violation so far, or null. */
    String checkSafety()
    {
        if (violation != null)
        {
            return violation;
        }
        final long[] sorted = sortedIndices();
        for (final Replica r : replicas)
        {
            if (r.indices.isEmpty() || !r.gaps.isEmpty())
            {
                continue;
            }
            final long last = r.indices.getLong(r.indices.size() - 1);
            int at = 0;
            for (final long index : sorted)
            {
                if (index > last)
                {
                    break;
                }
                if (at < r.indices.size() && r.indices.getLong(at) == index)
                {
                    at++;
                }
                else
                {
                    violate("prefix: replica " + r.id + " applied through log index " + last + " but not command " +
                        text(common.get(index)) + " at index " + index + ", which others applied");
                    return violation;
                }
            }
        }
        return violation;
    }

    /**
     * Liveness: every replica in {@code live} holds the whole common order, and none was told it
     * missed commands ({@link StateMachine#onGap}: it fell behind every decided log's window, and
     * only a node with a state directory fetches the peer's snapshot that would fill it).
     *
     * @return what is missing, or null.
     */
    String checkConverged(final boolean[] live)
    {
        final long[] sorted = sortedIndices();
        for (final Replica r : replicas)
        {
            if (!live[r.id])
            {
                continue;
            }
            if (!r.gaps.isEmpty())
            {
                return "replica " + r.id + " was told it missed log indices " + r.gaps.get(0)[0] + ".." +
                    r.gaps.get(0)[1] + " (its learner skipped them)";
            }
            int at = 0;
            for (final long index : sorted)
            {
                if (at < r.indices.size() && r.indices.getLong(at) == index)
                {
                    at++;
                }
                else
                {
                    return "replica " + r.id + " applied " + r.indices.size() + " of the " + common.size() +
                        " commands of the common order; it lacks " + text(common.get(index)) + " at index " + index;
                }
            }
        }
        return null;
    }

    /** @return snapshots replicas loaded from peers (state transfers). */
    int snapshotsLoaded()
    {
        return snapshotsLoaded;
    }

    /** @return replicas told they missed commands. */
    int replicasWithGaps()
    {
        int count = 0;
        for (final Replica r : replicas)
        {
            count += r.gaps.isEmpty() ? 0 : 1;
        }
        return count;
    }

    /** @return an order-sensitive digest of the common order: equal runs give equal digests. */
    long digest()
    {
        long h = 1;
        for (final long index : sortedIndices())
        {
            h = 31 * (31 * h + index) + common.get(index);
        }
        return h;
    }

    private long[] sortedIndices()
    {
        final long[] keys = new long[common.size()];
        int i = 0;
        for (final Long2LongHashMap.KeyIterator it = common.keySet().iterator(); it.hasNext(); )
        {
            keys[i++] = it.nextValue();
        }
        java.util.Arrays.sort(keys);
        return keys;
    }

    /** A command's value as its host and number. */
    static String text(final long value)
    {
        return "h" + (value >>> 40) + "#" + (value & ((1L << 40) - 1));
    }

    /** One replica's applied log. */
    private final class Replica implements StateMachine
    {
        final int id;
        final LongArrayList indices = new LongArrayList();
        final LongHashSet values = new LongHashSet();
        final List<long[]> gaps = new ArrayList<>();

        Replica(final int id)
        {
            this.id = id;
        }

        @Override
        public long apply(final long logIndex, final int origin, final DirectBuffer buffer, final int offset,
            final int length)
        {
            final long value = length == 8 ? buffer.getLong(offset, ByteOrder.LITTLE_ENDIAN) : -1;
            if (!gaps.isEmpty())
            {
                indices.addLong(logIndex);
                values.add(value);
                return value;
            }
            if (!submitted.contains(value))
            {
                violate("once: replica " + id + " applied a command no one submitted (" + length + " bytes) at index " +
                    logIndex);
            }
            if (!indices.isEmpty() && logIndex <= indices.getLong(indices.size() - 1))
            {
                violate("agreement: replica " + id + " applied index " + logIndex + " after index " +
                    indices.getLong(indices.size() - 1));
            }
            if (!values.add(value))
            {
                violate("once: replica " + id + " applied command " + text(value) + " twice (again at index " +
                    logIndex + ")");
            }
            final long before = common.get(logIndex);
            if (before == Long.MIN_VALUE)
            {
                common.put(logIndex, value);
                commonValues.add(value);
                highestIndex = Math.max(highestIndex, logIndex);
            }
            else if (before != value)
            {
                violate("agreement: replica " + id + " applied " + text(value) + " at index " + logIndex +
                    " where another applied " + text(before));
            }
            indices.addLong(logIndex);
            return value;
        }

        /** A replica's state is what it applied: a snapshot carries it whole (the node adds the duplicate filter). */
        @Override
        public boolean snapshots()
        {
            return true;
        }

        @Override
        public void takeSnapshot(final java.io.OutputStream out) throws java.io.IOException
        {
            final java.io.DataOutputStream data = new java.io.DataOutputStream(out);
            data.writeInt(indices.size());
            for (int i = 0; i < indices.size(); i++)
            {
                final long index = indices.getLong(i);
                data.writeLong(index);
                data.writeLong(common.get(index));
            }
            data.flush();
        }

        /**
         * Takes a peer's applied log: from now on this replica holds what the peer held, and each
         * command in it must be the common order's at its index (a snapshot of another order, or of
         * a replica that missed commands, would not be).
         */
        @Override
        public void loadSnapshot(final java.io.InputStream in) throws java.io.IOException
        {
            final java.io.DataInputStream data = new java.io.DataInputStream(in);
            final int count = data.readInt();
            final LongArrayList loaded = new LongArrayList();
            final LongHashSet loadedValues = new LongHashSet();
            for (int i = 0; i < count; i++)
            {
                final long index = data.readLong();
                final long value = data.readLong();
                if (common.get(index) != value)
                {
                    violate("snapshot: replica " + id + " loaded " + text(value) + " at index " + index +
                        " where the common order has " + (common.get(index) == Long.MIN_VALUE ? "nothing" :
                        text(common.get(index))));
                }
                loaded.addLong(index);
                loadedValues.add(value);
            }
            indices.clear();
            indices.addAll(loaded);
            values.clear();
            values.addAll(loadedValues);
            gaps.clear();
            snapshotsLoaded++;
            if (trace != null)
            {
                trace.accept("replica " + id + " loaded a snapshot of " + count + " commands through index " +
                    (count == 0 ? -1 : loaded.getLong(count - 1)));
            }
        }

        @Override
        public void onGap(final long fromLogIndex, final long toLogIndex)
        {
            gaps.add(new long[] {fromLogIndex, toLogIndex});
            if (trace != null)
            {
                trace.accept("replica " + id + " told it missed log indices " + fromLogIndex + ".." + toLogIndex +
                    " after index " + (indices.isEmpty() ? -1 : indices.getLong(indices.size() - 1)));
            }
        }
    }
}
