package io.mmx.runtime.local;

import io.mmx.planner.plan.Plan;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The cluster directory: a private key, no silent replacement, nothing left by a killed child. */
class LocalClusterTest
{
    private static final Plan PLAN = LocalCluster.plan(4, 2, 1);
    private static final List<String> CHILD_JVM = List.of("-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    @Test
    void aCounterIsReadPerProcessFromEveryJvmsMetricsAndMissingOnesStayMinusOne()
    {
        final String jvm0 = "# HELP mmx_acceptor_takeovers_total Times ...\n# TYPE mmx_acceptor_takeovers_total counter\n" +
            "mmx_acceptor_takeovers_total{process=\"0\"} 3\nmmx_acceptor_takeovers_total{process=\"1\"} 0\n" +
            "mmx_acceptor_takeovers_total_other{process=\"1\"} 99\nmmx_leader_changes_total{process=\"0\"} 7\n";
        final String jvm2 = "mmx_acceptor_takeovers_total{process=\"4\"} 12\nmmx_acceptor_takeovers_total{process=\"9\"} 5\n";
        final long[] values = LocalCluster.counterByProcess(java.util.Arrays.asList(jvm0, null, jvm2),
            "mmx_acceptor_takeovers_total", 6);
        assertArrayEquals(new long[] {3, 0, -1, -1, 12, -1}, values,
            "another metric with the same prefix and a process beyond n are not read; a silent JVM's processes stay -1");
    }

    @Test
    void theClusterKeyIsReadableByItsOwnerOnly(@TempDir final Path dir) throws Exception
    {
        assumeTrue(dir.getFileSystem().supportedFileAttributeViews().contains("posix"), "POSIX permissions");
        try (LocalCluster cluster = LocalCluster.create(dir.resolve("c"), PLAN, 4, CHILD_JVM))
        {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(cluster.keyFile())));
            assertEquals(32, Files.size(cluster.keyFile()));
        }
    }

    @Test
    void aLauncherStoppedBySigtermLeavesNoSharedMemory(@TempDir final Path dir) throws Exception
    {
        final String javaBin = ProcessHandle.current().info().command().orElse("java");
        final Process launcher = new ProcessBuilder(javaBin, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
            SignalledLauncher.class.getName(), dir.resolve("c").toString()).redirectErrorStream(true).start();
        try
        {
            final java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(
                launcher.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
            final Path memory = Path.of(out.readLine().trim());
            assertTrue(Files.isDirectory(memory), "the launcher made its shared memory: " + memory);
            launcher.destroy(); // SIGTERM
            assertTrue(launcher.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "the launcher stops on SIGTERM");
            assertFalse(Files.exists(memory), "SIGTERM ran the cleanup: " + memory + " is gone");
        }
        finally
        {
            launcher.destroyForcibly();
        }
    }

    @Test
    void anExistingClusterIsRefusedUnlessReplacedOnPurpose(@TempDir final Path dir) throws Exception
    {
        final Path clusterDir = dir.resolve("c");
        final byte[] firstKey;
        try (LocalCluster first = LocalCluster.create(clusterDir, PLAN, 4, CHILD_JVM))
        {
            firstKey = Files.readAllBytes(first.keyFile());
        }
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> LocalCluster.create(clusterDir, PLAN, 4, CHILD_JVM));
        assertTrue(refused.getMessage().contains(clusterDir + " already holds a cluster") &&
            refused.getMessage().contains("--force"), refused.getMessage());
        assertArrayEquals(firstKey, Files.readAllBytes(clusterDir.resolve("cluster.key")), "the refused run changed nothing");

        Files.writeString(clusterDir.resolve("logs").resolve("jvm-0.log"), "an old run\n");
        try (LocalCluster second = LocalCluster.create(clusterDir, PLAN, 4, CHILD_JVM, LocalCluster.Existing.REPLACE))
        {
            assertFalse(java.util.Arrays.equals(firstKey, Files.readAllBytes(second.keyFile())), "a fresh key");
            assertFalse(Files.exists(clusterDir.resolve("logs").resolve("jvm-0.log")), "the old logs are gone");
        }

        final Path notACluster = dir.resolve("home");
        Files.createDirectories(notACluster);
        Files.writeString(notACluster.resolve("notes.txt"), "mine\n");
        final IllegalArgumentException foreign = assertThrows(IllegalArgumentException.class,
            () -> LocalCluster.create(notACluster, PLAN, 4, CHILD_JVM, LocalCluster.Existing.REPLACE));
        assertTrue(foreign.getMessage().contains("not a cluster directory"), foreign.getMessage());
        assertTrue(Files.exists(notACluster.resolve("notes.txt")), "a directory that is not a cluster's is never deleted");
    }

    @Test
    void aChildKilledWithSigkillLeavesNoPerfDataFile(@TempDir final Path dir) throws Exception
    {
        final Path perfData = Path.of(System.getProperty("java.io.tmpdir"), "hsperfdata_" + System.getProperty("user.name"));
        try (LocalCluster cluster = LocalCluster.create(dir.resolve("c"), PLAN, 4, CHILD_JVM))
        {
            cluster.start(0);
            cluster.awaitReady(0, Duration.ofSeconds(120));
            final long pid = cluster.pid(0);
            assertFalse(Files.exists(perfData.resolve(Long.toString(pid))), "a running child has no perf data file");
            cluster.kill(0);
            assertFalse(cluster.alive(0));
            assertFalse(Files.exists(perfData.resolve(Long.toString(pid))), "the killed child left " + perfData + "/" + pid);
        }
    }
}
