package io.mmx.perf.planchange;

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

/** The plan-change benchmark runs end to end (one regraph, then the replacement) and reports both rows. */
class PlanChangeBenchmarkTest
{
    @TempDir
    Path dir;

    @Test
    void reportsEachChangesStallAgainstItsBaseline() throws Exception
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PlanChangeBenchmark.run(dir, 1, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        final String report = bytes.toString(StandardCharsets.UTF_8);
        final Matcher row = Pattern.compile("\\| (regraph|replace)[^|]* (\\d) \\| (\\d) of 4 \\| (\\d+) \\| (\\d+) \\| " +
            "([0-9.]+) \\| ([0-9.]+) \\| ([0-9.]+) \\| (\\d+) / (\\d+) \\| (\\d+) / (\\d+) \\|").matcher(report);
        int rows = 0;
        while (row.find())
        {
            rows++;
            assertTrue(Integer.parseInt(row.group(5)) > 0, "commits continued through the change: " + row.group());
            assertTrue(Double.parseDouble(row.group(6)) > 0 && Double.parseDouble(row.group(7)) > 0, row.group());
            assertEquals(80, Integer.parseInt(row.group(11)), "an era of n = 16, degree 4 opens 2 x 32 + 16 links");
        }
        assertEquals(2, rows, report);
        assertTrue(report.contains("| replace (node 3 lost, joins empty) 2 | 3 of 4 |"), report);
    }
}
