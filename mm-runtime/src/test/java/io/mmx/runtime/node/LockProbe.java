package io.mmx.runtime.node;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A child JVM's look at a liveness lock file, as another node on the machine sees it: prints HELD
 * when another process holds the lock, FREE when it could take it (and lets it go at once).
 * Record locks belong to a process, so only another process can tell whether the owner still holds
 * its lock.
 */
public final class LockProbe
{
    private LockProbe()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        try (FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.WRITE))
        {
            final FileLock lock = channel.tryLock();
            System.out.println(lock == null ? "HELD" : "FREE");
        }
    }
}
