package io.mmx.rdma.fabric;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.memd.MemdLinkFactory;
import io.mmx.rdma.memd.MemdRegionLink;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.RegionHeader;
import io.mmx.rdma.region.RegionMemory;
import io.mmx.rdma.shm.ShmRegionStore;
import org.agrona.concurrent.SystemNanoClock;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A child JVM for the SIGKILL tests: process {@code self} CAS-increments the counter in
 * process 0's region and records each success, through the shm or memd fabric.
 *
 * <p>Layout of region 0 (word offsets): COUNTER; GO (set by the parent); READY (fetch-add by
 * children); KILLED (set by the parent once the victim is dead: a survivor that reached its pause
 * point waits for it, so the kill always lands while survivors still work); INTENT[c] = the value child c is trying to CAS from; DONE[c] = successes of c
 * fully recorded; OWNER[v] = c for the child whose CAS moved the counter from v to v + 1.
 */
public final class CasHammerChild
{
    /** Number of child processes (ids 1..3); process 0 owns the counter region. */
    public static final int CHILDREN = 3;
    /** Word offset in region 0, see the class comment. */
    public static final long COUNTER = 0;
    /** Word offset in region 0, see the class comment. */
    public static final long GO = 8;
    /** Word offset in region 0, see the class comment. */
    public static final long READY = 16;
    /** Word offset in region 0, see the class comment. */
    public static final long KILLED = 24;
    /** Word offset in region 0, see the class comment. */
    public static final long INTENT = 64;
    /** Word offset in region 0, see the class comment. */
    public static final long DONE = INTENT + 8 * 8;
    /** Word offset in region 0, see the class comment. */
    public static final long OWNER = 256;

    /** The star plan: 0 linked to 1, 2 and 3. */
    public static final Graph PLAN = Graph.fromEdges(CHILDREN + 1, new int[]{0, 0, 0}, new int[]{1, 2, 3});
    /** Its digest. */
    public static final PlanDigest DIGEST = PlanDigest.ofGraph(PLAN);
    /** The test cluster key. */
    public static final ClusterKey KEY = ClusterKey.ofPassphrase("sigkill-test-cluster-key-0123456789");

    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(5);

    private CasHammerChild()
    {
    }

    /** Data bytes region 0 needs for {@code maxIncrements} increments. */
    public static long dataBytes(final long maxIncrements)
    {
        return OWNER + 8 * (maxIncrements + 1);
    }

    /**
     * Arguments: backend ("shm" or "memd"), location (region directory or daemon host:port),
     * process id (1..3), number of successful increments to make, and the number of successes
     * after which to wait until the parent sets KILLED (0: never wait). Exits 0 when done, 2 on
     * any fabric error (printed).
     */
    public static void main(final String[] args)
    {
        final int self = Integer.parseInt(args[2]);
        final long quota = Long.parseLong(args[3]);
        final long pauseAt = Long.parseLong(args[4]);
        final int child = self - 1;
        final RegionLinkFactory links;
        if ("shm".equals(args[0]))
        {
            final ShmRegionStore store = new ShmRegionStore(Path.of(args[1]));
            store.createOrOpen(self, 64, DIGEST, KEY).close();
            links = store.linkFactory(DIGEST, KEY);
        }
        else
        {
            final int colon = args[1].lastIndexOf(':');
            final InetSocketAddress daemon = new InetSocketAddress(args[1].substring(0, colon),
                Integer.parseInt(args[1].substring(colon + 1)));
            if (MemdRegionLink.createRegion(daemon, KEY, self, 64, DIGEST, TIMEOUT_NS) != OpStatus.OK)
            {
                System.err.println("process " + self + ": memd refused its region");
                System.exit(2);
            }
            links = new MemdLinkFactory((owner) -> daemon, KEY, DIGEST, 2_000);
        }
        try (MemoryFabric fabric = new PlanMemoryFabric(ConnectionManager.open(PLAN, self, links),
            SystemNanoClock.INSTANCE))
        {
            final Sync sync = new Sync(fabric);
            sync.call(fabric.fetchAndAdd(0, READY, 1, TIMEOUT_NS));
            while (sync.call(fabric.read(0, GO, TIMEOUT_NS)) == 0)
            {
                Thread.onSpinWait();
            }
            long guess = sync.call(fabric.read(0, COUNTER, TIMEOUT_NS));
            long done = 0;
            while (done < quota)
            {
                if (done == pauseAt && pauseAt > 0)
                {
                    while (sync.call(fabric.read(0, KILLED, TIMEOUT_NS)) == 0)
                    {
                        LockSupport.parkNanos(100_000); // leave the cores to the victim
                    }
                }
                sync.call(fabric.write(0, INTENT + 8L * child, guess, TIMEOUT_NS));
                final long seen = sync.call(fabric.compareAndSwap(0, COUNTER, guess, guess + 1, TIMEOUT_NS));
                if (seen == guess)
                {
                    // Recorded after the CAS: a SIGKILL here leaves exactly one unowned value, at INTENT[c].
                    sync.call(fabric.write(0, OWNER + 8 * guess, self, TIMEOUT_NS));
                    done++;
                    sync.call(fabric.write(0, DONE + 8L * child, done, TIMEOUT_NS));
                    guess++;
                }
                else
                {
                    guess = seen;
                }
            }
        }
        catch (final IllegalStateException ex)
        {
            System.err.println("process " + self + ": " + ex.getMessage());
            System.exit(2);
        }
        System.exit(0);
    }

