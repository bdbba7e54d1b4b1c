package io.mmx.runtime.node;

import io.mmx.runtime.snapshot.SlotJournal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * The one journal of decided slots that every replica hosted by a node writes to. The processes of
 * a node live and die together, and agreement gives every one of them the same value at a slot,
 * so the node journals each slot once, when the first of its replicas applies it, instead of once
 * per replica: at 256 processes per JVM, 256 copies of every slot were a third of a 1024-process
 * cluster's CPU. Each replica still keeps its own snapshots; it replays this journal after its
 * newest one, up to the slots it may hold (its era's on a restart, the ones it was told of on a
 * snapshot install).
 *
 * <p>A slot recorded as a gap (the leading replica never saw it) stays a gap for every replica that
 * replays it: its state is then incomplete and it asks a peer for a snapshot, as after a lost
 * journal segment. Segments are deleted only below every hosted replica's oldest kept snapshot.
 *
 * <p>Directory {@code <stateDir>/journal-<first>-<last>-<crc of the hosted ids>/}: the segments and a
 * {@code lock} held while a node uses it. A node started with other processes uses another journal;
 * its replicas then restart from their snapshots and learn the slots after them again.
 */
final class HostJournal implements AutoCloseable
{
    /** At a replica's snapshot, the open segment is closed once it holds this much (deletion works by segments). */
    static final long SEGMENT_BYTES = 1 << 20;

    private final Path dir;
    private final int[] ids;
    /** Per hosted replica (index as in {@link #ids}): the first slot its oldest kept snapshot needs. */
    private final long[] keepFrom;
    private final SlotJournal journal;
    private final StateDirectoryLock lock;
    /** The last slot recorded, as a value or in a gap (-1 if none). */
    private long through;

    private HostJournal(final Path dir, final int[] ids) throws IOException
    {
        this.dir = Files.createDirectories(dir);
        this.ids = ids;
        this.keepFrom = new long[ids.length]; // 0 until a replica restores: keep everything
        this.lock = StateDirectoryLock.take(dir, "the journal " + dir);
        this.journal = new SlotJournal(dir);
        through = journal.replay(-1, new SlotJournal.Replay()
        {
            @Override
            public void slot(final long slot, final long[] value)
            {
            }

            @Override
            public void gap(final long from, final long to)
            {
            }
        });
        journal.startSegment(through + 1, 0);
    }

    /** Opens (creating) the journal of the node hosting {@code ids} under {@code stateDir}; fails if another node holds it. */
    static HostJournal open(final Path stateDir, final int[] ids)
    {
        final Path dir = stateDir.resolve(directoryName(ids));
        try
        {
            return new HostJournal(dir, ids.clone());
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot open the journal " + dir + ": " + ex.getMessage() +
                "; check that the state directory is writable", ex);
        }
    }

    /** {@code journal-<first>-<last>-<crc32 of the sorted ids, hex>}: one name per set of hosted processes. */
    static String directoryName(final int[] ids)
    {
        final int[] sorted = ids.clone();
        Arrays.sort(sorted);
        final CRC32 crc = new CRC32();
        for (final int id : sorted)
        {
            crc.update(id >>> 24);
            crc.update(id >>> 16);
            crc.update(id >>> 8);
            crc.update(id);
        }
        return String.format("journal-%d-%d-%08x", sorted[0], sorted[sorted.length - 1], crc.getValue());
    }

    /** The journal's directory. */
    Path directory()
    {
        return dir;
    }

    /** Records a decided slot before a replica applies it, unless a co-hosted replica already did. */
    void append(final long slot, final long[] value) throws IOException
    {
        if (slot > through)
        {
            journal.appendSlot(slot, value);
            through = slot;
        }
    }

    /** Records that slots {@code from..to} were never seen, for those not recorded yet. */
    void gap(final long from, final long to) throws IOException
    {
        if (to > through)
        {
            journal.appendGap(Math.max(from, through + 1), to);
            through = to;
        }
    }

    /** Writes the collected records to the file (before a replica tells others how far it applied). */
    void flush() throws IOException
    {
        journal.flush();
    }

    /** Replays the slots after {@code afterSlot} through {@code throughSlot}; returns the last one replayed. */
    long replay(final long afterSlot, final long throughSlot, final SlotJournal.Replay replay) throws IOException
    {
        return journal.replay(afterSlot, throughSlot, replay);
    }

    /**
     * Replica {@code id} needs the journal from {@code keepFromSlot} on (after its oldest kept
     * snapshot): closes the open segment once it is large, and deletes what no hosted replica needs.
     */
    void keepFrom(final int id, final long keepFromSlot) throws IOException
    {
        final int i = indexOf(id);
        keepFrom[i] = Math.max(keepFrom[i], keepFromSlot);
        long min = Long.MAX_VALUE;
        for (final long k : keepFrom)
        {
            min = Math.min(min, k);
        }
        if (journal.segmentBytes() >= SEGMENT_BYTES)
        {
            journal.startSegment(through + 1, min);
        }
        else
        {
            journal.deleteBefore(min);
        }
    }

    private int indexOf(final int id)
    {
        for (int i = 0; i < ids.length; i++)
        {
            if (ids[i] == id)
            {
                return i;
            }
        }
        throw new IllegalArgumentException("process " + id + " is not hosted with this journal (" + dir + ")");
    }

    @Override
    public void close() throws IOException
    {
        try
        {
            journal.close();
        }
        finally
        {
            lock.close();
        }
    }
}
