package io.mmx.runtime.node;

import io.mmx.planner.plan.Plan;
import io.mmx.runtime.client.ClientKey;
import io.mmx.runtime.client.ClientWire;
import io.mmx.runtime.client.MmxClient;
import io.mmx.runtime.client.MmxClientException;
import io.mmx.runtime.example.kv.KeyValueCommand;
import io.mmx.runtime.example.kv.KeyValueStore;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteOrder;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An outside client ({@link MmxClient}) against real nodes in this JVM, Aeron UDP on loopback: the
 * key-value operations, exactly once across retries and a leader's node stopping, commands of 64 KiB
 * and 1 MiB applied alike on every replica, and frames a client must not be able to get through.
 */
class MmxClientTest
{
    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception
    {
        for (int i = open.size() - 1; i >= 0; i--)
        {
            open.get(i).close();
        }
    }

    /** Records every client command it applies: log index and SHA-256; replies the SHA-256. */
    static final class Recorder implements StateMachine
    {
        final List<String> applied = java.util.Collections.synchronizedList(new ArrayList<>());
        /** Log index where the first gap this replica was told of begins, or -1 (it missed nothing). */
        volatile long firstGap = -1;

        @Override
        public void onGap(final long fromLogIndex, final long toLogIndex)
        {
            if (firstGap < 0)
            {
                firstGap = fromLogIndex;
            }
        }

        /** What it applied below log index {@code end}. */
        List<String> appliedBelow(final long end)
        {
            synchronized (applied)
            {
                return applied.stream().filter(e -> Long.parseLong(e.split(" ")[0]) < end).toList();
            }
        }

        @Override
        public long apply(final long logIndex, final int origin, final DirectBuffer buffer, final int offset,
            final int length)
        {
            return 0;
        }

        @Override
        public byte[] applyClientCommand(final long logIndex, final long clientId, final DirectBuffer buffer,
            final int offset, final int length)
        {
            final byte[] bytes = new byte[length];
            buffer.getBytes(offset, bytes);
            final byte[] sha = sha256(bytes);
            applied.add(logIndex + " " + length + " " + HexFormat.of().formatHex(sha));
            return sha;
        }
    }

    @Test
    void putGetCasDeleteFromOutsideAndEveryReplicaAgrees() throws Exception
    {
        final KeyValueStore[] stores = new KeyValueStore[5];
        final List<String> endpoints = cluster(5, new int[][]{{0, 1, 2}, {3, 4}}, id -> stores[id] = new KeyValueStore());
        final MmxClient client = client(endpoints, 300);
        assertEquals(KeyValueCommand.ABSENT, kv(client, KeyValueCommand.PUT, "x", 1, 0));
        assertEquals(1L, kv(client, KeyValueCommand.PUT, "x", 2, 0));
        assertEquals(2L, kv(client, KeyValueCommand.GET, "x", 0, 0));
        assertEquals(KeyValueCommand.CAS_OK, kv(client, KeyValueCommand.CAS, "x", 3, 2));
        assertEquals(KeyValueCommand.CAS_FAILED, kv(client, KeyValueCommand.CAS, "x", 4, 2));
        assertEquals(3L, kv(client, KeyValueCommand.DELETE, "x", 0, 0));
        assertEquals(KeyValueCommand.ABSENT, kv(client, KeyValueCommand.GET, "x", 0, 0));
        for (int i = 0; i < 50; i++)
        {
            kv(client, KeyValueCommand.PUT, "k" + (i % 7), i, 0);
        }
        NodeTestSupport.await(() -> java.util.Arrays.stream(stores).allMatch(s -> s.applied() == 57), 20_000,
            "every replica to apply the 57 commands");
        for (final KeyValueStore s : stores)
        {
            assertEquals(stores[0].digest(), s.digest());
        }
        // The client follows the leader: the last answer named the endpoint of the leader's node.
        final int leader = nodes.get(0).status().get(0).leader();
        assertEquals(endpoints.get(leader <= 2 ? 0 : 1), client.leaderEndpoint());
    }

