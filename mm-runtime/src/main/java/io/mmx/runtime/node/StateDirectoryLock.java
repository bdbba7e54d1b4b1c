package io.mmx.runtime.node;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The file {@code lock} of a directory under {@code --state-dir} (a process's state, a node's
 * journal), held while a node uses the directory, so that two nodes never share one.
 */
final class StateDirectoryLock implements AutoCloseable
{
    private final FileChannel channel;
    private final FileLock lock;

    private StateDirectoryLock(final FileChannel channel, final FileLock lock)
    {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock of {@code dir}, or fails naming {@code what} ("the journal …") and the fix.
     *
     * @throws IllegalStateException if another node (or this one) holds it.
     */
    static StateDirectoryLock take(final Path dir, final String what) throws IOException
    {
        final FileChannel channel = FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE,
            StandardOpenOption.WRITE);
        FileLock held;
        try
        {
            held = channel.tryLock();
        }
        catch (final OverlappingFileLockException ex)
        {
            held = null;
        }
        if (held == null)
        {
            channel.close();
            throw new IllegalStateException(what + " is in use by another node: give each node its own --state-dir, " +
                "or stop the other node first");
        }
        return new StateDirectoryLock(channel, held);
    }

    @Override
    public void close() throws IOException
    {
        try
        {
            lock.release();
        }
        finally
        {
            channel.close();
        }
    }
}
