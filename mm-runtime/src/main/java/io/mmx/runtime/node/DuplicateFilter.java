package io.mmx.runtime.node;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Decides, from the log alone, whether a command is the first copy of its id: a submitter retries
 * after a leader change, so a command can be decided twice. Every replica runs the same filter over
 * the same log and so applies the same commands.
 *
 * <p>Per (origin, incarnation) it keeps the highest counter seen and a bitmap of the
 * {@link #WINDOW} counters below it. A counter older than the window counts as a duplicate: a
 * node never lets that many commands of one origin overtake one still pending (its submission
 * bound is smaller), so a first copy that old does not occur; if it did, it would be dropped on
 * every replica alike and its submitter's future would time out. At most {@code maxRuns} runs are
 * remembered, evicted oldest first.
 *
 * <p>Outside clients' commands are filtered by their sessions instead ({@link #clients()}: the last
 * sequence applied per client id, and the fragments of a command being reassembled), which are
 * derived from the log alike on every replica and saved with the runs in every snapshot.
 */
final class DuplicateFilter
{
    /** Counters remembered below the highest of a run. */
    static final int WINDOW = 1 << 16;

    private final int maxRuns;
    private final Map<Long, Run> runs;
    private final ClientSessions clients;
    /** The run of the last command's key: a slot's commands mostly share an origin. Always a run in the map. */
    private long lastKey = -1;
    private Run lastRun;
    /** {@link ReplicaFlaw#FILTER_FORGETS_OLDER}: a simulation's deliberate bug, never set by a node. */
    private boolean forgetsOlder;

    DuplicateFilter(final int maxRuns)
    {
        this(maxRuns, Commands.fragmentBytes(Commands.proposalWords(32)));
    }

    /** @param fragmentBytes command bytes per client fragment ({@link Commands#fragmentBytes}). */
    DuplicateFilter(final int maxRuns, final int fragmentBytes)
    {
        this.maxRuns = maxRuns;
        this.clients = new ClientSessions(fragmentBytes);
        this.runs = new LinkedHashMap<>(16, 0.75f, false)
        {
            @Override
            protected boolean removeEldestEntry(final Map.Entry<Long, Run> eldest)
            {
                return size() > DuplicateFilter.this.maxRuns;
            }
        };
    }

    /** Selects a deliberate bug ({@link ReplicaFlaw}); only the host simulation does. */
    void flaw(final ReplicaFlaw flaw)
    {
        forgetsOlder = flaw == ReplicaFlaw.FILTER_FORGETS_OLDER;
    }

    /** Outside clients' sessions. */
    ClientSessions clients()
    {
        return clients;
    }

    /** True if this is the first copy of the command: apply it. */
    boolean firstCopy(final int origin, final int incarnation, final long counter)
    {
        final long key = ((long)origin << 32) | (incarnation & 0xFFFF_FFFFL);
        if (lastRun == null || key != lastKey)
        {
            Run run = runs.get(key);
            if (run == null)
            {
                // May evict the eldest run, never this one: the cache then holds the new run.
                run = new Run();
                runs.put(key, run);
            }
            lastKey = key;
            lastRun = run;
        }
        if (forgetsOlder)
        {
            final boolean newer = counter > lastRun.highest;
            lastRun.highest = Math.max(lastRun.highest, counter);
            return newer || counter < lastRun.highest;
        }
        return lastRun.mark(counter);
    }

    /**
     * True if the command was applied already (its bit is set within its run's window): what a host
     * asks of its pending submissions after a peer's snapshot replaced the state. Changes nothing.
     */
    boolean seen(final int origin, final int incarnation, final long counter)
    {
        final Run run = runs.get(((long)origin << 32) | (incarnation & 0xFFFF_FFFFL));
        return run != null && counter <= run.highest && counter > run.highest - WINDOW && run.get(counter);
    }

    /**
     * Writes the filter (its runs in eviction order, each bitmap as its non-zero words) so that a
     * restarted replica filters exactly as the others do: part of every snapshot.
     */
    void writeTo(final java.io.DataOutputStream out) throws java.io.IOException
    {
        out.writeInt(runs.size());
        for (final Map.Entry<Long, Run> e : runs.entrySet())
        {
            final Run run = e.getValue();
            out.writeLong(e.getKey());
            out.writeLong(run.highest);
            int nonZero = 0;
            for (final long word : run.bits)
            {
                nonZero += word != 0 ? 1 : 0;
            }
            out.writeInt(nonZero);
            for (int i = 0; i < run.bits.length; i++)
            {
                if (run.bits[i] != 0)
                {
                    out.writeShort(i);
                    out.writeLong(run.bits[i]);
                }
            }
        }
        clients.writeTo(out);
    }

    /** Replaces the filter's state with what {@link #writeTo} wrote. */
    void readFrom(final java.io.DataInputStream in) throws java.io.IOException
    {
        final int count = in.readInt();
        if (count < 0 || count > maxRuns)
        {
            throw new java.io.IOException("a duplicate filter of " + count + " runs, this node keeps at most " +
                maxRuns + ": the snapshot is of another configuration");
        }
        runs.clear();
        lastRun = null;
        for (int r = 0; r < count; r++)
        {
            final long key = in.readLong();
            final Run run = new Run();
            run.highest = in.readLong();
            final int nonZero = in.readInt();
            if (nonZero < 0 || nonZero > run.bits.length)
            {
                throw new java.io.IOException("a duplicate filter run of " + nonZero + " words");
            }
            for (int i = 0; i < nonZero; i++)
            {
                final int at = in.readUnsignedShort();
                if (at >= run.bits.length)
                {
                    throw new java.io.IOException("a duplicate filter word at " + at);
                }
                run.bits[at] = in.readLong();
            }
            runs.put(key, run);
        }
        clients.readFrom(in);
    }

    private static final class Run
    {
        private final long[] bits = new long[WINDOW / 64];
        private long highest;

        boolean mark(final long counter)
        {
            if (counter > highest)
            {
                // Clear the bits of counters that the window now passes over.
                final long clearFrom = Math.max(highest + 1, counter - WINDOW + 1);
                for (long c = clearFrom; c < counter && c - clearFrom < WINDOW; c++)
                {
                    clear(c);
                }
                highest = counter;
                set(counter);
                return true;
            }
            if (counter <= highest - WINDOW || get(counter))
            {
                return false;
            }
            set(counter);
            return true;
        }

        private boolean get(final long c)
        {
            final int i = (int)(c & (WINDOW - 1));
            return (bits[i >>> 6] & (1L << i)) != 0;
        }

        private void set(final long c)
        {
            final int i = (int)(c & (WINDOW - 1));
            bits[i >>> 6] |= 1L << i;
        }

        private void clear(final long c)
        {
            final int i = (int)(c & (WINDOW - 1));
            bits[i >>> 6] &= ~(1L << i);
        }
    }
}
