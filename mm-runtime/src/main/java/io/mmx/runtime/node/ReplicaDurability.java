package io.mmx.runtime.node;

import io.mmx.runtime.snapshot.SlotJournal;
import io.mmx.runtime.snapshot.SnapshotStore;
import org.agrona.CloseHelper;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One replica's state on disk: snapshots of its state machine (with the duplicate filter, so a
 * restarted replica filters retried commands as the others do) and the slots it applied since, in
 * its node's {@link HostJournal}. A restart loads the newest good snapshot and replays the journal,
 * so the replica holds at least the state it had when it stopped, however it stopped (the journal
 * may hold slots a co-hosted replica applied first: decided values, so the replica is only further
 * on); only a host crash can lose the journal's unsynced tail, and that shows as a gap.
 *
 * <p>Directory {@code <stateDir>/process-<id>/}: {@code snapshot-*.snap}, the file {@code journal}
 * naming the host journal it writes to, and a {@code lock} held while a node runs the process, so
 * two nodes never share one state.
 */
final class ReplicaDurability implements AutoCloseable
{
    /** Snapshots kept: the newest and the one before, in case the newest turns out damaged. */
    static final int KEEP = 2;

    /** Takes the journal's records: slots applied as if decided now (no submitter completed), and gaps. */
    interface Replayer
    {
        /** Applies a slot; returns the commands applied. */
        int apply(long slot, long[] value);

        /** The replica never saw log indexes {@code fromIndex..toIndex}. */
        void gap(long fromIndex, long toIndex);
    }

    /**
     * Where a plan change ended the replica's era: every snapshot records it when it is at or before
     * the snapshot's slot, so that a replica installing a peer's snapshot past the change learns that
     * its era ended there (it never applies that slot itself).
     */
    interface EraMark
    {
        /** The log slot a plan change ended the era at, or -1. */
        long eraEndedAt();

        /** The id of the plan the next era runs, once {@link #eraEndedAt()} is set. */
        long nextPlanId();
    }

    /** Told, while a peer's snapshot is installed and before the journal is replayed, where it says the era ended. */
    interface EraEndSink
    {
        void eraEnded(long slot, long planId);
    }

    private static final EraMark NO_MARK = new EraMark()
    {
        @Override
        public long eraEndedAt()
        {
            return -1;
        }

        @Override
        public long nextPlanId()
        {
            return 0;
        }
    };

    private EraMark eraMark = NO_MARK;
    private final int id;
    private final Path dir;
    private final int maxBatch;
    private final long snapshotEveryCommands;
    private final SnapshotStore snapshots;
    private final HostJournal journal;
    /** Whether {@link #close} closes the journal too (opened for this replica alone). */
    private final boolean ownsJournal;
    private final StateDirectoryLock lock;
    private long lastSlot = -1;
    private long commandsSinceSnapshot;
    private String lastError;
    private long restoredSnapshotSlot = -1;

    private ReplicaDurability(final Path dir, final int id, final int maxBatch, final long snapshotEveryCommands,
        final HostJournal journal, final boolean ownsJournal) throws IOException
    {
        this.id = id;
        this.dir = dir;
        this.maxBatch = maxBatch;
        this.snapshotEveryCommands = snapshotEveryCommands;
        Files.createDirectories(dir);
        this.lock = StateDirectoryLock.take(dir, "the state of process " + id + " in " + dir);
        this.snapshots = new SnapshotStore(dir, KEEP);
        this.journal = journal;
        this.ownsJournal = ownsJournal;
        final Path marker = dir.resolve(JOURNAL_FILE);
        final String name = journal.directory().getFileName().toString();
        final String before = Files.exists(marker) ? Files.readString(marker).trim() : null;
        if (before != null && !before.equals(name))
        {
            EventLog.log(EventLog.Level.WARN, "journal_changed", id, "process " + id + " journaled to " + before +
                " when it last ran, and now to " + name + " (its node hosts other processes): it restarts from its " +
                "snapshot and learns the slots after it again");
        }
        if (!name.equals(before))
        {
            Files.writeString(marker, name + "\n");
        }
    }

    /** File in a process's state directory naming the host journal it writes to. */
    static final String JOURNAL_FILE = "journal";

