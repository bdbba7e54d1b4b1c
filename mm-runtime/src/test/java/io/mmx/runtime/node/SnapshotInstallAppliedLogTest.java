package io.mmx.runtime.node;

import io.mmx.planner.plan.Plan;
import io.mmx.runtime.core.CoreConfig;
import io.mmx.runtime.example.kv.AppliedLog;
import io.mmx.runtime.example.kv.KeyValueClient;
import io.mmx.runtime.example.kv.KeyValueCommand;
import io.mmx.runtime.example.kv.KeyValueStore;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Replicas that install a peer's snapshot while the cluster commits (two nodes in one JVM, n = 5,
 * Aeron UDP on loopback): their applied logs must account for every log index below their last
 * one, and their state must be the others' state, command for command.
 *
 * <p>Processes 3-4 are stopped while the log moves past every region's decided log, then restarted:
 * they need a snapshot. The peers' chunk path holds the transfer back twice. First it drops every
 * chunk while 20 puts commit: the restarted replicas learn them as decided, journal them and do not
 * apply them, and the snapshot they install later holds them, so neither the state machine's
 * {@code apply} nor its {@code onGap} ever names them (only the snapshot line can). Then it lets a
 * transfer's first chunk through and drops the rest while 20 more puts commit: those come after the
 * snapshot under way and reach the state only by the journal's replay after it is installed.
 */
class SnapshotInstallAppliedLogTest
{
    /** Puts committed, and learnt by every process, in each hold. */
    private static final int HELD_PUTS = 20;

    /** What the peers' chunk path lets through. */
    private enum Hold
    {
        EVERY_CHUNK, ALL_BUT_THE_FIRST_CHUNK, NONE
    }

    @TempDir
    Path dir;

    private final List<MmxNode> nodes = new ArrayList<>();
    private final AppliedLog[] logs = new AppliedLog[5];
    private final KeyValueStore[] stores = new KeyValueStore[5];

    @AfterEach
    void close()
    {
        nodes.forEach(MmxNode::close);
        nodes.clear();
        for (final AppliedLog log : logs)
        {
            if (log != null)
            {
                log.close();
            }
        }
    }

