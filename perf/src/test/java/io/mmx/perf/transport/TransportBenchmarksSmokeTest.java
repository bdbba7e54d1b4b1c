package io.mmx.perf.transport;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs both harnesses with tiny counts in a child JVM (Agrona 2.x needs an export flag that this
 * module's test JVM does not get), so that they keep working; the real runs are manual.
 */
class TransportBenchmarksSmokeTest
{
    private static String run(final Class<?> main, final String... args) throws IOException, InterruptedException
    {
        final List<String> command = new java.util.ArrayList<>(List.of(
            new File(System.getProperty("java.home"), "bin/java").getPath(),
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xmx1g",
            "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        final byte[] output = process.getInputStream().readAllBytes();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "harness finished");
        final String text = new String(output, StandardCharsets.UTF_8);
        System.out.println(text);
        assertEquals(0, process.exitValue(), text);
        return text;
    }

    @Test
    void transportBenchmarkReportsAllThreeTransports() throws Exception
    {
        final String text = run(TransportBenchmark.class, "500", "5000", "yielding");
        assertTrue(text.contains("datagram-channel") && text.contains("aeron-udp") && text.contains("aeron-ipc"), text);
    }

    @Test
    void membershipScaleBenchmarkRunsASmallSize() throws Exception
    {
        final String text = run(MembershipScaleBenchmark.class, "7", "64");
        assertTrue(text.lines().anyMatch(line -> line.trim().startsWith("64 ")), text);
    }
}
