package io.mmx.runtime.node;

import io.mmx.planner.plan.Plan;
import io.mmx.runtime.example.kv.KeyValueClient;
import io.mmx.runtime.example.kv.KeyValueCommand;
import io.mmx.runtime.example.kv.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Whole-cluster restart: every node stopped and every region deleted, then the nodes start again
 * with a cold start and the cluster comes back from the replicas' state on disk (n = 5 in two nodes
 * of one JVM, processes 0-2 and 3-4, Aeron UDP on loopback, shm regions).
 */
class ColdStartTest
{
    private static final long WAIT_MS = 60_000;

    @TempDir
    Path dir;

    private final List<MmxNode> nodes = new ArrayList<>();
    private final KeyValueStore[] stores = new KeyValueStore[5];
    private Plan plan;
    private String directory;

    @AfterEach
    void close()
    {
        nodes.forEach(MmxNode::close);
    }

    @Test
    void everyRegionLostTheClusterComesBackWithEveryAcknowledgedCommand() throws Exception
    {
        setUp();
        MmxNode a = launch(false, false, 0, 1, 2);
        MmxNode b = launch(false, false, 3, 4);
        awaitLeader();
        final List<Integer> acknowledged = new ArrayList<>();
        putAll(a, 0, 60, acknowledged);
        stop(b); // 3-4 stop behind: at the cold start they hold less than 0-2
        putAll(a, 60, 120, acknowledged);
        stop(a);
        deleteRegions();

        a = launch(true, false, 0, 1, 2);
        b = launch(true, false, 3, 4);
        awaitAgreement(5);
        final KeyValueClient client = new KeyValueClient(a);
        for (final int i : acknowledged)
        {
            assertEquals(i, client.get("k" + i).get(20, TimeUnit.SECONDS), "acknowledged put k" + i);
        }
        assertEquals(KeyValueCommand.ABSENT, new KeyValueClient(b).put("after", 1).get(20, TimeUnit.SECONDS));
        awaitAgreement(5);
        for (final KeyValueStore s : stores)
        {
            assertEquals(1L, s.valueOf("after"));
        }
        assertEquals(120, acknowledged.size());

        // An ordinary restart within the era (regions kept): the era file maps the core's slots again.
        stop(a);
        stop(b);
        a = launch(false, false, 0, 1, 2);
        b = launch(false, false, 3, 4);
        assertEquals(1L, new KeyValueClient(a).put("after", 2).get(20, TimeUnit.SECONDS));
        assertEquals(119L, new KeyValueClient(b).get("k119").get(20, TimeUnit.SECONDS));
        awaitAgreement(5);
        assertTrue(nodes.get(0).status().get(0).appliedIndex() > 8 * LogEra.SLOTS, "the log index is era 1's");
    }

    @Test
    void aProcessThatMissedTheColdStartDropsItsOlderTailAndConverges() throws Exception
    {
        setUp();
        MmxNode a = launch(false, false, 0, 1, 2);
        MmxNode b = launch(false, false, 3, 4);
        awaitLeader();
        putAll(a, 0, 60, new ArrayList<>());
        stop(a);
        stop(b);
        final Path backup = dir.resolve("backup");
        // The state of 0-2: their process directories and their node's journal.
        final String journal = HostJournal.directoryName(new int[]{0, 1, 2});
        for (final String d : List.of("process-0", "process-1", "process-2", journal))
        {
            copy(dir.resolve("state").resolve(d), backup.resolve(d));
        }
        // An ordinary restart (regions kept) and 60 more puts, which only 3-4 will still hold.
        a = launch(false, false, 0, 1, 2);
        b = launch(false, false, 3, 4);
        awaitLeader();
        putAll(b, 60, 120, new ArrayList<>());
        stop(a);
        stop(b);
        for (final String d : List.of("process-0", "process-1", "process-2", journal))
        {
            delete(dir.resolve("state").resolve(d));
            copy(backup.resolve(d), dir.resolve("state").resolve(d));
        }
        deleteRegions();

        // 0-2 alone, a majority: the era starts from their state; 3-4's later puts are not in it.
        a = launch(true, true, 0, 1, 2);
        awaitAgreement(3);
        final KeyValueClient client = new KeyValueClient(a);
        assertEquals(59L, client.get("k59").get(20, TimeUnit.SECONDS));
        assertEquals(KeyValueCommand.ABSENT, client.get("k60").get(20, TimeUnit.SECONDS),
            "a put journaled on no process of the cold start is lost");
        assertEquals(KeyValueCommand.ABSENT, client.put("era", 1).get(20, TimeUnit.SECONDS));

        // 3-4 come back later with the older era's journal, slots beyond the era's base included.
        b = launch(true, false, 3, 4);
        awaitAgreement(5);
        for (int p = 3; p < 5; p++)
        {
            assertNull(stores[p].valueOf("k60"), "process " + p + " dropped the older era's tail");
            assertEquals(1L, stores[p].valueOf("era"));
        }
        assertEquals(1L, new KeyValueClient(b).put("era", 2).get(20, TimeUnit.SECONDS));
        awaitAgreement(5);
    }

