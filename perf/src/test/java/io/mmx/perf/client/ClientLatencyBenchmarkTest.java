package io.mmx.perf.client;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The client latency benchmark runs end to end on a few calls and reports four rows with positive ratios. */
class ClientLatencyBenchmarkTest
{
    @Test
    void reportsTheClientAgainstInClusterSubmits(@TempDir final Path dir) throws Exception
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ClientLatencyBenchmark.run(dir, 100, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        final String report = bytes.toString(StandardCharsets.UTF_8);
        final Matcher row = Pattern.compile("\\| (submit|client)[^|]*\\| (\\d+) \\|[^\\n]*\\| ([0-9.]+) \\|\\n")
            .matcher(report);
        int rows = 0;
        while (row.find())
        {
            rows++;
            assertTrue(Double.parseDouble(row.group(3)) > 0, row.group());
        }
        assertEquals(4, rows, report);
    }
}
