package io.mmx.rdma.memd;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.OpType;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.ProcessKey;
import io.mmx.rdma.region.RegionHeader;
import org.agrona.IoUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Process identity on memd: a process key proves one process, and memd probe does one real authenticated op. */
class MemdIdentityTest
{
    // 0 - 1 is the only edge: 2 may touch only its own region.
    private static final Graph PLAN = Graph.fromEdges(3, new int[]{0}, new int[]{1});
    private static final PlanDigest DIGEST = PlanDigest.ofGraph(PLAN);
    private static final byte[] KEY_BYTES = "identity-test-cluster-key-0123456789".getBytes(StandardCharsets.UTF_8);
    private static final ClusterKey KEY = ClusterKey.of(KEY_BYTES);
    private static final int WRITE = OpType.WRITE.ordinal();

    private MemoryDaemon daemon;
    private InetSocketAddress address;
    private Path dir;

    @BeforeEach
    void setUp() throws Exception
    {
        daemon = MemoryDaemon.start(new MemoryDaemon.Context()
            .listen(new InetSocketAddress("127.0.0.1", 0)).clusterKey(KEY).plan(PLAN));
        address = daemon.boundAddress();
        for (int q = 0; q < 3; q++)
        {
            assertEquals(OpStatus.OK, MemdRegionLink.createRegion(address, KEY.processKey(q), 1024, DIGEST,
                TimeUnit.SECONDS.toNanos(10)));
        }
        dir = Files.createTempDirectory("mmx-memd-identity-");
    }

    @AfterEach
    void tearDown()
    {
        daemon.close();
        IoUtil.delete(dir.toFile(), true);
    }

    @Test
    void processKeysDifferPerProcessAndDependOnTheClusterKey()
    {
        assertEquals(KEY.processKey(4), KEY.processKey(4));
        assertNotEquals(KEY.processKey(4), KEY.processKey(5));
        assertNotEquals(KEY.processKey(4), ClusterKey.ofPassphrase("another-cluster-key-0123456789").processKey(4));
        final byte[] a = KEY.processKey(4).newMac().doFinal(new byte[]{1});
        final byte[] b = KEY.newMac().doFinal(new byte[]{1});
        assertFalse(java.util.Arrays.equals(a, b), "a process key is not the cluster key");
    }

    @Test
    void aHolderOfOneProcessKeyCannotActAsAnother() throws Exception
    {
        final ProcessKey stolen = KEY.processKey(2); // 2 is not a neighbour of 0; 1 is
        try (RawMemdClient client = new RawMemdClient(address))
        {
            client.sendRaw(RawMemdClient.frame(stolen, client.nonce(), WRITE, 1, 1, 0, 0, 0, 99, 0, new byte[0]));
            assertEquals(OpStatus.BAD_CLUSTER_KEY, client.readResponse().status(), "2 claiming to be 1");
        }
        try (RawMemdClient client = new RawMemdClient(address))
        {
            client.sendRaw(RawMemdClient.frame(KEY.processKey(0), client.nonce(), MemdProtocol.OP_CREATE_REGION, 1, 1,
                1, 0, 0, 64, 0, DIGEST.toByteArray()));
            assertEquals(OpStatus.BAD_CLUSTER_KEY, client.readResponse().status(), "0 claiming to be 1 to create its region");
        }
        try (RawMemdClient client = new RawMemdClient(address))
        {
            client.sendRaw(RawMemdClient.frame(KEY.processKey(1), client.nonce(), WRITE, 1, 1, 1, 0, 0, 5, 0, new byte[0]));
            assertEquals(OpStatus.OK, client.readResponse().status(), "1 as itself, on its own region");
            client.sendRaw(RawMemdClient.frame(KEY.processKey(1), client.nonce(), WRITE, 0, 2, 0, 0, 0, 99, 0, new byte[0]));
            assertEquals(OpStatus.PROTOCOL_ERROR, client.readResponse().status(),
                "a connection bound to 1 cannot switch to 0, even with 1's key");
        }
        final MemdLinkFactory onlyTwo = new MemdLinkFactory((owner) -> address,
            (int self) -> self == 2 ? KEY.processKey(2) : null, DIGEST, 2_000);
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> onlyTwo.open(1, 0));
        assertTrue(refused.getMessage().contains("no key for process 1"), refused.getMessage());

