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
    /** The files this node locked (entries of {@link #LOCKED_IN_THIS_JVM}). */
    private final List<Path> lockedHere = new ArrayList<>();

    /**
     * Lock files some node of this JVM holds. Record locks belong to the process, and closing any
     * channel of a file drops them all, so a file locked here is never opened to be asked about: the
     * probe would free the lock, and every other JVM would find that process dead (a follower asking
     * about its co-hosted leader did so; ShmLivenessTest). A process's locks are process-wide state,
     * hence one set per JVM.
     */
    private static final java.util.Set<Path> LOCKED_IN_THIS_JVM = java.util.concurrent.ConcurrentHashMap.newKeySet();

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
                if (!lockSoon(channel))
                {
                    throw new IllegalStateException("another running node holds " + file(id) + ", so it hosts process " +
                        id + " already: stop it, or give this node other processes");
                }
                final Path key = key(file(id));
                LOCKED_IN_THIS_JVM.add(key);
                lockedHere.add(key);
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

    private static Path key(final Path file)
    {
        return file.toAbsolutePath().normalize();
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
        final Path file = file(processId);
        if (LOCKED_IN_THIS_JVM.contains(key(file)))
        {
            return LockState.HELD; // this JVM runs it; never opened to ask (see LOCKED_IN_THIS_JVM)
        }
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
            return LockState.HELD; // being locked by a node of this JVM at this instant
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
        LOCKED_IN_THIS_JVM.removeAll(lockedHere);
        lockedHere.clear();
    }
}