    @Test
    void commandsAPeersSnapshotBroughtAreNamedInTheAppliedLogAndTheStateIsThePeers() throws Exception
    {
        final AtomicReference<Hold> hold = new AtomicReference<>(Hold.EVERY_CHUNK);
        final AtomicLong dropped = new AtomicLong();
        final Set<Integer> firstChunkTo = ConcurrentHashMap.newKeySet();
        final SnapshotTransfer.Faults holdBack = (from, to, sequence) ->
        {
            final Hold h = hold.get();
            if (h == Hold.EVERY_CHUNK || h == Hold.ALL_BUT_THE_FIRST_CHUNK && sequence > 0)
            {
                dropped.incrementAndGet();
                return SnapshotTransfer.Faults.DROP;
            }
            if (h == Hold.ALL_BUT_THE_FIRST_CHUNK)
            {
                firstChunkTo.add(to);
            }
            return SnapshotTransfer.Faults.DELIVER;
        };
        final Plan plan = NodeTestSupport.plan(5, 2, 7);
        final CoreConfig core = new NodeContext().plan(plan).core();
        final List<Integer> ports = NodeTestSupport.freePorts(2);
        final String directory = "0-2@127.0.0.1:" + ports.get(0) + ";3-4@127.0.0.1:" + ports.get(1);
        final MmxNode a = launch(plan, directory, holdBack, 0, 1, 2);
        MmxNode b = launch(plan, directory, SnapshotTransfer.Faults.NONE, 3, 4);
        NodeTestSupport.awaitLeader(a, b);
        final KeyValueClient kv = new KeyValueClient(a);
        final long[] puts = {0};
        put(kv, puts);
        b.close();
        nodes.remove(b);
        // Move the log on past what any region's decided log holds, so 3-4 need a snapshot.
        while (a.status().get(0).commitIndex() < 2L * core.decidedCapacity() + 40)
        {
            final List<CompletableFuture<Long>> window = new ArrayList<>();
            for (int i = 0; i < 16; i++)
            {
                window.add(kv.put("k" + ++puts[0], puts[0]));
            }
            for (final CompletableFuture<Long> f : window)
            {
                f.get(30, TimeUnit.SECONDS);
            }
        }
        b = launch(plan, directory, SnapshotTransfer.Faults.NONE, 3, 4);
        final MmxNode restarted = b;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        // A restarted follower learns what it missed from the next decisions: a trickle of puts until a peer
        // has begun to send (and dropped) a snapshot.
        while (dropped.get() == 0)
        {
            assertTrue(System.nanoTime() < deadline, "no peer began a snapshot for 3-4 within 120 s");
            put(kv, puts);
        }
        final Set<Long> coveredPuts = heldPuts(kv, puts, core, restarted);
        long coveredLearnt = 0;
        for (final int p : new int[]{3, 4})
        {
            coveredLearnt += learntUnapplied(p, coveredPuts, restarted, core).size();
        }
        assertTrue(coveredLearnt > 0, "3-4 skipped every one of the " + coveredPuts.size() + " puts made while " +
            "they waited for a snapshot (gap lines), so this run does not test what comes of commands they learnt " +
            "while waiting");

        // A receiver asks again after 500 ticks without a chunk; the peer takes a snapshot and its first chunk
        // gets through. Puts from then on come after that snapshot: once the receiver has learnt some of them
        // (journaled, unapplied), the rest of the chunks go through, well within the 500 ticks after which
        // the receiver would give this transfer up.
        hold.set(Hold.ALL_BUT_THE_FIRST_CHUNK);
        while (firstChunkTo.isEmpty())
        {
            assertTrue(System.nanoTime() < deadline, "no peer sent a snapshot's first chunk to 3-4 within 120 s");
            put(kv, puts);
        }
        final Set<Integer> receivers = Set.copyOf(firstChunkTo);
        final long afterFirstChunk = AppliedLog.byIndex(appliedLog(0)).lastKey() + 1;
        final java.util.Map<Integer, Set<Long>> replayedPuts = new java.util.HashMap<>();
        while (replayedPuts.values().stream().allMatch(Set::isEmpty))
        {
            assertTrue(System.nanoTime() < deadline, "3-4 learnt none of the puts made while a snapshot was " +
                "under way within 120 s");
            put(kv, puts);
            final Set<Long> since = AppliedLog.byIndex(appliedLog(0)).tailMap(afterFirstChunk).keySet();
            for (final int p : receivers)
            {
                replayedPuts.put(p, learntUnapplied(p, since, restarted, core));
            }
        }
        final long replayedLearnt = replayedPuts.values().stream().mapToLong(Set::size).sum();
        hold.set(Hold.NONE);
        while (!(restarted.replica(3).transfer().transfersCompleted() >= 1 &&
            restarted.replica(4).transfer().transfersCompleted() >= 1))
        {
            assertTrue(System.nanoTime() < deadline, "3-4 installed no snapshot within 120 s");
            put(kv, puts);
        }
        put(kv, puts);
        NodeTestSupport.await(() ->
        {
            final List<ProcessStatus> all = nodes.stream().flatMap(n -> n.status().stream()).toList();
            final boolean oneIndex = all.size() == 5 && all.stream().allMatch(s -> s.stateDigest() != null &&
                s.appliedIndex() == all.get(0).appliedIndex());
            // Replicas at one index with two digests never agree later: fail now, not at the deadline.
            assertTrue(!oneIndex || all.stream().allMatch(s -> s.stateDigest().equals(all.get(0).stateDigest())),
                () -> "replicas at one index hold different states: " + all);
            return oneIndex;
        }, 120_000, "every replica at one index with one digest after the transfers");
        System.out.println(puts[0] + " puts; " + dropped.get() + " chunks held back; puts learnt unapplied by 3 " +
            "or 4 while they waited (counted per replica): " + coveredLearnt + " before the snapshot was taken, " +
            replayedLearnt + " after; snapshots installed by 3 and 4: " +
            restarted.replica(3).transfer().transfersCompleted() + ", " +
            restarted.replica(4).transfer().transfersCompleted());
        close();

        // The state: every put, each to its own key, is in every replica, and every replica applied as many
        // commands (a command lost shows in the values, one applied twice in the count).
        for (int p = 0; p < 5; p++)
        {
            for (long k = 1; k <= puts[0]; k++)
            {
                assertEquals(k, stores[p].valueOf("k" + k), "process " + p + ": put k" + k);
            }
            assertEquals(stores[0].applied(), stores[p].applied(), "commands applied at process " + p);
        }
        // The puts made after the snapshot was taken reached its receivers by the journal's replay.
        for (final java.util.Map.Entry<Integer, Set<Long>> e : replayedPuts.entrySet())
        {
            assertTrue(AppliedLog.byIndex(appliedLog(e.getKey())).keySet().containsAll(e.getValue()),
                "process " + e.getKey() + " lacks puts it journaled after the snapshot under way");
        }
        // The audit: every index below a replica's last one is a command it applied, or inside a line.
        final List<Path> files = new ArrayList<>();
        for (int p = 0; p < 5; p++)
        {
            files.add(appliedLog(p));
        }
        final List<String> unexplained = NodeTestSupport.unexplainedIndexes(files, 2L * core.decidedCapacity());
        assertTrue(unexplained.isEmpty(), unexplained.size() + " indexes unexplained: " +
            unexplained.subList(0, Math.min(10, unexplained.size())));
        for (final int p : new int[]{3, 4})
        {
            assertTrue(Files.readString(appliedLog(p)).contains("\nsnapshot "), "process " + p + "'s applied " +
                "log has no snapshot line");
        }
    }