    @Test
    void aCommandSentAgainAndAgainIsAppliedOnce() throws Exception
    {
        final Recorder[] recorders = new Recorder[3];
        final List<String> endpoints = cluster(3, new int[][]{{0, 1, 2}}, id -> recorders[id] = new Recorder());
        // A retry every millisecond: every command is sent many times while it commits.
        final MmxClient client = client(endpoints, 1);
        final Random random = new Random(11);
        for (int i = 0; i < 40; i++)
        {
            final byte[] command = new byte[1 + random.nextInt(200)];
            random.nextBytes(command);
            assertArrayEquals(sha256(command), client.execute(command));
        }
        // By hand: a command applied, then the same (client, sequence) again with other bytes.
        final ClientKey key = nodes.get(0).clientKey();
        try (RawClient raw = new RawClient(key.frameKey()))
        {
            final io.aeron.ExclusivePublication p = raw.connect(endpoints.get(0), ClientWire.STREAM_ID);
            raw.request(p, key.frameKey(), 77, 1, "first".getBytes());
            final RawClient.Reply first = raw.await(77, 1, List.of(ClientWire.APPLIED));
            raw.request(p, key.frameKey(), 77, 1, "second".getBytes());
            final RawClient.Reply again = raw.await(77, 1, List.of(ClientWire.APPLIED));
            assertArrayEquals(first.body(), again.body(), "a retry gets the first copy's reply");
            assertArrayEquals(sha256("first".getBytes()), again.body());
        }
        final List<String> applied = assertGapFreeReplicasAgree(recorders, 41);
        assertEquals(41, applied.size(), "a command was applied twice");
        assertEquals(41, applied.stream().map(s -> s.split(" ")[2]).distinct().count(), "a command was applied twice");
    }

