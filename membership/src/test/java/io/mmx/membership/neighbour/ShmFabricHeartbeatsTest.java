package io.mmx.membership.neighbour;

import io.mmx.rdma.fabric.RegionLinkFactory;
import io.mmx.rdma.shm.ShmRegionStore;
import org.agrona.IoUtil;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Heartbeats over regions in /dev/shm files (the JVM's temp directory where /dev/shm is missing). */
class ShmFabricHeartbeatsTest extends FabricHeartbeatsTest
{
    private final Path directory;
    private final ShmRegionStore store;

    ShmFabricHeartbeatsTest()
    {
        final Path shm = Path.of("/dev/shm");
        final Path root = Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        try
        {
            directory = Files.createTempDirectory(root, "mmx-heartbeats-");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        store = new ShmRegionStore(directory);
    }

    @Override
    void createRegion(final int owner)
    {
        store.createOrOpen(owner, DATA_BYTES, DIGEST, KEY).close();
    }

    @Override
    RegionLinkFactory linkFactory()
    {
        return store.linkFactory(DIGEST, KEY);
    }

    @Override
    void tearDownBackend()
    {
        IoUtil.delete(directory.toFile(), true);
    }
}