    @Test
    void theAuditNamesAnIndexALogMissesWithoutALineAndOnlyThat() throws Exception
    {
        final UnsafeBuffer command = new UnsafeBuffer(new byte[64]);
        final int length = KeyValueCommand.encode(command, KeyValueCommand.PUT, "k", 1, 0);
        final long[][] applied = {{0, 8, 16, 24, 32}, {0, 16, 24, 32}, {0, 32}, {0, 16, 32}};
        final List<Path> files = new ArrayList<>();
        for (int p = 0; p < applied.length; p++)
        {
            files.add(dir.resolve("audit-" + p + ".log"));
            try (AppliedLog log = new AppliedLog(files.get(p)))
            {
                final KeyValueStore store = new KeyValueStore(log);
                for (final long index : applied[p])
                {
                    if (p == 1 && index == 16)
                    {
                        store.onGap(8, 15);            // missed, and says so
                    }
                    if (p == 2 && index == 32)
                    {
                        store.onSnapshotLoaded(31);    // a peer's snapshot brought 1-31
                    }
                    store.apply(index, 0, command, 0, length);
                }
            }
        }
        // Process 3 lost index 24 without a line (and 8, which it also does not name).
        assertEquals(List.of("audit-3.log misses log index 8 below its last (32) and no gap or snapshot line " +
            "names it", "audit-3.log misses log index 24 below its last (32) and no gap or snapshot line names it"),
            NodeTestSupport.unexplainedIndexes(files, 4));
    }

    /** One put, waited for, then a pause: a trickle that a follower keeps up with. */
    private static void put(final KeyValueClient kv, final long[] puts) throws Exception
    {
        kv.put("k" + ++puts[0], puts[0]).get(30, TimeUnit.SECONDS);
        LockSupport.parkNanos(2_000_000);
    }

    /**
     * Commits HELD_PUTS puts, one at a time, waits until every process knows them decided, and returns
     * their log indexes (process 0 wrote each line before its put completed).
     */
    private Set<Long> heldPuts(final KeyValueClient kv, final long[] puts, final CoreConfig core,
        final MmxNode restarted) throws Exception
    {
        final long from = AppliedLog.byIndex(appliedLog(0)).lastKey() + 1;
        for (int i = 0; i < HELD_PUTS; i++)
        {
            kv.put("k" + ++puts[0], puts[0]).get(30, TimeUnit.SECONDS);
        }
        final Set<Long> held = new java.util.TreeSet<>(AppliedLog.byIndex(appliedLog(0)).tailMap(from).keySet());
        final long throughSlot = java.util.Collections.max(held) / core.maxBatch();
        NodeTestSupport.await(() -> nodes.stream().flatMap(n -> n.status().stream())
            .allMatch(s -> s.commitIndex() >= throughSlot), 60_000, "every process to learn the held puts");
        assertEquals(0, restarted.replica(3).transfer().transfersCompleted() +
            restarted.replica(4).transfer().transfersCompleted(), "a snapshot got through while held back");
        return held;
    }

    /**
     * The {@code indexes} that restarted process {@code p} knows decided but neither applied nor named in
     * a gap or snapshot line: journaled while it waits for a snapshot.
     */
    private Set<Long> learntUnapplied(final int p, final Set<Long> indexes, final MmxNode restarted,
        final CoreConfig core) throws Exception
    {
        final long knownThroughSlot = restarted.status().stream().filter(s -> s.id() == p).findFirst()
            .orElseThrow().commitIndex();
        final SortedMap<Long, String> applied = AppliedLog.byIndex(appliedLog(p));
        final List<long[]> accounted = AppliedLog.accounted(appliedLog(p));
        final Set<Long> learnt = new java.util.TreeSet<>();
        for (final long i : indexes)
        {
            if (i / core.maxBatch() <= knownThroughSlot && !applied.containsKey(i) &&
                accounted.stream().noneMatch(r -> r[0] <= i && i <= r[1]))
            {
                learnt.add(i);
            }
        }
        return learnt;
    }

    private Path appliedLog(final int p)
    {
        return dir.resolve("applied-" + p + ".log");
    }

    private MmxNode launch(final Plan plan, final String directory, final SnapshotTransfer.Faults faults,
        final int... ids)
    {
        final MmxNode node = MmxNode.launch(new NodeContext().plan(plan).hosted(ids).directory(directory)
            .clusterKey(NodeTestSupport.KEY).shmDirectory(dir.resolve("regions"))
            .aeronDirectory(dir.resolve("aeron-" + ids[0]).toString()).stateDirectory(dir.resolve("state"))
            .transferFaults(faults), id ->
            {
                if (logs[id] != null)
                {
                    logs[id].close(); // the stopped node's replica of this process
                }
                logs[id] = new AppliedLog(appliedLog(id));
                stores[id] = new KeyValueStore(logs[id]);
                return stores[id];
            }, NodeListener.NO_OP);
        nodes.add(node);
        return node;
    }
}
