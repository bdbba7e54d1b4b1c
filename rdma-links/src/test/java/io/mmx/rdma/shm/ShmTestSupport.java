package io.mmx.rdma.shm;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where shm tests put their region directories. */
final class ShmTestSupport
{
    private ShmTestSupport()
    {
    }

    /** /dev/shm when present (the real target), else the JVM's temp directory. */
    static Path shmRoot()
    {
        final Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
    }
}