    /**
     * Opens (creating) the state of process {@code id} under {@code stateDir}, with a journal of its
     * own; fails if another node holds it.
     */
    static ReplicaDurability open(final Path stateDir, final int id, final int maxBatch, final long snapshotEveryCommands)
    {
        final HostJournal journal = HostJournal.open(stateDir, new int[]{id});
        try
        {
            return open(stateDir, id, maxBatch, snapshotEveryCommands, journal, true);
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietClose(journal);
            throw ex;
        }
    }

    /**
     * Opens (creating) the state of process {@code id} under {@code stateDir}, journaling to its
     * node's {@code journal}; fails if another node holds it.
     */
    static ReplicaDurability open(final Path stateDir, final int id, final int maxBatch, final long snapshotEveryCommands,
        final HostJournal journal)
    {
        return open(stateDir, id, maxBatch, snapshotEveryCommands, journal, false);
    }

    private static ReplicaDurability open(final Path stateDir, final int id, final int maxBatch,
        final long snapshotEveryCommands, final HostJournal journal, final boolean ownsJournal)
    {
        try
        {
            return new ReplicaDurability(stateDir.resolve("process-" + id), id, maxBatch, snapshotEveryCommands,
                journal, ownsJournal);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot open the state directory of process " + id + " under " + stateDir +
                ": " + ex.getMessage() + "; check that it is writable", ex);
        }
    }

    /**
     * True if process {@code id} ran before with this state directory: its acceptor may have
     * promised and accepted, so a region of it found missing was lost, not new.
     */
    static boolean ranBefore(final Path stateDir, final int id)
    {
        final Path d = stateDir.resolve("process-" + id);
        if (!Files.isDirectory(d))
        {
            return false;
        }
        try (var files = Files.list(d))
        {
            return files.anyMatch(f -> f.getFileName().toString().matches("(" + JOURNAL_FILE + "|journal-.*\\.log|" +
                "snapshot-.*\\.snap|" + LogEra.FILE + ")"));
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot read the state directory " + d + ": " + ex.getMessage(), ex);
        }
    }

    /** The era this replica's log is in, from its state directory. */
    LogEra era(final int n)
    {
        return LogEra.load(dir, n);
    }

    /** Where snapshots read the era's end from: the replica that now keeps this state. */
    void eraMark(final EraMark mark)
    {
        this.eraMark = mark;
    }

    /** Records a cold start: the era after {@code previous}, from a state through slot {@code position}. */
    LogEra nextEra(final int n, final LogEra previous, final long position, final boolean majority)
    {
        return LogEra.next(dir, n, previous, position, majority);
    }

    /** Records the era a plan change at slot {@code cut} begins after {@code previous}, from a state through slot {@code position}. */
    LogEra changedEra(final int n, final LogEra previous, final long cut, final long position)
    {
        return LogEra.after(dir, n, previous, cut, position);
    }

    /** Records that this process joins era {@code era} of a plan change, with no state yet. */
    LogEra joinedEra(final int n, final int era)
    {
        return LogEra.joined(dir, n, era);
    }

    /** The slot of the snapshot the last {@link #restore} loaded (-1 if none). */
    long restoredSnapshotSlot()
    {
        return restoredSnapshotSlot;
    }

    /**
     * Loads the newest good snapshot into {@code stateMachine} and {@code duplicates}, and replays the
     * journal after it, up to {@code throughSlot} (the end of the replica's era), through {@code replayer}.
     *
     * @return the last slot the replica now holds (-1 if none).
     */
    long restore(final StateMachine stateMachine, final DuplicateFilter duplicates, final Replayer replayer,
        final long throughSlot)
    {
        try
        {
            final List<SnapshotStore.Rejected> rejected = new ArrayList<>();
            final Optional<SnapshotStore.Snapshot> snapshot = snapshots.latest(rejected);
            for (final SnapshotStore.Rejected r : rejected)
            {
                EventLog.log(EventLog.Level.WARN, "snapshot_skipped", id, "snapshot skipped: " + r.reason());
            }
            long after = -1;
            if (snapshot.isPresent())
            {
                if (!stateMachine.snapshots())
                {
                    throw new IllegalStateException("process " + id + " has snapshots but its state machine " +
                        stateMachine.getClass().getName() + " cannot load them");
                }
                try (InputStream in = snapshots.open(snapshot.get()))
                {
                    final DataInputStream data = new DataInputStream(in);
                    duplicates.readFrom(data);
                    data.readLong(); // the era's end: this replica's era file says it already
                    data.readLong();
                    stateMachine.loadSnapshot(data);
                }
                stateMachine.onSnapshotLoaded(snapshot.get().logIndex());
                after = slotOf(snapshot.get().logIndex());
            }
            restoredSnapshotSlot = after;
            final long[] replayed = {0};
            lastSlot = journal.replay(after, throughSlot, new SlotJournal.Replay()
            {
                @Override
                public void slot(final long slot, final long[] value)
                {
                    replayed[0] += replayer.apply(slot, value);
                }

                @Override
                public void gap(final long from, final long to)
                {
                    replayGap(replayer, from, to);
                }
            });
            commandsSinceSnapshot = replayed[0];
            journal.keepFrom(id, oldestSnapshotSlot() + 1);
            if (lastSlot < 0 && snapshot.isEmpty())
            {
                return lastSlot; // a new replica: nothing to say
            }
            EventLog.log(EventLog.Level.INFO, "state_restored", id, "state restored through slot " + lastSlot +
                (snapshot.isPresent() ? " (snapshot at slot " + after + ", " : " (no snapshot, ") + replayed[0] +
                " commands replayed from the journal)");
            return lastSlot;
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot restore the state of process " + id + ": " + ex.getMessage(), ex);
        }
    }

    /** Journals a decided slot before it is applied; a failure stops the node (a restart recovers from disk). */
    void beforeApply(final long slot, final long[] value)
    {
        try
        {
            journal.append(slot, value);
            lastSlot = slot;
        }
        catch (final IOException ex)
        {
            throw journalFailed(ex);
        }
    }

    /**
     * Writes the journal's collected records to its file: call before anything tells others how far
     * this replica applied (its decided log's mark); a failure stops the node as in {@link #beforeApply}.
     */
    void flushJournal()
    {
        try
        {
            journal.flush();
        }
        catch (final IOException ex)
        {
            throw journalFailed(ex);
        }
    }

    /** Journals slots the replica will never see. */
    void gap(final long fromSlot, final long toSlot)
    {
        try
        {
            journal.gap(fromSlot, toSlot);
            lastSlot = Math.max(lastSlot, toSlot);
        }
        catch (final IOException ex)
        {
            throw journalFailed(ex);
        }
    }

    /** A journal that cannot be written stops the node: a restart recovers from disk. */
    private org.agrona.concurrent.AgentTerminationException journalFailed(final IOException ex)
    {
        return new org.agrona.concurrent.AgentTerminationException("process " + id + " cannot write its journal: " +
            ex.getMessage() + "; the node stops so that a restart recovers from disk (free space in the state directory)");
    }

    /** After a slot's commands were applied: takes a snapshot once enough commands have been applied since the last. */
    void afterApply(final int commands, final StateMachine stateMachine, final DuplicateFilter duplicates)
    {
        commandsSinceSnapshot += commands;
        if (commandsSinceSnapshot >= snapshotEveryCommands)
        {
            snapshot(stateMachine, duplicates);
        }
    }

    /**
     * Writes a snapshot of the state through the last slot applied and starts a new journal
     * segment. A failure is reported and the journal simply grows; the node goes on.
     */
    boolean snapshot(final StateMachine stateMachine, final DuplicateFilter duplicates)
    {
        return snapshotAt(lastSlot, stateMachine, duplicates) != null;
    }

    /**
     * A snapshot of the state as it is now, through {@code stateSlot}, for a peer that asked for one
     * (the newest, taken now); null if it failed (reported).
     */
    SnapshotStore.Snapshot snapshotForTransfer(final StateMachine stateMachine, final DuplicateFilter duplicates,
        final long stateSlot)
    {
        return snapshotAt(stateSlot, stateMachine, duplicates);
    }

    /** The snapshot store (a transfer reads from it and receives into it). */
    SnapshotStore store()
    {
        return snapshots;
    }

    /**
     * Loads {@code snapshot} (received from a peer) as the state, tells the state machine the index it
     * holds through ({@link StateMachine#onSnapshotLoaded}: the slots up to it that were journaled
     * while it travelled are never applied here), and replays the journaled slots after it.
     *
     * @return the last slot the state now holds.
     */
    long install(final SnapshotStore.Snapshot snapshot, final StateMachine stateMachine,
        final DuplicateFilter duplicates, final EraEndSink eraEnd, final Replayer replayer) throws IOException
    {
        try (InputStream in = snapshots.open(snapshot))
        {
            final DataInputStream data = new DataInputStream(in);
            duplicates.readFrom(data);
            final long endedAt = data.readLong();
            final long nextPlan = data.readLong();
            stateMachine.loadSnapshot(data);
            if (endedAt >= 0)
            {
                eraEnd.eraEnded(endedAt, nextPlan);
            }
        }
        stateMachine.onSnapshotLoaded(snapshot.logIndex());
        final long at = slotOf(snapshot.logIndex());
        final long last = journal.replay(at, Math.max(at, lastSlot), new SlotJournal.Replay()
        {
            @Override
            public void slot(final long slot, final long[] value)
            {
                replayer.apply(slot, value);
            }

            @Override
            public void gap(final long from, final long to)
            {
                replayGap(replayer, from, to);
            }
        });
        lastSlot = Math.max(lastSlot, last);
        commandsSinceSnapshot = 0;
        EventLog.log(EventLog.Level.INFO, "snapshot_installed", id, "installed a peer's snapshot through slot " + at +
            ", then the journal through slot " + last);
        return last;
    }

    // A journal moves from an era's last slot written to the next era's slot 0: no one's slots, not a gap.
    private void replayGap(final Replayer replayer, final long from, final long to)
    {
        if ((to + 1) % LogEra.SLOTS == 0 && LogEra.eraOf(from) < LogEra.eraOf(to + 1))
        {
            return;
        }
        replayer.gap(from * maxBatch, to * maxBatch + maxBatch - 1);
    }

    /**
     * Deletes every snapshot older than {@code snapshot}: after a peer's snapshot replaced a state
     * that was not the era's (a cold start), falling back to an older one would bring it back.
     */
    void forgetOlderThan(final SnapshotStore.Snapshot snapshot) throws IOException
    {
        try (var files = Files.list(dir))
        {
            for (final Path f : (Iterable<Path>)files::iterator)
            {
                final String name = f.getFileName().toString();
                if (name.matches("snapshot-\\d{20}\\.snap") && Long.parseLong(name.substring(9, 29)) < snapshot.logIndex())
                {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    private SnapshotStore.Snapshot snapshotAt(final long slot, final StateMachine stateMachine,
        final DuplicateFilter duplicates)
    {
        commandsSinceSnapshot = 0;
        if (slot < 0 || !stateMachine.snapshots())
        {
            return null;
        }
        try (SnapshotStore.Writer writer = snapshots.begin(slot * maxBatch + maxBatch - 1))
        {
            final DataOutputStream data = new DataOutputStream(writer);
            duplicates.writeTo(data);
            final long endedAt = eraMark.eraEndedAt();
            data.writeLong(endedAt >= 0 && endedAt <= slot ? endedAt : -1);
            data.writeLong(endedAt >= 0 && endedAt <= slot ? eraMark.nextPlanId() : 0);
            data.flush();
            stateMachine.takeSnapshot(writer);
            final SnapshotStore.Snapshot published = writer.publish();
            journal.keepFrom(id, oldestSnapshotSlot() + 1);
            lastError = null;
            return published;
        }
        catch (final IOException | RuntimeException ex)
        {
            final String error = "snapshot at slot " + slot + " failed: " + ex.getMessage();
            if (!error.equals(lastError))
            {
                EventLog.log(EventLog.Level.ERROR, "snapshot_failed", id,
                    error + "; the journal keeps every slot until one succeeds");
            }
            lastError = error;
            return null;
        }
    }

    private long oldestSnapshotSlot() throws IOException
    {
        // The oldest kept snapshot is the one a damaged newest falls back to: the journal after it stays.
        long oldest = Long.MAX_VALUE;
        try (var files = Files.list(snapshots.fileOf(0).getParent()))
        {
            for (final Path f : (Iterable<Path>)files::iterator)
            {
                final String name = f.getFileName().toString();
                if (name.matches("snapshot-\\d{20}\\.snap"))
                {
                    oldest = Math.min(oldest, slotOf(Long.parseLong(name.substring(9, 29))));
                }
            }
        }
        return oldest == Long.MAX_VALUE ? -1 : oldest;
    }

    private long slotOf(final long logIndex)
    {
        return (logIndex + 1) / maxBatch - 1;
    }

    @Override
    public void close()
    {
        try
        {
            if (ownsJournal)
            {
                journal.close();
            }
            lock.close();
        }
        catch (final IOException ex)
        {
            EventLog.log(EventLog.Level.ERROR, "state_close_failed", id, "closing its state: " + ex.getMessage());
        }
    }
}
