package io.mmx.perf.fabric;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Smoke test: the fabric benchmark runs end to end with tiny durations. It runs in a child JVM
 * because Agrona needs {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED}, which the
 * perf module's test JVM does not get from the root pom.
 */
class FabricBenchmarkTest
{
    @Test
    void runsEveryCaseAndReportsRatios() throws Exception
    {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final Process p = new ProcessBuilder(java, "-Xmx256m", "--add-exports",
            "java.base/jdk.internal.misc=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
            FabricBenchmark.class.getName(), "--duration-ms", "50", "--warmup-ms", "20")
            .redirectErrorStream(true).start();
        final String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "benchmark did not finish within 60 s");
        assertEquals(0, p.exitValue(), output);
        for (final String row : new String[]{"baseline  cas", "baseline  read", "shm       cas", "shm       read",
            "memd      cas", "memd      read"})
        {
            assertTrue(output.contains(row), "missing row '" + row + "' in:\n" + output);
        }
        assertTrue(output.contains("ops/s ratio"), output);
    }
}
