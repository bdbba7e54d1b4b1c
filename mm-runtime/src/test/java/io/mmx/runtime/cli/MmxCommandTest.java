package io.mmx.runtime.cli;

import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanFile;
import io.mmx.runtime.example.kv.KeyValueStore;
import io.mmx.runtime.node.MmxNode;
import io.mmx.runtime.node.NodeContext;
import io.mmx.runtime.node.NodeListener;
import io.mmx.runtime.node.StatusServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Exit codes and one-sentence errors of {@code mmx}; {@code mmx status} against a live node. */
class MmxCommandTest
{
    @TempDir
    Path dir;

    private final StringWriter err = new StringWriter();

    private int run(final String... args)
    {
        final CommandLine line = MmxCommand.commandLine();
        line.setErr(new PrintWriter(err, true));
        line.setOut(new PrintWriter(new StringWriter(), true));
        return line.execute(args);
    }

    private Path plan() throws Exception
    {
        final Plan plan = io.mmx.runtime.local.LocalCluster.plan(3, 2, 1);
        final Path file = dir.resolve("plan.json");
        PlanFile.write(plan, file);
        return file;
    }

    @Test
    void versionIsThePomsAndTheSameAsTopos() throws Exception
    {
        final String pom = java.nio.file.Files.readString(Path.of("..", "pom.xml"));
        final java.util.regex.Matcher parent = java.util.regex.Pattern
            .compile("<artifactId>mmx-parent</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
        assertTrue(parent.find(), "the root pom names its version");
        final StringWriter out = new StringWriter();
        final CommandLine line = MmxCommand.commandLine();
        line.setOut(new PrintWriter(out, true));
        assertEquals(0, line.execute("--version"));
        assertEquals("mmx " + parent.group(1), out.toString().strip());
        final StringWriter topoOut = new StringWriter();
        final CommandLine topo = io.mmx.planner.cli.TopoCommand.commandLine();
        topo.setOut(new PrintWriter(topoOut, true));
        assertEquals(0, topo.execute("--version"));
        assertEquals("topo (mmx) " + parent.group(1), topoOut.toString().strip());
    }

    @Test
    void helpReadsWellAndNoCommandIsOneError()
    {
        assertEquals(MmxCommand.BAD_INPUT, run());
        assertTrue(err.toString().startsWith("mmx: error: name a command"), err.toString());
        assertEquals(java.util.List.of(), io.mmx.planner.cli.UsageCheck.problems(MmxCommand.commandLine()));
        final StringWriter out = new StringWriter();
        final CommandLine line = MmxCommand.commandLine();
        line.setOut(new PrintWriter(out, true));
        assertEquals(0, line.execute("memd", "--help"));
        for (final String option : new String[] {"--listen=HOST:PORT", "--cluster-key-file=FILE", "--max-regions=N",
            "--max-memory=BYTES", "--ready-file=FILE", "Exit codes:", "probe"})
        {
            assertTrue(out.toString().contains(option), "memd --help lists " + option + ": " + out);
        }
    }

    @Test
    void memdOutOfRangeNumbersNameTheOption() throws Exception
    {
        final Path key = Files.write(dir.resolve("k"), new byte[32]);
        final Path edges = Files.writeString(dir.resolve("edges"), "2\n0 1\n");
        assertEquals(MmxCommand.BAD_INPUT, run("memd", "--max-regions", "-1", "--cluster-key-file", key.toString(),
            "--plan-edges", edges.toString()), err.toString());
        assertTrue(err.toString().startsWith("mmx memd: error: --max-regions -1 is out of range"), err.toString());
    }

    @Test
    void nodeWithoutKeyFileNamesTheFix() throws Exception
    {
        assertEquals(MmxCommand.BAD_INPUT, run("node", "--plan", plan().toString(), "--id", "0", "--directory",
            "0-2@127.0.0.1:40999", "--cluster-key-file", dir.resolve("missing.key").toString()));
        assertTrue(err.toString().contains("head -c 32 /dev/urandom"), err.toString());
    }

    @Test
    void aColdStartNeedsAStateDirectoryAndExcludesLostRegions() throws Exception
    {
        final Path key = Files.write(dir.resolve("cluster.key"), new byte[32]);
        assertEquals(MmxCommand.BAD_INPUT, run("node", "--plan", plan().toString(), "--id", "0", "--directory",
            "0-2@127.0.0.1:40999", "--cluster-key-file", key.toString(), "--cold-start"));
        assertTrue(err.toString().contains("give a state directory (--state-dir)"), err.toString());
        assertEquals(MmxCommand.BAD_INPUT, run("node", "--plan", plan().toString(), "--id", "0", "--directory",
            "0-2@127.0.0.1:40999", "--cluster-key-file", key.toString(), "--cold-start-majority", "--regions-lost",
            "--state-dir", dir.resolve("state").toString()));
        assertTrue(err.toString().contains("exclude each other"), err.toString());
        assertTrue(Files.notExists(dir.resolve("state")), "a refused start writes nothing");
    }

    @Test
    void keysDeriveWritesAHostKeyFileThatANodeAcceptsOnlyForItsProcesses() throws Exception
    {
        final Path key = Files.write(dir.resolve("cluster.key"), new byte[32]);
        final Path hostKeys = dir.resolve("host.keys");
        assertEquals(0, run("keys", "derive", "--cluster-key-file", key.toString(), "--ids", "0-1",
            "--out", hostKeys.toString()), err.toString());
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
            Files.getPosixFilePermissions(hostKeys)));
        assertEquals(MmxCommand.BAD_INPUT, run("keys", "derive", "--cluster-key-file", key.toString(), "--ids", "2",
            "--out", hostKeys.toString()));
        assertTrue(err.toString().contains("exists: pass --force"), err.toString());
        assertEquals(MmxCommand.BAD_INPUT, run("keys", "derive", "--cluster-key-file", hostKeys.toString(), "--ids",
            "2", "--out", dir.resolve("other.keys").toString()));
        assertTrue(err.toString().contains("is a host key file, not the cluster key"), err.toString());
        assertTrue(Files.notExists(dir.resolve("other.keys")), "a refused derive writes nothing");
        assertEquals(MmxCommand.BAD_INPUT, run("node", "--plan", plan().toString(), "--id", "2", "--directory",
            "0-2@127.0.0.1:40999", "--keys", hostKeys.toString()));
        assertTrue(err.toString().contains("not of hosted process 2") && err.toString().contains("mmx keys derive"),
            err.toString());
        assertEquals(MmxCommand.BAD_INPUT, run("node", "--plan", plan().toString(), "--id", "0", "--directory",
            "0-2@127.0.0.1:40999", "--keys", hostKeys.toString(), "--cluster-key-file", key.toString()));
        assertTrue(err.toString().contains("pass exactly one of --keys"), err.toString());
        assertEquals(MmxCommand.BAD_INPUT, run("node", "--plan", plan().toString(), "--id", "0", "--directory",
            "0-2@127.0.0.1:40999", "--cluster-key-file", hostKeys.toString()));
        assertTrue(err.toString().contains("pass it with --keys"), err.toString());
    }

    @Test
    void nodeAndLocalRefuseAPlanEditedByHand() throws Exception
    {
        final Path plan = plan();
        Files.writeString(plan, Files.readString(plan).replace("\"seed\": 1,", "\"seed\": 2,"));
        final Path key = Files.write(dir.resolve("k"), new byte[32]);
        assertEquals(MmxCommand.BAD_INPUT, run("node", "--plan", plan.toString(), "--id", "0", "--directory",
            "0-2@127.0.0.1:40999", "--cluster-key-file", key.toString()));
        assertTrue(err.toString().contains("content_hash") && err.toString().contains("topo verify"), err.toString());
        assertEquals(MmxCommand.BAD_INPUT, run("local", "--plan", plan.toString(), "--dir", dir.resolve("c").toString()));
        assertTrue(Files.notExists(dir.resolve("c")), "a refused plan starts nothing");
    }

    @Test
    void nodeOutsideThePlanAndBadDirectoryAreBadInput() throws Exception
    {
        final Path key = dir.resolve("k");
        Files.write(key, new byte[32]);
        assertEquals(MmxCommand.BAD_INPUT, run("node", "--plan", plan().toString(), "--id", "7", "--directory",
            "0-2@127.0.0.1:40999", "--cluster-key-file", key.toString()));
        assertTrue(err.toString().contains("process 7 is not in the plan"), err.toString());
        assertEquals(MmxCommand.BAD_INPUT, run("node", "--plan", plan().toString(), "--id", "0", "--directory",
            "0-1@127.0.0.1:40999", "--cluster-key-file", key.toString()));
        assertEquals(MmxCommand.BAD_INPUT, run("node", "--plan", plan().toString(), "--ids", "2-1", "--directory",
            "0-2@127.0.0.1:40999", "--cluster-key-file", key.toString()));
        assertEquals(MmxCommand.BAD_INPUT, run("node", "--plan", plan().toString(), "--id", "0", "--memory", "rdma",
            "--directory", "0-2@127.0.0.1:40999", "--cluster-key-file", key.toString()));
        assertTrue(err.toString().contains("use shm, memd or verbs"), err.toString());
        assertEquals(MmxCommand.BAD_INPUT, run("node", "--plan", plan().toString(), "--id", "0", "--memory", "verbs",
            "--directory", "0-2@127.0.0.1:40999", "--cluster-key-file", key.toString()));
        assertTrue(err.toString().contains("the verbs backend needs --verbs"), err.toString());
        assertEquals(MmxCommand.BAD_INPUT, run("node", "--plan", plan().toString(), "--id", "0", "--service", "echo",
            "--directory", "0-2@127.0.0.1:40999", "--cluster-key-file", key.toString()));
        assertTrue(err.toString().contains("--service echo is unknown: use kv or ack"), err.toString());
        assertEquals(MmxCommand.BAD_INPUT, run("node", "--plan", plan().toString(), "--id", "0", "--service", "ack",
            "--applied-log-dir", dir.resolve("applied").toString(), "--directory", "0-2@127.0.0.1:40999",
            "--cluster-key-file", key.toString()));
        assertTrue(err.toString().contains("drop it with --service ack"), err.toString());
        assertTrue(Files.notExists(dir.resolve("applied")), "a refused node creates nothing");
    }

    @Test
    void verbsOnAMachineWithoutRdmaRefusesWithThePreflightMessage() throws Exception
    {
        final io.mmx.rdma.verbs.VerbsPreflight.Result preflight = io.mmx.rdma.verbs.VerbsPreflight.check();
        org.junit.jupiter.api.Assumptions.assumeFalse(preflight.ok(), "this machine has RDMA verbs: " +
            "the refusal cannot be shown here");
        final Path key = dir.resolve("k");
        Files.write(key, new byte[32]);
        assertEquals(MmxCommand.IO_ERROR, run("node", "--plan", plan().toString(), "--id", "0", "--memory", "verbs",
            "--verbs", "0-2@127.0.0.1:47471", "--directory", "0-2@127.0.0.1:40999", "--cluster-key-file",
            key.toString(), "--shm-dir", dir.resolve("regions").toString()));
        assertTrue(err.toString().contains(preflight.message()), err.toString());
        assertTrue(!Files.exists(dir.resolve("regions")), "a refused start created regions");
    }

    @Test
    void statusOfAnUnreachableNodeIsUnhealthy()
    {
        assertEquals(MmxCommand.UNHEALTHY, run("status", "--endpoints", "127.0.0.1:9"));
        assertEquals(MmxCommand.IO_ERROR, run("status", "--cluster", dir.resolve("none").toString()));
        assertTrue(err.toString().contains("start a cluster there with 'mmx local"), err.toString());
    }

    @Test
    void statusOfALiveClusterShowsItsLeader() throws Exception
    {
        final Plan plan = PlanFile.read(plan());
        final int port = io.mmx.runtime.local.LocalCluster.freePorts(1, true).get(0);
        final NodeContext ctx = new NodeContext().plan(plan).hosted(0, 1, 2).directory("0-2@127.0.0.1:" + port)
            .clusterKey(new byte[32]).shmDirectory(dir.resolve("regions")).aeronDirectory(dir.resolve("aeron").toString());
        try (MmxNode node = MmxNode.launch(ctx, p -> new KeyValueStore(), NodeListener.NO_OP);
            StatusServer status = StatusServer.start(new InetSocketAddress("127.0.0.1", 0), node))
        {
            node.submit(new byte[18 + 1]).get(20, java.util.concurrent.TimeUnit.SECONDS);
            final PrintStream original = System.out;
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            System.setOut(new PrintStream(out, true));
            final int code;
            try
            {
                code = run("status", "--endpoints", "127.0.0.1:" + status.address().getPort());
            }
            finally
            {
                System.setOut(original);
            }
            assertEquals(MmxCommand.OK, code, out.toString());
            assertTrue(out.toString().contains("1 of 1 nodes answer, 3 processes; leader ["), out.toString());
            assertTrue(out.toString().contains("\nplan " + node.planHash() + " (era 0)\n"), out.toString());
        }
    }
}
