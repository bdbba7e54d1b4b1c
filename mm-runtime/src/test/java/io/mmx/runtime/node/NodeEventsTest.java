package io.mmx.runtime.node;

import io.mmx.planner.plan.Plan;
import io.mmx.runtime.example.kv.KeyValueClient;
import io.mmx.runtime.example.kv.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three real nodes in one JVM on loopback (n = 7, degree 2: process 0 alone, 1-3, 4-6) are stopped
 * and started again, and every event an operator relies on appears, once where the condition holds
 * once: leader changes, suspicion of a stopped neighbour and its recovery, takeover of its acceptor
 * and the hand-back, a restart and catching up, frames of a host with another cluster key or another
 * plan refused, process 0 blocked
 * when it is alone (it reaches 3 acceptors, a quorum needs 4) and unblocked when the others return.
 */
class NodeEventsTest
{
    @TempDir
    Path dir;

    private final List<MmxNode> nodes = new ArrayList<>();
    private final List<String> lines = new CopyOnWriteArrayList<>();
    /** Lines before this index were written before the step under test. */
    private volatile int mark;
    private final Consumer<String> tap = lines::add;

    @BeforeEach
    void tap()
    {
        EventLog.tap(tap);
    }

    @AfterEach
    void close()
    {
        EventLog.untap(tap);
        nodes.forEach(MmxNode::close);
    }

    @Test
    void stoppingAndStartingNodesWritesEachEventOnce() throws Exception
    {
        final Plan plan = NodeTestSupport.plan(7, 2, 11);
        final List<Integer> ports = NodeTestSupport.freePorts(3);
        final String directory = "0@127.0.0.1:" + ports.get(0) + ";1-3@127.0.0.1:" + ports.get(1) + ";4-6@127.0.0.1:" +
            ports.get(2);
        final MmxNode a = launch(plan, directory, NodeTestSupport.KEY, "regions", 0);
        MmxNode b = launch(plan, directory, NodeTestSupport.KEY, "regions", 1, 2, 3);
        MmxNode c = launch(plan, directory, NodeTestSupport.KEY, "regions", 4, 5, 6);
        NodeTestSupport.awaitLeader(a, b, c);
        final int firstLeader = a.status().get(0).leader();
        new KeyValueClient(a).put("x", 1).get(60, TimeUnit.SECONDS);
        for (int p = 0; p < 7; p++)
        {
            final String follows = "event=leader_changed process=" + p + " msg=\"follows leader ";
            awaitLine(follows, "process " + p + " to log the leader it follows");
            awaitLine("level=INFO event=process_recovered process=" + p + " msg=\"started on a fresh region",
                "process " + p + " to log its fresh start");
        }

        // C stops: each neighbour of 4, 5, 6 among 0-3 suspects it and takes its acceptor over, once
        // (at start-up, too, a node saw the neighbours that started after it as stopped: counted from here).
        mark = lines.size();
        stop(c);
        final List<int[]> crossing = new ArrayList<>();
        for (int p = 0; p < 4; p++)
        {
            for (final int q : plan.graph().neighbours(p))
            {
                if (q >= 4)
                {
                    crossing.add(new int[]{p, q});
                }
            }
        }
        assertTrue(!crossing.isEmpty(), "the plan is connected, so some edge leaves 4-6");
        for (final int[] e : crossing)
        {
            awaitLine("level=WARN event=neighbour_suspected process=" + e[0] + " msg=\"suspects neighbour " + e[1] +
                " crashed", e[0] + " to suspect " + e[1]);
            awaitLine("level=WARN event=acceptor_takeover process=" + e[0] + " msg=\"runs neighbour " + e[1] + "'s",
                e[0] + " to take over " + e[1] + "'s acceptor");
        }
        new KeyValueClient(a).put("x", 2).get(60, TimeUnit.SECONDS);
        // One slot each, while 4-6 are away: when they return, they are this far behind the decided log.
        for (int i = 0; i < 2 * ReplicaEvents.CATCH_UP_START_SLOTS; i++)
        {
            new KeyValueClient(a).put("y", i).get(60, TimeUnit.SECONDS);
        }
        if (firstLeader >= 4)
        {
            awaitLine("event=leader_changed process=0 msg=\"follows leader ", "0 to follow a new leader");
        }
        // A start-up suspicion may land after the mark (a node reads a region some 300 ms before it
        // sees its heartbeat move); it ends with a recovery before the stop. Count after the last one.
        for (final int[] e : crossing)
        {
            assertEquals(1, countAfterLast("event=neighbour_suspected process=" + e[0] + " msg=\"suspects neighbour " +
                e[1] + " ", "event=neighbour_recovered process=" + e[0] + " msg=\"neighbour " + e[1] + "'s"),
                String.join("\n", lines));
            assertEquals(1, countAfterLast("event=acceptor_takeover process=" + e[0] + " msg=\"runs neighbour " + e[1] +
                "'s", "event=acceptor_released process=" + e[0] + " msg=\"hands neighbour " + e[1] + "'s"));
        }
        final MmxNode firstB = b;
        assertTrue(crossing.stream().mapToLong(e -> (e[0] == 0 ? a : firstB).replica(e[0]).events().takeovers())
            .sum() >= crossing.size(), "the takeover counters count them");

        // A host with another cluster key takes C's port: its frames are refused, in one line.
        final byte[] otherKey = "another-cluster-key-0123456789ab".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        final MmxNode rogue = launch(plan, directory, otherKey, "rogue-regions", 4, 5, 6);
        awaitLine("level=WARN event=peer_refused msg=\"refused ", "a node to refuse the rogue's frames");
        assertTrue(count("bad_tag") > 0, String.join("\n", lines));
        stop(rogue);
        // A host with the right key but another plan: its frames belong to another cluster (the plan's
        // hash names the cluster), refused as foreign_cluster; the next line comes at most 10 s after
        // the last (one line per 10 s, with the count).
        mark = lines.size();
        final MmxNode otherPlan = launch(NodeTestSupport.plan(7, 2, 12), directory, NodeTestSupport.KEY,
            "other-plan-regions", 4, 5, 6);
        awaitLine("foreign_cluster", "a node to refuse the frames of a host running another plan");
        stop(otherPlan);

        // B stops too: 0 is alone, leads or tries to, and reaches itself and its two neighbours: blocked.
        mark = lines.size();
        stop(b);
        awaitLine("level=WARN event=blocked process=0 msg=\"blocked: reaches ", "0 to log that it is blocked");
        assertTrue(since(mark).stream().filter(l -> l.contains("event=blocked process=0"))
            .allMatch(l -> l.matches(".*reaches [0-3] acceptors, a quorum needs 4\"")), String.join("\n", lines));

        // B and C come back: 0 is unblocked, neighbours are back and get their acceptors back.
        mark = lines.size();
        b = launch(plan, directory, NodeTestSupport.KEY, "regions", 1, 2, 3);
        c = launch(plan, directory, NodeTestSupport.KEY, "regions", 4, 5, 6);
        awaitLine("level=INFO event=unblocked process=0 msg=\"no longer blocked", "0 to log that it is unblocked");
        new KeyValueClient(b).put("x", 3).get(60, TimeUnit.SECONDS);
        for (int p = 1; p < 7; p++)
        {
            awaitLine("level=INFO event=process_recovered process=" + p + " msg=\"restarted: read its region",
                "process " + p + " to log its restart");
        }
        for (final int q : plan.graph().neighbours(0))
        {
            awaitLine("level=INFO event=neighbour_recovered process=0 msg=\"neighbour " + q + "'s memory heartbeat",
                "0 to see " + q + " back");
            awaitLine("level=INFO event=acceptor_released process=0 msg=\"hands neighbour " + q + "'s acceptor back",
                "0 to hand " + q + "'s acceptor back");
        }
        // catching_up needs a status refresh that sees the restarted process know of more decided slots
        // than it applied; whether one does depends on how the machine schedules its catch-up (under load
        // it learned and applied in step and no line came in a loaded suite run), so the lines' logic is checked
        // tick by tick in ReplicaEventsTest, not here.
        assertTrue(a.replica(0).events().blockedNs() > 0, "0's blocked time is counted");
        final String metrics = a.metricsText();
        assertTrue(metrics.contains("mmx_acceptor_takeovers_total{process=\"0\"}"), metrics);
        System.out.println("NodeEventsTest: " + lines.size() + " event lines, 0 blocked for " +
            a.replica(0).events().blockedNs() / 1_000_000 + " ms");
    }

