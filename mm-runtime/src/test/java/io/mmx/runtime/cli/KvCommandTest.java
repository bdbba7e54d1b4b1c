package io.mmx.runtime.cli;

import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanFile;
import io.mmx.runtime.example.kv.KeyValueStore;
import io.mmx.runtime.node.MmxNode;
import io.mmx.runtime.node.NodeContext;
import io.mmx.runtime.node.NodeListener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code mmx kv} and {@code mmx keys client} against a node of three processes in this JVM: output and exit codes. */
class KvCommandTest
{
    @TempDir
    Path dir;

    private MmxNode node;
    private String endpoint;
    private Path keyFile;
    private final StringWriter err = new StringWriter();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();

    @BeforeEach
    void start() throws Exception
    {
        final Plan plan = io.mmx.runtime.local.LocalCluster.plan(3, 2, 1);
        PlanFile.write(plan, dir.resolve("plan.json"));
        final byte[] key = "kv-command-test-cluster-key-0123".getBytes();
        Files.write(dir.resolve("cluster.key"), key);
        endpoint = "127.0.0.1:" + io.mmx.runtime.local.LocalCluster.freePorts(1, true).get(0);
        node = MmxNode.launch(new NodeContext().plan(plan).hosted(0, 1, 2).directory("0-2@" + endpoint)
            .clusterKey(key).shmDirectory(dir.resolve("regions")).aeronDirectory(dir.resolve("aeron").toString()),
            id -> new KeyValueStore(), NodeListener.NO_OP);
        keyFile = dir.resolve("client.key");
        assertEquals(0, run("keys", "client", "--cluster-key-file", dir.resolve("cluster.key").toString(), "--out",
            keyFile.toString()), err.toString());
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
            Files.getPosixFilePermissions(keyFile)));
    }

    @AfterEach
    void stop()
    {
        node.close();
    }

    @Test
    void callsAndTheirExitCodes()
    {
        assertEquals(0, kv("put", "x", "5"));
        assertEquals("x = 5 (was absent)", lastLine());
        assertEquals(0, kv("get", "x"));
        assertEquals("5", lastLine());
        assertEquals(0, kv("cas", "x", "6", "--expect", "5"));
        assertEquals(1, kv("cas", "x", "7", "--expect", "5"), "a cas that finds another value exits 1");
        assertEquals("cas failed: x does not hold 5; nothing changed", lastLine());
        assertEquals(0, kv("delete", "x"));
        assertEquals("deleted x (was 6)", lastLine());
        assertEquals(0, kv("cas", "x", "1", "--expect", "absent"));
        // Bad arguments: 2, each named.
        assertEquals(2, kv("put", "x"));
        assertEquals(2, kv("get", "x", "3"));
        assertEquals(2, kv("cas", "x", "3"));
        assertEquals(2, kv("put", "x", "five"));
        assertEquals(2, kv("put", "a-key-of-more-than-14-bytes", "1"));
        assertEquals(2, run("kv", "get", "x", "--cluster", dir.resolve("nothing").toString()));
        assertTrue(err.toString().contains("no cluster.properties in"), err.toString());
        // Nobody there: 3.
        assertEquals(3, run("kv", "get", "x", "--endpoints", "127.0.0.1:1", "--key-file", keyFile.toString(),
            "--timeout-ms", "1000"));
        assertTrue(stderr.toString().contains("no member answered"), stderr.toString());
    }

    private int kv(final String... args)
    {
        final String[] all = new String[args.length + 5];
        all[0] = "kv";
        System.arraycopy(args, 0, all, 1, args.length);
        all[args.length + 1] = "--endpoints";
        all[args.length + 2] = endpoint;
        all[args.length + 3] = "--key-file";
        all[args.length + 4] = keyFile.toString();
        return run(all);
    }

    private int run(final String... args)
    {
        final PrintStream originalOut = System.out;
        final PrintStream originalErr = System.err;
        System.setOut(new PrintStream(out, true));
        System.setErr(new PrintStream(stderr, true));
        try
        {
            final CommandLine line = MmxCommand.commandLine();
            line.setErr(new PrintWriter(err, true));
            return line.execute(args);
        }
        finally
        {
            System.setOut(originalOut);
            System.setErr(originalErr);
        }
    }

    private String lastLine()
    {
        final String[] lines = out.toString().trim().split("\n");
        return lines[lines.length - 1];
    }
}
