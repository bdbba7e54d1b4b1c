package io.mmx.membership.neighbour;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.fabric.RegionLinkFactory;
import io.mmx.rdma.region.ClusterKey;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Neighbour monitoring over a real fabric backend: every process of a 6-cycle runs a
 * {@link NeighbourMonitor} over its own {@link FabricHeartbeats}; ticks are driven explicitly and the
 * fabric's clock advances with them, so every run is the same (no randomness, no seed).
 * One subclass per backend.
 */
abstract class FabricHeartbeatsTest
{
    static final int N = 6;
    static final Graph PLAN = Graph.fromEdges(N, new int[]{0, 1, 2, 3, 4, 5}, new int[]{1, 2, 3, 4, 5, 0});
    static final PlanDigest DIGEST = PlanDigest.ofGraph(PLAN);
    static final ClusterKey KEY = ClusterKey.ofPassphrase("heartbeat-test-cluster-key-0123456789");
    static final long DATA_BYTES = 4096;
    private static final long HEARTBEAT_OFFSET = 64;
    private static final long TICK_NS = 10_000_000;
    private static final long TIMEOUT_NS = 5 * TICK_NS;
    private static final int INTERVAL_TICKS = 1;
    private static final int STALE_TICKS = 20;
    private static final int CRASHED = 3;

    private final CachedNanoClock clock = new CachedNanoClock();
    private final List<MemoryFabric> opened = new ArrayList<>();
    private final List<String> events = new ArrayList<>();
    private final FabricHeartbeats[] heartbeats = new FabricHeartbeats[N];
    private final NeighbourMonitor[] monitors = new NeighbourMonitor[N];
    private final NeighbourMonitor.Listener[] listeners = new NeighbourMonitor.Listener[N];
    private final boolean[] live = new boolean[N];
    private long nowTick;

    /** Creates {@code owner}'s region with the plan's digest and key. */
    abstract void createRegion(int owner);

    /** The backend's link factory for the plan's digest and key. */
    abstract RegionLinkFactory linkFactory();

    /** Removes what the backend created. */
    void tearDownBackend()
    {
    }

    @BeforeEach
    void setUp()
    {
        for (int q = 0; q < N; q++)
        {
            createRegion(q);
            final int observer = q;
            listeners[q] = (id, suspected, tick) -> events.add(observer + (suspected ? " suspects " : " clears ") + id);
            start(q);
        }
    }

    @AfterEach
    void tearDown()
    {
        opened.forEach(MemoryFabric::close);
        tearDownBackend();
    }

    @Test
    void everyoneBumpingMeansNobodySuspects()
    {
        runTicks(5 * STALE_TICKS);

        assertEquals(List.of(), events);
        for (int q = 0; q < N; q++)
        {
            final FabricHeartbeats hb = heartbeats[q];
            assertEquals(5 * STALE_TICKS, hb.bumps(), "process " + q + " bumps its own word through the fabric");
            assertEquals(0, hb.failedBumps() + hb.skippedBumps() + hb.failedReads());
            assertEquals(2 * 5 * STALE_TICKS, hb.completedReads(), "one read per neighbour per interval");
            assertEquals(0, hb.fabric().counters().errors(), hb.fabric().counters().toString());
            for (final int neighbour : PLAN.neighbours(q))
            {
                assertTrue(hb.readHeartbeat(neighbour) >= 5 * STALE_TICKS - 2, "reads see the word move");
            }
        }
    }

    @Test
    void exactlyThePlanNeighboursOfAStoppedOwnerSuspectItAndClearItWhenItResumes()
    {
        runTicks(2 * STALE_TICKS);
        final long crashTick = nowTick;
        live[CRASHED] = false;   // its region stays; only its bumps stop

        // A non-neighbour watching the same word: the fabric refuses every read, so it never sees a value.
        final FabricHeartbeats outsider = new FabricHeartbeats(open(0), new int[]{CRASHED}, HEARTBEAT_OFFSET, TIMEOUT_NS);
        final long[] suspectedAt = {-1, -1};
        while (nowTick < crashTick + STALE_TICKS + 2 * INTERVAL_TICKS)
        {
            assertEquals(HeartbeatReader.NOT_READABLE, outsider.readHeartbeat(CRASHED));
            outsider.poll();
            runTicks(1);
            for (int i = 0; i < 2; i++)
            {
                if (suspectedAt[i] < 0 && monitors[PLAN.neighbour(CRASHED, i)].isSuspected(CRASHED))
                {
                    suspectedAt[i] = nowTick - 1;
                }
            }
        }

        assertEquals(List.of("2 suspects 3", "4 suspects 3"), sorted(events));
        for (int i = 0; i < 2; i++)
        {
            // The last bump was at crashTick - 1; reads are pipelined one interval deep.
            final long lag = suspectedAt[i] - (crashTick - 1);
            assertTrue(lag >= STALE_TICKS && lag <= STALE_TICKS + 2 * INTERVAL_TICKS,
                "neighbour " + PLAN.neighbour(CRASHED, i) + " suspected " + lag + " ticks after the last bump");
        }
        final long refused = outsider.fabric().counters().get(OpStatus.REFUSED_NOT_NEIGHBOUR);
        assertEquals(STALE_TICKS + 2 * INTERVAL_TICKS, refused, "every read of a non-neighbour is refused and counted");
        assertEquals(refused, outsider.failedReads());
        assertEquals(0, outsider.completedReads());
        for (int q = 0; q < N; q++)
        {
            if (q != CRASHED)
            {
                assertEquals(0, heartbeats[q].fabric().counters().errors(), "plan neighbours read without refusal");
            }
        }

        events.clear();
        start(CRASHED);   // restarted: new fabric and monitor over the same region
        runTicks(3 * INTERVAL_TICKS);

        assertEquals(List.of("2 clears 3", "4 clears 3"), sorted(events));
        assertFalse(monitors[2].isSuspected(CRASHED));
        assertFalse(monitors[4].isSuspected(CRASHED));
        runTicks(2 * STALE_TICKS);
        assertEquals(2, events.size(), "nobody else is suspected afterwards: " + events);
    }