    /** Reads word {@code offset} of region 0 held in this JVM. */
    public static long word(final RegionMemory memory, final long offset)
    {
        return memory.buffer().getLongVolatile(RegionHeader.HEADER_BYTES + (int)offset);
    }

    /**
     * Checks the history left in region 0 after the run: every increment has exactly one owner,
     * except at most one value at the victim's recorded intent (killed between its CAS and its
     * record); survivors finished and own exactly what they counted; the victim's counts agree.
     *
     * @return a one-line summary.
     */
    public static String checkHistory(
        final RegionMemory memory, final int victim, final long survivorQuota, final long counterAtKill)
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
                require(owner >= 1 && owner <= CHILDREN, "value " + v + " owned by unknown process " + owner);
                owned[(int)owner]++;
            }
        }
        for (long v = counter; v < counter + 16; v++)
        {
            require(word(memory, OWNER + 8 * v) == 0, "an increment past the counter was recorded: duplicated update");
        }
        final long victimDone = word(memory, DONE + 8L * (victim - 1));
        final long victimIntent = word(memory, INTENT + 8L * (victim - 1));
        require(holes <= 1, holes + " increments have no owner: only the killed child can leave one");
        require(holes == 0 || holeAt == victimIntent, "the unowned increment " + holeAt +
            " must be the one the victim was making (" + victimIntent + ")");
        long total = holes;
        for (int self = 1; self <= CHILDREN; self++)
        {
            final long done = word(memory, DONE + 8L * (self - 1));
            total += owned[self];
            if (self == victim)
            {
                require(owned[self] == done || owned[self] == done + 1,
                    "victim recorded " + done + " successes but owns " + owned[self] + " values");
            }
            else
            {
                require(done == survivorQuota, "survivor " + self + " must finish its quota, did " + done);
                require(owned[self] == survivorQuota, "survivor " + self + " owns " + owned[self] + " values");
            }
        }
        require(total == counter, "every increment is accounted for exactly once: " + total + " vs " + counter);
        require(counter > counterAtKill, "survivors continued after the kill");
        return "counter=" + counter + " atKill=" + counterAtKill + " victimDone=" + victimDone + " victimOwned=" +
            owned[victim] + " holes=" + holes;
    }

    private static void require(final boolean condition, final String message)
    {
        if (!condition)
        {
            throw new AssertionError(message);
        }
    }

    /** Runs one operation to completion; a non-OK status ends the child. */
    private static final class Sync
    {
        private final MemoryFabric fabric;
        private long wanted;
        private long value;
        private OpStatus status;

        Sync(final MemoryFabric fabric)
        {
            this.fabric = fabric;
        }

        long call(final long correlationId)
        {
            if (correlationId <= 0)
            {
                throw new IllegalStateException("submission rejected: " + MemoryFabric.rejection(correlationId));
            }
            wanted = correlationId;
            status = null;
            while (status == null)
            {
                fabric.poll((id, type, owner, s, v) ->
                {
                    if (id == wanted)
                    {
                        status = s;
                        value = v;
                    }
                }, 1);
            }
            if (status != OpStatus.OK)
            {
                throw new IllegalStateException("operation failed with " + status);
            }
            return value;
        }
    }
}
