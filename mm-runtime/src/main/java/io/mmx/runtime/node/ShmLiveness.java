package io.mmx.runtime.node;

import io.mmx.membership.neighbour.HostLiveness;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Liveness from the operating system for processes whose regions are shm files on this machine: the
 * node holds an exclusive lock on {@code process-<id>.live} beside the region files for each process it
 * hosts, and the kernel drops the lock the moment the JVM dies, SIGKILL included. Another node asks
 * {@link #surelyRuns} only when a leader's or a neighbour's heartbeat word has stood still past the
 * bound: if it cannot take the lock, that JVM runs and is only slow (a busy machine, a collector
 * pause), so the leader is not declared stopped and the neighbour not suspected yet. {@link #surelyDead} answers the other way, for the early bound: a
 * free lock whose file a node created means that node's JVM is gone.
 */
final class ShmLiveness implements HostLiveness, AutoCloseable
{
    private final Path directory;
    private final List<FileChannel> held = new ArrayList<>();
    /** The processes this node hosts: asked about, they run, and their files are never opened again. */
    private final java.util.Set<Integer> hosted = new java.util.HashSet<>();

    /**
     * Takes the lock of every hosted process, waiting for a peer that is testing it at that instant.
     *
     * @throws IllegalStateException naming the file when a lock cannot be taken (another running node
     *                               hosts that process).
     */
    ShmLiveness(final Path directory, final int[] hosted)
    {
        this.directory = directory;
        try
        {
            Files.createDirectories(directory);
            for (final int id : hosted)
            {
                final FileChannel channel = FileChannel.open(file(id), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                held.add(channel);
                this.hosted.add(id);
                if (!lockSoon(channel))
                {
                    throw new IllegalStateException("another running node holds " + file(id) + ", so it hosts process " +
                        id + " already: stop it, or give this node other processes");
                }
            }
        }
        catch (final IOException ex)
        {
            close();
            throw new IllegalStateException("cannot lock " + directory + " for the hosted processes' liveness (" +
                ex.getMessage() + "); give a writable --shm-dir", ex);
        }
        catch (final RuntimeException ex)
        {
            close();
            throw ex;
        }
    }

    /** A peer's test holds the lock for microseconds: retry for up to a second. */
    private static boolean lockSoon(final FileChannel channel) throws IOException
    {
        final long deadline = System.nanoTime() + 1_000_000_000L;
        while (true)
        {
            if (channel.tryLock() != null)
            {
                return true;
            }
            if (System.nanoTime() > deadline)
            {
                return false;
            }
            Thread.onSpinWait();
        }
    }

    private Path file(final int id)
    {
        return directory.resolve("process-" + id + ".live");
    }

    @Override
    public boolean surelyRuns(final int processId)
    {
        return lockState(processId) == LockState.HELD;
    }

    @Override
    public boolean surelyDead(final int processId)
    {
        return lockState(processId) == LockState.FREE;
    }

    /** What a process's lock file says of the JVM hosting it. */
    private enum LockState
    {
        /** Its owner holds the lock: that JVM runs. */
        HELD,
        /** The file exists (a node hosted the process) and nobody holds it: that JVM is gone. */
        FREE,
        /** No file (never hosted on this machine) or an I/O error: cannot tell. */
        UNKNOWN
    }

    private LockState lockState(final int processId)
    {
        if (hosted.contains(processId))
        {
            // This JVM runs it. Never open its file to ask: record locks belong to the process, and
            // closing any channel of the file drops them all, so the probe would free the lock we
            // hold and every other node would find the process dead (ShmLivenessTest).
            return LockState.HELD;
        }
        final Path file = file(processId);
        if (!Files.exists(file))
        {
            return LockState.UNKNOWN;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE))
        {
            final FileLock lock = channel.tryLock();
            if (lock == null)
            {
                return LockState.HELD;
            }
            lock.release();
            return LockState.FREE;
        }
        catch (final OverlappingFileLockException ex)
        {
            return LockState.HELD; // held in this JVM, which runs (not a hosted process: see above)
        }
        catch (final IOException ex)
        {
            return LockState.UNKNOWN; // cannot tell: the word alone decides
        }
    }

    @Override
    public void close()
    {
        for (final FileChannel c : held)
        {
            try
            {
                c.close(); // releases the lock
            }
            catch (final IOException ex)
            {
                // closing a lock file cannot lose data; the kernel drops the lock with the process anyway
            }
        }
        held.clear();
        hosted.clear();
    }
}