    @Test
    void aMissingRegionOfAProcessThatRanBeforeIsRefusedWithoutAColdStart() throws Exception
    {
        setUp();
        final MmxNode a = launch(false, false, 0, 1, 2);
        final MmxNode b = launch(false, false, 3, 4);
        awaitLeader();
        putAll(a, 0, 5, new ArrayList<>());
        stop(a);
        stop(b);
        // A cold start refuses regions that still exist: an old era's acceptors must not answer in the new one.
        final IllegalStateException exists = assertThrows(IllegalStateException.class,
            () -> launch(true, false, 0, 1, 2));
        assertTrue(exists.getMessage().contains("still exists"), exists.getMessage());
        deleteRegions();
        final IllegalStateException missing = assertThrows(IllegalStateException.class,
            () -> launch(false, false, 0, 1, 2));
        // A refused start formats nothing: the regions are still missing, and a cold start may follow.
        assertTrue(missing.getMessage().contains("--cold-start") && missing.getMessage().contains("--regions-lost"),
            missing.getMessage());
    }

    private void setUp() throws IOException
    {
        plan = NodeTestSupport.plan(5, 2, 7);
        final List<Integer> ports = NodeTestSupport.freePorts(2);
        directory = "0-2@127.0.0.1:" + ports.get(0) + ";3-4@127.0.0.1:" + ports.get(1);
    }

    private MmxNode launch(final boolean coldStart, final boolean majority, final int... ids)
    {
        final MmxNode node = MmxNode.launch(new NodeContext().plan(plan).hosted(ids).directory(directory)
            .clusterKey(NodeTestSupport.KEY).shmDirectory(dir.resolve("regions"))
            .aeronDirectory(dir.resolve("aeron-" + ids[0]).toString()).stateDirectory(dir.resolve("state"))
            .coldStart(coldStart, majority), id -> stores[id] = new KeyValueStore(), NodeListener.NO_OP);
        nodes.add(node);
        return node;
    }

    private void stop(final MmxNode node)
    {
        node.close();
        nodes.remove(node);
    }

    private void awaitLeader()
    {
        NodeTestSupport.awaitLeader(nodes.toArray(MmxNode[]::new));
    }

    private static void putAll(final MmxNode node, final int from, final int to, final List<Integer> acknowledged)
        throws Exception
    {
        final KeyValueClient client = new KeyValueClient(node);
        for (int i = from; i < to; i++)
        {
            assertEquals(KeyValueCommand.ABSENT, client.put("k" + i, i).get(20, TimeUnit.SECONDS));
            acknowledged.add(i);
        }
    }

    /** Every running replica (at least {@code count}) reports one applied index and one digest. */
    private void awaitAgreement(final int count)
    {
        NodeTestSupport.await(() ->
        {
            final List<ProcessStatus> all = nodes.stream().flatMap(n -> n.status().stream()).toList();
            // The statuses agree, and each is its store's own digest now (not one published before a command).
            return all.size() == count && all.stream().allMatch(s -> s.stateDigest() != null &&
                s.stateDigest().equals(all.get(0).stateDigest()) && s.appliedIndex() == all.get(0).appliedIndex() &&
                s.stateDigest().equals(stores[s.id()].digest()));
        }, WAIT_MS, "every replica at one applied index with one digest: " + statuses());
    }

    private String statuses()
    {
        final StringBuilder b = new StringBuilder();
        nodes.forEach(n -> n.status().forEach(s -> b.append(s.id()).append('@').append(s.appliedIndex()).append('=')
            .append(s.stateDigest()).append(' ')));
        return b.toString();
    }

    private void deleteRegions() throws IOException
    {
        delete(dir.resolve("regions"));
    }

    private static void delete(final Path path) throws IOException
    {
        if (!Files.exists(path))
        {
            return;
        }
        try (Stream<Path> all = Files.walk(path))
        {
            for (final Path p : all.sorted(Comparator.reverseOrder()).toList())
            {
                Files.delete(p);
            }
        }
    }

    private static void copy(final Path from, final Path to) throws IOException
    {
        Files.createDirectories(to.getParent());
        try (Stream<Path> all = Files.walk(from))
        {
            for (final Path p : all.toList())
            {
                if (p.getFileName().toString().equals("lock"))
                {
                    continue;
                }
                Files.copy(p, to.resolve(from.relativize(p).toString()));
            }
        }
    }
}
