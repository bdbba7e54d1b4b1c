package io.mmx.rdma.memd;

import io.mmx.rdma.verbs.VerbsPreflight;
import org.agrona.IoUtil;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** memd in verbs mode refuses to start, creating nothing, where the verbs preflight fails. */
class MemdVerbsModeTest
{
    @Test
    void withoutRdmaVerbsModeExitsThreeWithThePreflightSentenceAndCreatesNothing() throws Exception
    {
        final VerbsPreflight.Result preflight = VerbsPreflight.check();
        assumeFalse(preflight.ok(), "this machine has RDMA verbs: VerbsMemdConformanceTest covers verbs mode");
        final Path dir = Files.createTempDirectory("mmx-memd-verbs-");
        try
        {
            Files.write(dir.resolve("cluster.key"), "verbs-mode-cluster-key-0123456789".getBytes(StandardCharsets.UTF_8));
            Files.writeString(dir.resolve("plan.edges"), "3\n0 1\n");
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            final PrintStream stream = new PrintStream(bytes, true, StandardCharsets.UTF_8);
            final int exit = MemdCommandLine.run(new String[]{"--listen", "127.0.0.1:0",
                "--cluster-key-file", dir.resolve("cluster.key").toString(), "--plan-edges",
                dir.resolve("plan.edges").toString(), "--ready-file", dir.resolve("ready").toString(),
                "--verbs-listen", "127.0.0.1:47471", "--shm-dir", dir.resolve("regions").toString()}, stream, stream);
            final String text = bytes.toString(StandardCharsets.UTF_8);
            assertEquals(3, exit, text);
            assertEquals("memd: error: " + preflight.message(), text.strip());
            assertFalse(Files.exists(dir.resolve("regions")), "no region directory was created");
            assertFalse(Files.exists(dir.resolve("ready")), "it never served");
            assertTrue(text.contains(preflight.missing()) || text.contains("libdisni"), text);
        }
        finally
        {
            IoUtil.delete(dir.toFile(), true);
        }
    }
}
