package io.mmx.rdma.shm;

import io.mmx.rdma.region.RegionHeader;
import io.mmx.rdma.region.RegionMemory;
import org.agrona.IoUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.mmx.rdma.shm.ShmCasHammer.CHILDREN;
import static io.mmx.rdma.shm.ShmCasHammer.COUNTER;
import static io.mmx.rdma.shm.ShmCasHammer.DONE;
import static io.mmx.rdma.shm.ShmCasHammer.GO;
import static io.mmx.rdma.shm.ShmCasHammer.INTENT;
import static io.mmx.rdma.shm.ShmCasHammer.OWNER;
import static io.mmx.rdma.shm.ShmCasHammer.READY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Three child JVMs CAS-increment one counter in a shm region; one is killed with SIGKILL
 * mid-run. The region must survive, no increment may be lost or duplicated, the killed child's
 * last state must be consistent, and the survivors must finish.
 */
class ShmSigkillTest
{
    private static final long SURVIVOR_QUOTA = 20_000;
    private static final long VICTIM_QUOTA = 1_000_000;
    private static final long KILL_AFTER = 2_000;
    private static final int VICTIM = 2;
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(90);

    private Path directory;
    private final List<Process> children = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception
    {
        directory = Files.createTempDirectory(ShmTestSupport.shmRoot(), "mmx-sigkill-");
    }

    @AfterEach
    void tearDown()
    {
        children.forEach(Process::destroyForcibly);
        IoUtil.delete(directory.toFile(), true);
    }

    @Test
    void regionSurvivesSigkillAndNoIncrementIsLostOrDuplicated() throws Exception
    {
        final ShmRegionStore store = new ShmRegionStore(directory);
        final long maxIncrements = 2 * SURVIVOR_QUOTA + VICTIM_QUOTA;
        try (ShmRegionStore.MappedRegion region = store.createOrOpen(
            0, ShmCasHammer.dataBytes(maxIncrements), ShmCasHammer.DIGEST, ShmCasHammer.KEY))
        {
            final RegionMemory memory = region.memory();
            for (int self = 1; self <= CHILDREN; self++)
            {
                final long quota = self == VICTIM ? VICTIM_QUOTA : SURVIVOR_QUOTA;
                children.add(startChild(self, quota));
            }
            final long startNs = System.nanoTime();
            awaitWord(memory, READY, CHILDREN, startNs, "all children ready");
            memory.executeWord(io.mmx.rdma.fabric.OpType.WRITE, GO, 1, 0);

            awaitWord(memory, DONE + 8L * (VICTIM - 1), KILL_AFTER, startNs, "victim made progress");
            final Process victim = children.get(VICTIM - 1);
            victim.destroyForcibly(); // SIGKILL on Linux
            assertTrue(victim.waitFor(10, TimeUnit.SECONDS), "victim did not die");
            assertEquals(137, victim.exitValue(), "victim must die by SIGKILL (128 + 9)");
            final long counterAtKill = word(memory, COUNTER);
            final long survivorsAtKill = word(memory, DONE) + word(memory, DONE + 16);

            for (int self = 1; self <= CHILDREN; self++)
            {
                if (self == VICTIM)
                {
                    continue;
                }
                final Process p = children.get(self - 1);
                final long leftNs = DEADLINE_NS - (System.nanoTime() - startNs);
                if (!p.waitFor(Math.max(1, leftNs), TimeUnit.NANOSECONDS))
                {
                    fail("survivor " + self + " did not finish in time; see " + logOf(self));
                }
                assertEquals(0, p.exitValue(), "survivor " + self + " failed; see " + logOf(self));
            }
            assertTrue(survivorsAtKill < 2 * SURVIVOR_QUOTA,
                "the kill must land while survivors still work (they had " + survivorsAtKill + ")");

            checkHistory(memory, counterAtKill);
        }
    }

    private void checkHistory(final RegionMemory memory, final long counterAtKill)
    {
        final long counter = word(memory, COUNTER);
        final long[] owned = new long[CHILDREN + 1];
        long holes = 0;
        long holeAt = -1;
        for (long v = 0; v < counter; v++)
        {
            final long owner = word(memory, OWNER + 8 * v);
            if (owner == 0)
            {
                holes++;
                holeAt = v;
            }
            else
            {
                assertTrue(owner >= 1 && owner <= CHILDREN, "value " + v + " owned by unknown process " + owner);
                owned[(int)owner]++;
            }
        }
        for (long v = counter; v < counter + 16; v++)
        {
            assertEquals(0, word(memory, OWNER + 8 * v), "an increment past the counter was recorded: duplicated update");
        }
        final long victimDone = word(memory, DONE + 8L * (VICTIM - 1));
        final long victimIntent = word(memory, INTENT + 8L * (VICTIM - 1));
        assertTrue(holes <= 1, holes + " increments have no owner: only the killed child can leave one");
        if (holes == 1)
        {
            assertEquals(victimIntent, holeAt, "the unowned increment must be the one the victim was making");
        }
        for (int self = 1; self <= CHILDREN; self++)
        {
            final long done = word(memory, DONE + 8L * (self - 1));
            if (self == VICTIM)
            {
                assertTrue(owned[self] == done || owned[self] == done + 1,
                    "victim recorded " + done + " successes but owns " + owned[self] + " values");
            }
            else
            {
                assertEquals(SURVIVOR_QUOTA, done, "survivor " + self + " must finish its quota");
                assertEquals(SURVIVOR_QUOTA, owned[self], "survivor " + self + " owns every value it counted");
            }
        }
        assertEquals(counter, owned[1] + owned[2] + owned[3] + holes, "every increment is accounted for exactly once");
        assertTrue(counter > counterAtKill, "survivors continued after the kill");
        System.out.println("sigkill test: counter=" + counter + " atKill=" + counterAtKill + " victimDone=" +
            victimDone + " victimOwned=" + owned[VICTIM] + " holes=" + holes);
    }

    private Process startChild(final int self, final long quota) throws Exception
    {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final ProcessBuilder builder = new ProcessBuilder(java,
            "-Xmx64m", "-XX:TieredStopAtLevel=1", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"),
            ShmCasHammer.class.getName(), directory.toString(), Integer.toString(self), Long.toString(quota));
        builder.redirectErrorStream(true);
        builder.redirectOutput(logOf(self));
        return builder.start();
    }

    private File logOf(final int self)
    {
        return directory.resolve("child-" + self + ".log").toFile();
    }

    private void awaitWord(
        final RegionMemory memory, final long offset, final long atLeast, final long startNs, final String what)
        throws InterruptedException
    {
        while (word(memory, offset) < atLeast)
        {
            if (System.nanoTime() - startNs > DEADLINE_NS)
            {
                fail("timed out waiting for: " + what + " (word at " + offset + " is " + word(memory, offset) + ")");
            }
            for (final Process p : children)
            {
                if (!p.isAlive() && p.exitValue() != 0)
                {
                    fail("a child died early with exit code " + p.exitValue() + " while waiting for: " + what);
                }
            }
            Thread.sleep(1); // polling a shared word with a deadline; not a timing assumption
        }
    }

    private static long word(final RegionMemory memory, final long offset)
    {
        return memory.buffer().getLongVolatile(RegionHeader.HEADER_BYTES + (int)offset);
    }
}