    @Test
    void aCommandTwoMembersBothLogIsAppliedOnce() throws Exception
    {
        final Recorder[] recorders = new Recorder[5];
        final List<String> endpoints = cluster(5, new int[][]{{0, 1, 2}, {3, 4}}, id -> recorders[id] = new Recorder());
        final ClientKey key = nodes.get(0).clientKey();
        final int commands = 30;
        try (RawClient raw = new RawClient(key.frameKey()))
        {
            final io.aeron.ExclusivePublication a = raw.connect(endpoints.get(0), ClientWire.STREAM_ID);
            final io.aeron.ExclusivePublication b = raw.connect(endpoints.get(1), ClientWire.STREAM_ID);
            for (int seq = 1; seq <= commands; seq++)
            {
                // The same command to both members at once: each proposes it, so the log holds it twice.
                final byte[] command = ("command " + seq + " " + "x".repeat(seq * 7)).getBytes();
                raw.request(a, key.frameKey(), 42, seq, command);
                raw.request(b, key.frameKey(), 42, seq, command);
                assertArrayEquals(sha256(command), raw.await(42, seq, List.of(ClientWire.APPLIED)).body());
            }
        }
        assertEquals(commands, assertGapFreeReplicasAgree(recorders, commands).size(), "a command was applied twice");
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"duplicateFragments\":(\\d+)")
            .matcher(nodes.get(0).clientCountersJson());
        assertTrue(m.find() && Long.parseLong(m.group(1)) > 0, "the log carried copies: " +
            nodes.get(0).clientCountersJson());
    }

    @Test
    void commandsCarryOnOnceEachWhileTheLeadersNodeStops() throws Exception
    {
        final Recorder[] recorders = new Recorder[5];
        final List<String> endpoints = cluster(5, new int[][]{{0, 1}, {2, 3}, {4}}, id -> recorders[id] = new Recorder());
        final MmxClient client = client(endpoints, 300);
        final int leader = nodes.get(1).status().get(0).leader();
        final int leaderNode = leader <= 1 ? 0 : leader <= 3 ? 1 : 2;
        final Random random = new Random(5);
        final List<String> sent = new ArrayList<>();
        final java.util.concurrent.CountDownLatch sending = new java.util.concurrent.CountDownLatch(1);
        final Thread stopper = new Thread(() ->
        {
            try
            {
                sending.await();
                nodes.get(leaderNode).close(); // the leader's node stops while call 20 is on its way
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }, "stop-the-leaders-node");
        stopper.start();
        for (int i = 0; i < 60; i++)
        {
            // Call 20 is 64 KiB (2,341 fragments): the leader stops part way, the rest goes through another.
            final byte[] command = new byte[i == 20 ? 64 * 1024 : 8 + random.nextInt(100)];
            random.nextBytes(command);
            if (i == 20)
            {
                sending.countDown();
            }
            final long start = System.nanoTime();
            assertArrayEquals(sha256(command), client.execute(command), "call " + i);
            if (i == 20)
            {
                System.out.printf("call 20 (64 KiB) took %d ms across the stop%n", (System.nanoTime() - start) / 1_000_000);
            }
            sent.add(HexFormat.of().formatHex(sha256(command)));
        }
        stopper.join(30_000);
        System.out.println("surviving node's client counters: " + nodes.get(leaderNode == 0 ? 1 : 0).clientCountersJson());
        final int[] firstIds = {0, 2, 4};
        final Recorder r = recorders[firstIds[leaderNode == 0 ? 1 : 0]];
        NodeTestSupport.await(() -> r.applied.size() >= 60, 20_000, "a surviving replica to apply 60 commands");
        final List<String> applied = r.applied.stream().map(s -> s.split(" ")[2]).toList();
        assertEquals(sent, applied, "each command applied once, in the order the client sent them");
        assertTrue(client.leaderEndpoint() != null && !client.leaderEndpoint().equals(endpoints.get(leaderNode)),
            "the client follows the new leader, not " + endpoints.get(leaderNode));
    }

    @Test
    void commandsOf64KiBAnd1MiBApplyAlikeOnEveryReplica() throws Exception
    {
        final Recorder[] recorders = new Recorder[5];
        final List<String> endpoints = cluster(5, new int[][]{{0, 1, 2}, {3, 4}}, id -> recorders[id] = new Recorder());
        final MmxClient client = client(endpoints, 300);
        final long seed = 64;
        System.out.println("large commands: seed " + seed);
        final Random random = new Random(seed);
        final byte[] small = new byte[64 * 1024];
        final byte[] large = new byte[1024 * 1024];
        random.nextBytes(small);
        random.nextBytes(large);
        assertArrayEquals(sha256(small), client.execute(small));
        final long start = System.nanoTime();
        assertArrayEquals(sha256(large), client.execute(large));
        System.out.printf("1 MiB command (%d fragments) applied in %d ms%n", Commands.fragments(large.length,
            Commands.fragmentBytes(Commands.proposalWords(32))), (System.nanoTime() - start) / 1_000_000);
        final List<String> applied;
        try
        {
            applied = assertGapFreeReplicasAgree(recorders, 2);
        }
        catch (final AssertionError e)
        {
            throw new AssertionError(e.getMessage() + ": " + java.util.Arrays.stream(recorders)
                .map(r -> r.applied.size()).toList() + " " + nodes.get(0).status() + nodes.get(1).status(), e);
        }
        assertEquals(2, applied.size());
        assertTrue(applied.get(1).contains(" 1048576 " + HexFormat.of().formatHex(sha256(large))));
        // Larger than this cluster takes (65,536 fragments of 28 bytes): refused, nothing proposed.
        final MmxClientException refused = assertThrows(MmxClientException.class,
            () -> client.execute(new byte[2 * 1024 * 1024]));
        assertEquals(MmxClientException.Outcome.REFUSED, refused.outcome());
    }

    @Test
    void framesWithoutTheClientKeyOrForTheMembersStreamAreRefusedAndCounted() throws Exception
    {
        final Recorder[] recorders = new Recorder[3];
        final List<String> endpoints = cluster(3, new int[][]{{0, 1, 2}}, id -> recorders[id] = new Recorder());
        final MmxNode node = nodes.get(0);
        final ClientKey key = node.clientKey();
        // Another key under this cluster's id: a forged frame, not a frame of another cluster.
        final io.mmx.aeron.frame.FrameKey otherKey = io.mmx.aeron.frame.FrameKey.of(key.clusterId(),
            "another-client-k".getBytes());
        try (RawClient raw = new RawClient(key.frameKey()))
        {
            final io.aeron.ExclusivePublication clients = raw.connect(endpoints.get(0), ClientWire.STREAM_ID);
            // Signed with another key; then a request whose chunk is shorter than it says; then a good one.
            raw.request(clients, otherKey, 5, 1, "forged".getBytes());
            final byte[] bad = new byte[40];
            new UnsafeBuffer(bad).putLong(0, 5, ByteOrder.LITTLE_ENDIAN);
            new UnsafeBuffer(bad).putLong(8, 1, ByteOrder.LITTLE_ENDIAN);
            new UnsafeBuffer(bad).putInt(16, 100, ByteOrder.LITTLE_ENDIAN);
            new UnsafeBuffer(bad).putShort(24, (short)3, ByteOrder.LITTLE_ENDIAN);
            raw.raw(clients, key.frameKey(), ClientWire.REQUEST, -1, -1, bad);
            // Random payloads under the right key, most of them malformed: dropped, the node carries on.
            final long seed = 2026;
            System.out.println("random client frames: seed " + seed);
            final Random random = new Random(seed);
            for (int i = 0; i < 200; i++)
            {
                final byte[] junk = new byte[random.nextInt(200)];
                random.nextBytes(junk);
                raw.raw(clients, key.frameKey(), random.nextBoolean() ? ClientWire.REQUEST : random.nextInt(256), -1,
                    -1, junk);
            }
            raw.request(clients, key.frameKey(), 6, 1, "good".getBytes());
            raw.await(6, 1, List.of(ClientWire.APPLIED));
            // A client's key does not make a member: a forwarded command on the members' stream is dropped.
            final io.aeron.ExclusivePublication members = raw.connect(endpoints.get(0),
                io.mmx.aeron.transport.TransportContext.DEFAULT_STREAM_ID);
            final long[] words = new long[Commands.proposalWords(32)];
            Commands.encode(words, 0, words.length, 1, 9, 1, new UnsafeBuffer(new byte[4]), 0, 4);
            final byte[] forward = new byte[8 * words.length];
            for (int w = 0; w < words.length; w++)
            {
                new UnsafeBuffer(forward).putLong(8 * w, words[w], ByteOrder.LITTLE_ENDIAN);
            }
            // Client frames carry the cluster's client id, members' frames the plan's: dropped as another cluster's.
            final long foreign = node.transport().counters().dropped(io.mmx.aeron.frame.DropReason.FOREIGN_CLUSTER);
            raw.raw(members, key.frameKey(), NodeFrames.FORWARD, 1, 0, forward);
            NodeTestSupport.await(() -> node.transport().counters().dropped(
                io.mmx.aeron.frame.DropReason.FOREIGN_CLUSTER) > foreign, 10_000,
                "the members' transport to drop the client-signed frame");
            // Under the members' cluster id as well, the client key does not sign a member's frame.
            final long badTags = node.transport().counters().dropped(io.mmx.aeron.frame.DropReason.BAD_TAG);
            final java.nio.file.Path keyFile = dir.resolve("client.key");
            key.write(keyFile, false);
            final String hex = java.nio.file.Files.readAllLines(keyFile).get(2).substring("key ".length());
            raw.raw(members, io.mmx.aeron.frame.FrameKey.ofHex(node.plan().digest().id64(), hex), NodeFrames.FORWARD, 1,
                0, forward);
            NodeTestSupport.await(() -> node.transport().counters().dropped(io.mmx.aeron.frame.DropReason.BAD_TAG) >
                badTags, 10_000, "the members' transport to drop the client-keyed frame under the members' id");
        }
        final String counters = node.clientCountersJson();
        assertTrue(counters.contains("\"bad_tag\":1"), counters);
        assertTrue(counters.contains("\"badRequests\":201"), counters);
        assertEquals(null, node.failure());
        assertEquals(1, recorders[0].applied.size(), "only the good command applied: " + recorders[0].applied);
        assertTrue(recorders[0].applied.get(0).endsWith(HexFormat.of().formatHex(sha256("good".getBytes()))));
        assertTrue(StatusServer.json(node).contains("\"clientFrames\":{\"accepted\":"), StatusServer.json(node));
        final String metrics = node.metricsText();
        assertTrue(metrics.contains("\nmmx_client_frames_dropped_total{reason=\"bad_tag\"} 1\n"), metrics);
        assertTrue(metrics.contains("\nmmx_client_bad_requests_total 201\n"), metrics);
    }

    private final List<MmxNode> nodes = new ArrayList<>();

    /** Nodes hosting {@code groups} of an n-process plan; returns each node's endpoint, once a leader is known. */
    private List<String> cluster(final int n, final int[][] groups,
        final java.util.function.IntFunction<StateMachine> machines) throws Exception
    {
        final Plan plan = NodeTestSupport.plan(n, 2, 7);
        final List<Integer> ports = NodeTestSupport.freePorts(groups.length);
        final List<String> endpoints = new ArrayList<>();
        final StringBuilder directory = new StringBuilder();
        for (int g = 0; g < groups.length; g++)
        {
            endpoints.add("127.0.0.1:" + ports.get(g));
            final int[] ids = groups[g];
            directory.append(g == 0 ? "" : ";").append(ids[0]).append(ids.length > 1 ? "-" + ids[ids.length - 1] : "")
                .append('@').append(endpoints.get(g));
        }
        for (final int[] ids : groups)
        {
            final MmxNode node = MmxNode.launch(new NodeContext().plan(plan).hosted(ids).directory(directory.toString())
                .clusterKey(NodeTestSupport.KEY).shmDirectory(dir.resolve("regions"))
                .aeronDirectory(dir.resolve("aeron-" + ids[0]).toString()), machines, NodeListener.NO_OP);
            nodes.add(node);
            open.add(node);
        }
        NodeTestSupport.await(() -> nodes.stream().flatMap(x -> x.status().stream()).anyMatch(ProcessStatus::leads)
            && nodes.stream().flatMap(x -> x.status().stream()).allMatch(s -> s.leader() >= 0), 30_000, "a leader");
        return endpoints;
    }

    private MmxClient client(final List<String> endpoints, final long retryMs)
    {
        final MmxClient client = MmxClient.connect(new MmxClient.Context().endpoints(endpoints)
            .key(nodes.get(0).clientKey()).timeoutNs(60_000_000_000L).retryNs(retryMs * 1_000_000L));
        open.add(client);
        return client;
    }

    private static long kv(final MmxClient client, final byte op, final String key, final long value,
        final long expected) throws MmxClientException
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[KeyValueCommand.MAX_LENGTH]);
        final int length = KeyValueCommand.encode(buffer, op, key, value, expected);
        final byte[] command = new byte[length];
        buffer.getBytes(0, command);
        return new UnsafeBuffer(client.execute(command)).getLong(0, ByteOrder.LITTLE_ENDIAN);
    }

    static byte[] sha256(final byte[] bytes)
    {
        try
        {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        }
        catch (final java.security.NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * Waits until every replica applied {@code commands} commands or learned of a gap, then checks
     * that the replicas without a gap applied the same commands at the same log indexes, and that
     * each replica with a gap applied the same as they did below it. A replica that falls behind every
     * decided log it can reach (a starved JVM on a busy machine) skips ahead and is told of the gap;
     * without snapshots (this recorder takes none) it cannot fill it, so a command it completes from
     * fragments logged again after the gap lands at another index. At least one replica, the leader's,
     * sees every slot.
     */
    private static List<String> assertGapFreeReplicasAgree(final Recorder[] recorders, final int commands)
    {
        NodeTestSupport.await(() -> java.util.Arrays.stream(recorders)
            .allMatch(r -> r.applied.size() >= commands || r.firstGap >= 0), 30_000,
            "every replica to apply " + commands + " commands or learn of a gap");
        final List<Recorder> whole = java.util.Arrays.stream(recorders).filter(r -> r.firstGap < 0).toList();
        assertFalse(whole.isEmpty(), "every replica missed part of the log");
        final List<String> reference = whole.get(0).applied;
        for (int id = 0; id < recorders.length; id++)
        {
            final Recorder r = recorders[id];
            if (r.firstGap < 0)
            {
                assertEquals(reference, r.applied, "replicas without a gap applied different commands");
            }
            else
            {
                System.out.println("replica " + id + " was told of a gap from log index " + r.firstGap);
                assertEquals(whole.get(0).appliedBelow(r.firstGap), r.appliedBelow(r.firstGap),
                    "replica " + id + " applied differently before its gap");
            }
        }
        return reference;
    }
}
