package io.mmx.rdma.shm;

import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.RegionMemory;
import io.mmx.rdma.region.RegionResolver;
import org.agrona.IoUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One region per id whatever races; owner-only directory and files; one mapping per served region. */
class ShmRegionStoreTest
{
    private static final PlanDigest DIGEST = PlanDigest.of64(0x5eedL);
    private static final ClusterKey KEY = ClusterKey.ofPassphrase("shm region store test key");
    private static final int RACES = 100;
    private static final int RACERS = 4;

    private Path directory;

    @BeforeEach
    void setUp() throws Exception
    {
        directory = Files.createTempDirectory(ShmTestSupport.shmRoot(), "mmx-store-").resolve("regions");
    }

    @AfterEach
    void tearDown()
    {
        IoUtil.delete(directory.getParent().toFile(), true);
    }

    @Test
    void concurrentCreatorsOfOneIdEndOnOneRegion() throws Exception
    {
        final ShmRegionStore store = new ShmRegionStore(directory);
        final ExecutorService pool = Executors.newFixedThreadPool(RACERS);
        try
        {
            for (int id = 0; id < RACES; id++)
            {
                final int owner = id;
                final CyclicBarrier start = new CyclicBarrier(RACERS);
                final List<Future<ShmRegionStore.MappedRegion>> racers = new ArrayList<>();
                for (int r = 0; r < RACERS; r++)
                {
                    racers.add(pool.submit(() ->
                    {
                        start.await(30, TimeUnit.SECONDS);
                        final ShmRegionStore.MappedRegion region = store.createOrOpen(owner, 64, DIGEST, KEY);
                        region.memory().executeWord(io.mmx.rdma.fabric.OpType.FETCH_AND_ADD, 0, 1, 0);
                        return region;
                    }));
                }
                final List<ShmRegionStore.MappedRegion> regions = new ArrayList<>();
                for (final Future<ShmRegionStore.MappedRegion> racer : racers)
                {
                    regions.add(racer.get(30, TimeUnit.SECONDS));
                }
                // A forked region shows as a mapping that did not see every racer's increment.
                for (final ShmRegionStore.MappedRegion region : regions)
                {
                    try (region)
                    {
                        assertEquals(RACERS, region.memory().executeWord(io.mmx.rdma.fabric.OpType.READ, 0, 0, 0),
                            "race " + owner + ": a creator ended on a region the others did not write");
                    }
                }
            }
        }
        finally
        {
            pool.shutdownNow();
        }
        try (Stream<Path> files = Files.list(directory))
        {
            final List<String> names = files.map(p -> p.getFileName().toString()).sorted().toList();
            assertEquals(RACES, names.size(), "one file per id and no leftover private files: " + names);
            assertTrue(names.stream().allMatch(n -> n.matches("process-\\d+\\.region")), names.toString());
        }
        for (int id = 0; id < RACES; id++)
        {
            assertEquals(1, ((Number)Files.getAttribute(store.regionFile(id), "unix:nlink")).intValue(),
                "the private file of race " + id + " is gone, so the region has one name");
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(store.regionFile(id))));
        }
    }

    @Test
    void directoryIsOwnerOnly() throws Exception
    {
        new ShmRegionStore(directory);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(directory)));

        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxrwxrwx"));
        new ShmRegionStore(directory);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(directory)),
            "an existing directory of ours loses group and other access");
    }

    @Test
    void directoryOfAnotherUserIsRefused() throws Exception
    {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self")), "needs Linux /proc");
        // As root, hand a directory to 'nobody'; as anyone else, root's / is another user's directory.
        final Path notOurs;
        if (isRoot())
        {
            Files.createDirectories(directory);
            Files.setAttribute(directory, "unix:uid", 65534);
            notOurs = directory;
        }
        else
        {
            notOurs = Path.of("/");
        }
        final IllegalStateException refused = assertThrows(IllegalStateException.class, () -> new ShmRegionStore(notOurs));
        assertTrue(refused.getMessage().contains("belongs to uid") &&
            refused.getMessage().contains("use a directory of your own"), refused.getMessage());
    }

    @Test
    void resolverMapsEachRegionOnce()
    {
        final ShmRegionStore store = new ShmRegionStore(directory);
        final RegionResolver resolver = store.resolver(DIGEST, KEY);
        assertEquals(io.mmx.rdma.fabric.OpStatus.REGION_LOST, resolver.resolve(3).status(), "not created yet");
        store.createOrOpen(3, 64, DIGEST, KEY).close();
        final RegionMemory first = resolver.resolve(3).memory();
        for (int i = 0; i < 3; i++)
        {
            final RegionMemory again = resolver.resolve(3).memory();
            assertSame(first, again);
            assertEquals(first.buffer().addressOffset(), again.buffer().addressOffset());
        }
    }

    @Test
    void resolverMapsAReplacedFileAnew()
    {
        final ShmRegionStore store = new ShmRegionStore(directory);
        final RegionResolver resolver = store.resolver(DIGEST, KEY);
        store.createOrOpen(3, 64, DIGEST, KEY).close();
        final RegionMemory first = resolver.resolve(3).memory();
        first.executeWord(io.mmx.rdma.fabric.OpType.WRITE, 0, 11, 0);

        store.delete(3);
        assertSame(first, resolver.resolve(3).memory(), "a deleted file's region stays served until replaced");
        store.createOrOpen(3, 64, DIGEST, KEY).close();
        final RegionMemory replaced = resolver.resolve(3).memory();
        assertNotSame(first, replaced, "the new file is mapped, not the deleted one served beside it");
        assertEquals(0, replaced.executeWord(io.mmx.rdma.fabric.OpType.READ, 0, 0, 0), "a new region");
        assertSame(replaced, resolver.resolve(3).memory(), "and mapped once");
    }

    private static boolean isRoot()
    {
        try
        {
            return ((Integer)Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        }
        catch (final Exception ex)
        {
            return false;
        }
    }
}