    @Test
    void overAnInlineLinkAReadSeesTheWordAsItIsNowAndLeavesNothingToPoll()
    {
        // Both backends here complete inline (shm, in-process): no pipelining, no completion queue.
        final FabricHeartbeats watcher = heartbeats[2];
        final long before = watcher.readHeartbeat(CRASHED);
        assertEquals(0, before, "the first read already returns the word, not NOT_READABLE");
        heartbeats[CRASHED].writeHeartbeat(0);
        assertEquals(before + 1, watcher.readHeartbeat(CRASHED), "the read sees the bump made just before it");
        heartbeats[CRASHED].writeHeartbeat(0);
        assertEquals(before + 2, watcher.readHeartbeat(CRASHED));
        assertEquals(before + 2, watcher.readHeartbeat(CRASHED), "a stopped word reads the same at once");

        assertEquals(2, heartbeats[CRASHED].bumps());
        assertEquals(4, watcher.completedReads());
        assertEquals(0, watcher.fabric().outstanding() + heartbeats[CRASHED].fabric().outstanding(),
            "no fabric slot is taken");
        assertEquals(0, watcher.poll(), "nothing is left to deliver");
    }

    /**
     * Failover's bound: a leader bumps every tick and a neighbour reads its word every tick into a
     * {@link LeaderWatch}. Over an inline link the watch declares the stopped leader exactly
     * {@code staleTicks} after its last bump; reads pipelined one tick deep declared it a tick later.
     */
    @Test
    void aWatcherSeesAStoppedLeadersWordWithinTheBound()
    {
        final int staleTicks = 5;
        final LeaderWatch watch = new LeaderWatch(staleTicks, staleTicks);
        final FabricHeartbeats leader = heartbeats[CRASHED];
        final FabricHeartbeats watcher = heartbeats[2];
        watch.watch(CRASHED, nowTick);
        long lastBump = -1;
        long declaredAt = -1;
        for (long tick = 0; tick < 40 && declaredAt < 0; tick++)
        {
            if (tick < 20)
            {
                leader.writeHeartbeat(tick);
                lastBump = tick;
            }
            if (watch.onRead(tick, watcher.readHeartbeat(CRASHED)))
            {
                declaredAt = tick;
            }
            leader.poll();
            watcher.poll();
        }
        assertEquals(lastBump + staleTicks, declaredAt, "declared " + (declaredAt - lastBump) +
            " ticks after the last bump");
    }

    @Test
    void rejectsAMisalignedWordAndAListThatHoldsItself()
    {
        final MemoryFabric fabric = heartbeats[0].fabric();
        final IllegalArgumentException misaligned = assertThrows(
            IllegalArgumentException.class, () -> new FabricHeartbeats(fabric, new int[]{1}, 12, TIMEOUT_NS));
        assertTrue(misaligned.getMessage().contains("heartbeatOffset 12"), misaligned.getMessage());
        assertThrows(
            IllegalArgumentException.class, () -> new FabricHeartbeats(fabric, new int[]{1, 0}, 0, TIMEOUT_NS));
        assertThrows(
            IllegalArgumentException.class, () -> new FabricHeartbeats(fabric, new int[]{1, 1}, 0, TIMEOUT_NS));
    }

    private void start(final int q)
    {
        heartbeats[q] = new FabricHeartbeats(open(q), PLAN.neighbours(q), HEARTBEAT_OFFSET, TIMEOUT_NS);
        monitors[q] = new NeighbourMonitor(PLAN.neighbours(q), INTERVAL_TICKS, STALE_TICKS, nowTick);
        live[q] = true;
    }

    private MemoryFabric open(final int self)
    {
        final MemoryFabric fabric = new PlanMemoryFabric(ConnectionManager.open(PLAN, self, linkFactory()), clock);
        opened.add(fabric);
        return fabric;
    }

    /** One tick: every live process beats and reads, then every live fabric delivers its completions. */
    private void runTicks(final int ticks)
    {
        for (int t = 0; t < ticks; t++)
        {
            for (int q = 0; q < N; q++)
            {
                if (live[q])
                {
                    monitors[q].tick(nowTick, heartbeats[q], heartbeats[q], listeners[q]);
                }
            }
            clock.advance(TICK_NS);
            for (int q = 0; q < N; q++)
            {
                if (live[q])
                {
                    heartbeats[q].poll();
                }
            }
            nowTick++;
        }
    }

    private static List<String> sorted(final List<String> list)
    {
        final List<String> copy = new ArrayList<>(list);
        copy.sort(null);
        return copy;
    }
}
