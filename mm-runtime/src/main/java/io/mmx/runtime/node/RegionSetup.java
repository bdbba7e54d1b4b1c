package io.mmx.runtime.node;

import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.memd.MemdRegionLink;
import io.mmx.rdma.region.ProcessKey;
import io.mmx.rdma.region.RegionHeader;
import io.mmx.runtime.core.RegionLayout;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Start-up only, blocking: makes sure a hosted process's region exists (creating it on first
 * start, finding it again after a crash) and carries the protocol header. A new region is
 * formatted through the fabric, like every other write to it.
 */
final class RegionSetup
{
    private static final long STARTUP_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);

    private RegionSetup()
    {
    }

    /** Asks the memory daemon to create (or confirm) the region of the process {@code key} authenticates. */
    static void createMemd(final InetSocketAddress daemon, final ProcessKey key, final RegionLayout layout,
        final PlanDigest plan, final int era)
    {
        final int owner = key.process();
        final OpStatus status = MemdRegionLink.createRegion(daemon, key, 8L * layout.regionWords(), plan, era,
            STARTUP_TIMEOUT_NS);
        if (status != OpStatus.OK)
        {
            throw new IllegalStateException("memory daemon " + daemon + " did not create the region of process " +
                owner + ": " + status + (status == OpStatus.NOT_CONNECTED || status == OpStatus.TIMEOUT ?
                "; start 'mmx memd' on that host first" : "; check the daemon's plan and cluster key"));
        }
    }

    /** True if the region of {@code owner} carries a protocol header (it was formatted before). */
    static boolean exists(final MemoryFabric fabric, final int owner)
    {
        return await(fabric, fabric.read(owner, 8L * RegionHeader.MAGIC_WORD, STARTUP_TIMEOUT_NS),
            "read the header of region " + owner) != 0;
    }

    /**
     * Writes the protocol header into a region whose magic word is still zero. Word by word, and
     * never the head or heartbeat words: a neighbour that already suspects this process may be
     * executing its acceptor (CAS on the head) on the fresh, zero-filled region, and a bulk write
     * of the header would move the head back to zero under it. The magic goes last, by CAS.
     * {@code lost}: the process ran before and its region was lost with its host (incarnation 1).
     *
     * @return true if the region was missing and is now formatted (the caller says so, once per node).
     */
    static boolean formatIfNew(final MemoryFabric fabric, final int owner, final long planHash, final boolean lost)
    {
        final long magic = await(fabric, fabric.read(owner, 8L * RegionHeader.MAGIC_WORD, STARTUP_TIMEOUT_NS),
            "read the header of region " + owner);
        if (magic != 0)
        {
            return false;
        }
        final long[] header = new long[RegionLayout.HEADER_WORDS];
        RegionLayout.initHeader(header, owner, planHash, lost ? 1 : 0);
        // The header's words in flight together (one round trip on memd, not one each: a live plan
        // change formats every hosted process's region while the cluster waits), then the magic word,
        // only once all of them landed.
        final long[] writes = new long[header.length];
        int count = 0;
        for (int w = 0; w < header.length; w++)
        {
            if (w != RegionHeader.MAGIC_WORD && w != RegionLayout.HEAD_WORD && w != RegionLayout.HEARTBEAT_WORD)
            {
                writes[count++] = fabric.write(owner, 8L * w, header[w], STARTUP_TIMEOUT_NS);
            }
        }
        awaitAll(fabric, java.util.Arrays.copyOf(writes, count), "format region " + owner);
        await(fabric, fabric.compareAndSwap(owner, 8L * RegionHeader.MAGIC_WORD, 0, RegionHeader.PROTOCOL_MAGIC,
            STARTUP_TIMEOUT_NS), "format region " + owner);
        return true;
    }

    /** Waits for every one of {@code correlations}; each must complete OK. */
    private static void awaitAll(final MemoryFabric fabric, final long[] correlations, final String what)
    {
        final OpStatus[] status = new OpStatus[correlations.length];
        int done = 0;
        for (int i = 0; i < correlations.length; i++)
        {
            if (correlations[i] < 0)
            {
                // Refused before it was sent: the others still complete, so wait for them first.
                status[i] = MemoryFabric.rejection(correlations[i]);
                done++;
            }
        }
        final long deadline = System.nanoTime() + STARTUP_TIMEOUT_NS + TimeUnit.SECONDS.toNanos(1);
        final int[] finished = {done};
        while (finished[0] < correlations.length && System.nanoTime() < deadline)
        {
            fabric.poll((id, type, owner, s, value) ->
            {
                for (int i = 0; i < correlations.length; i++)
                {
                    if (correlations[i] == id && status[i] == null)
                    {
                        status[i] = s;
                        finished[0]++;
                    }
                }
            }, 16);
            Thread.onSpinWait();
        }
        for (final OpStatus s : status)
        {
            if (s != OpStatus.OK)
            {
                throw new IllegalStateException("could not " + what + ": " + (s == null ? "no completion" : s) +
                    "; check the region directory or memory daemon and the cluster key");
            }
        }
    }

    /**
     * The one line a node prints for the regions it formatted. Not silent: a region formatted here
     * is empty, and if its process ran before and its host was lost, only --regions-lost keeps its
     * acceptor out of quorums (the amnesia rule).
     */
    static String formattedLine(final java.util.List<Integer> owners, final boolean lost)
    {
        return "regions of processes " + owners + " were missing; formatted empty as incarnation " +
            (lost ? "1 (regions lost: their acceptors stay out of quorums, the processes do not lead)" :
            "0 (new with the cluster; if these processes ran before and their host was lost, stop the node and " +
            "restart it with --regions-lost)");
    }

    private static long await(final MemoryFabric fabric, final long correlation, final String what)
    {
        if (correlation < 0)
        {
            throw new IllegalStateException("could not " + what + ": " + MemoryFabric.rejection(correlation));
        }
        final long[] result = new long[1];
        final OpStatus[] status = new OpStatus[1];
        final long deadline = System.nanoTime() + STARTUP_TIMEOUT_NS + TimeUnit.SECONDS.toNanos(1);
        while (status[0] == null && System.nanoTime() < deadline)
        {
            fabric.poll((id, type, owner, s, value) ->
            {
                if (id == correlation)
                {
                    status[0] = s;
                    result[0] = value;
                }
            }, 16);
            Thread.onSpinWait();
        }
        if (status[0] != OpStatus.OK)
        {
            throw new IllegalStateException("could not " + what + ": " + (status[0] == null ? "no completion" :
                status[0]) + "; check the region directory or memory daemon and the cluster key");
        }
        return result[0];
    }
}
