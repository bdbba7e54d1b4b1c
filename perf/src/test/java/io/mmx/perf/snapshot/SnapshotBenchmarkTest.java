package io.mmx.perf.snapshot;

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

/** The snapshot benchmark runs end to end on a small state and reports three positive ratios. */
class SnapshotBenchmarkTest
{
    @Test
    void reportsTakeCheckAndInstallAgainstPlainFiles(@TempDir final Path dir) throws Exception
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        SnapshotBenchmark.run(dir, 4, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        final String report = bytes.toString(StandardCharsets.UTF_8);
        final Matcher row = Pattern.compile("\\| (take|check|install)[^|]*\\| (\\d+) \\|[^|]*\\| (\\d+) \\| ([0-9.]+) \\|")
            .matcher(report);
        int rows = 0;
        while (row.find())
        {
            rows++;
            assertTrue(Double.parseDouble(row.group(4)) > 0, row.group());
        }
        assertEquals(3, rows, report);
    }
}
