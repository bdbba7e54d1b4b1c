package io.mmx.rdma.shm;

import io.mmx.planner.graph.Graph;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.PlanDigest;
import org.agrona.concurrent.SystemNanoClock;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM for {@link ShmSigkillTest}: process {@code self} CAS-increments the counter in
 * process 0's region and records each success, through the shm fabric.
 *
 * <p>Layout of region 0 (word offsets): COUNTER; GO (set by the parent); READY (fetch-add by
 * children); INTENT[c] = the value child c is trying to CAS from; DONE[c] = successes of c
 * fully recorded; OWNER[v] = c for the child whose CAS moved the counter from v to v + 1.
 */
public final class ShmCasHammer
{
    static final int CHILDREN = 3;
    static final long COUNTER = 0;
    static final long GO = 8;
    static final long READY = 16;
    static final long INTENT = 64;
    static final long DONE = INTENT + 8 * 8;
    static final long OWNER = 256;

    static final Graph PLAN = Graph.fromEdges(CHILDREN + 1, new int[]{0, 0, 0}, new int[]{1, 2, 3});
    static final PlanDigest DIGEST = PlanDigest.of(PLAN);
    static final ClusterKey KEY = ClusterKey.ofPassphrase("sigkill-test-cluster-key-0123456789");

    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(5);

    private ShmCasHammer()
    {
    }

    static long dataBytes(final long maxIncrements)
    {
        return OWNER + 8 * (maxIncrements + 1);
    }

    /**
     * Arguments: region directory, process id (1..3), number of successful increments to make.
     * Exits 0 when done, 2 on any fabric error (printed).
     */
    public static void main(final String[] args)
    {
        final Path directory = Path.of(args[0]);
        final int self = Integer.parseInt(args[1]);
        final long quota = Long.parseLong(args[2]);
        final int child = self - 1;
        final ShmRegionStore store = new ShmRegionStore(directory);
        store.createOrOpen(self, 64, DIGEST, KEY).close();
        try (MemoryFabric fabric = new PlanMemoryFabric(
            ConnectionManager.open(PLAN, self, store.linkFactory(DIGEST, KEY)), SystemNanoClock.INSTANCE))
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