    private MmxNode launch(final Plan plan, final String directory, final byte[] key, final String regions,
        final int... ids)
    {
        final MmxNode node = MmxNode.launch(new NodeContext().plan(plan).hosted(ids).directory(directory).clusterKey(key)
            .shmDirectory(dir.resolve(regions)).aeronDirectory(dir.resolve("aeron-" + regions + "-" + ids[0] + "-" +
            nodes.size()).toString()), id -> new KeyValueStore(), NodeListener.NO_OP);
        nodes.add(node);
        return node;
    }

    private void stop(final MmxNode node)
    {
        node.close();
        nodes.remove(node);
    }

    private long count(final String fragment)
    {
        return since(mark).stream().filter(l -> l.contains(fragment)).count();
    }

    /** Lines since the mark that contain {@code fragment} and follow the last line that contains {@code reset}. */
    private long countAfterLast(final String fragment, final String reset)
    {
        final List<String> seen = since(mark);
        int from = 0;
        for (int i = 0; i < seen.size(); i++)
        {
            if (seen.get(i).contains(reset))
            {
                from = i + 1;
            }
        }
        return seen.subList(from, seen.size()).stream().filter(l -> l.contains(fragment)).count();
    }

    /**
     * The lines written since {@code from}, from a copy: a sub-list of the live list fails with a
     * ConcurrentModificationException when the node writes a line while it is read.
     */
    private List<String> since(final int from)
    {
        final List<String> all = List.copyOf(lines);
        return all.subList(from, all.size());
    }

    private void awaitLine(final String fragment, final String what)
    {
        NodeTestSupport.await(() -> count(fragment) > 0, 60_000, what + " (a line containing '" + fragment + "')");
    }
}