        assertEquals(0, daemon.region(0).buffer().getLongVolatile(RegionHeader.HEADER_BYTES), "region 0 untouched");
        assertEquals(5, daemon.region(1).buffer().getLongVolatile(RegionHeader.HEADER_BYTES));
        assertEquals(2, daemon.counters().get(OpStatus.BAD_CLUSTER_KEY));
    }

    @Test
    void probeServedNotServedAndBadArguments() throws Exception
    {
        final Path key = dir.resolve("cluster.key");
        Files.write(key, KEY_BYTES);
        final Path wrong = dir.resolve("wrong.key");
        Files.write(wrong, "not-this-cluster-key-0123456789".getBytes(StandardCharsets.UTF_8));
        final String at = "127.0.0.1:" + address.getPort();

        final Result served = probe("--address", at, "--key", key.toString(), "--as", "2");
        assertEquals(0, served.exit, served.text);
        assertTrue(served.text.contains("serves: authenticated round trip as process 2") &&
            served.text.contains("3 regions held"), served.text);

        final Result wrongKey = probe("--address", at, "--key", wrong.toString(), "--as", "2");
        assertEquals(1, wrongKey.exit, wrongKey.text);
        assertTrue(wrongKey.text.contains("does not accept the key of process 2"), wrongKey.text);

        // A host that accepts TCP and says nothing is not a live memd.
        try (ServerSocket mute = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            final Result silent = probe("--address", "127.0.0.1:" + mute.getLocalPort(), "--key", key.toString(),
                "--as", "2", "--timeout-ms", "300");
            assertEquals(1, silent.exit, silent.text);
            assertTrue(silent.text.contains("no answer within 300 ms"), silent.text);
        }
        final int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            closedPort = s.getLocalPort();
        }
        final Result refused = probe("--address", "127.0.0.1:" + closedPort, "--key", key.toString(), "--as", "2");
        assertEquals(1, refused.exit, refused.text);
        assertTrue(refused.text.contains("memd does not run there"), refused.text);

        // Several daemons in one run: a line each, in argument order; exit 1 when any is not served.
        final Result both = probe("--address", at, "--as", "2", "--address", "127.0.0.1:" + closedPort, "--as", "1",
            "--key", key.toString());
        assertEquals(1, both.exit, both.text);
        final String[] lines = both.text.strip().split("\n");
        assertEquals(2, lines.length, both.text);
        assertTrue(lines[0].startsWith("memd " + at + " serves:"), both.text);
        assertTrue(lines[1].startsWith("memd 127.0.0.1:" + closedPort + " not served:"), both.text);
        assertEquals(0, probe("--address", at, "--as", "2", "--address", at, "--as", "1", "--key", key.toString()).exit);
        assertEquals(2, probe("--address", at, "--address", at, "--as", "1", "--key", key.toString()).exit,
            "two addresses, one --as");

        assertEquals(2, probe("--address", at, "--key", key.toString()).exit, "--as missing");
        assertEquals(2, probe("--address", "nowhere", "--key", key.toString(), "--as", "1").exit);
        assertEquals(2, probe("--address", at, "--key", dir.resolve("absent").toString(), "--as", "1").exit);
        assertEquals(2, probe("--address", at, "--key", key.toString(), "--as", "-3").exit);
        final Result unknown = probe("--adress", at);
        assertEquals(2, unknown.exit);
        assertTrue(unknown.text.contains("Unknown options: '--adress'"), unknown.text);
    }

    private static Result probe(final String... args)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream stream = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        final String[] full = new String[args.length + 1];
        full[0] = "probe";
        System.arraycopy(args, 0, full, 1, args.length);
        final int exit = MemdCommandLine.run(full, stream, stream);
        return new Result(exit, bytes.toString(StandardCharsets.UTF_8));
    }

    private record Result(int exit, String text)
    {
    }
}
