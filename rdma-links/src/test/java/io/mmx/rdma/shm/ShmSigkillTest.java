package io.mmx.rdma.shm;

import io.mmx.rdma.fabric.CasHammerChild;
import io.mmx.rdma.fabric.SigkillHarness;
import org.agrona.IoUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Three child JVMs CAS-increment one counter in a shm region; one is killed with SIGKILL
 * mid-run. The region must survive, no increment may be lost or duplicated, the killed child's
 * last state must be consistent, and the survivors must finish.
 */
class ShmSigkillTest
{
    private Path directory;

    @BeforeEach
    void setUp() throws Exception
    {
        directory = Files.createTempDirectory(ShmTestSupport.shmRoot(), "mmx-sigkill-");
    }

    @AfterEach
    void tearDown()
    {
        IoUtil.delete(directory.toFile(), true);
    }

    @Test
    void regionSurvivesSigkillAndNoIncrementIsLostOrDuplicated() throws Exception
    {
        final ShmRegionStore store = new ShmRegionStore(directory);
        try (ShmRegionStore.MappedRegion region = store.createOrOpen(0,
            CasHammerChild.dataBytes(SigkillHarness.MAX_INCREMENTS), CasHammerChild.DIGEST, CasHammerChild.KEY);
            SigkillHarness harness = new SigkillHarness(directory))
        {
            System.out.println("shm sigkill: " + harness.run("shm", directory.toString(), region.memory()));
        }
    }
}
