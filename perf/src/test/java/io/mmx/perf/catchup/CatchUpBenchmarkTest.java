package io.mmx.perf.catchup;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The catch-up benchmark runs end to end (one length from the decided logs, one past them) and reports both. */
class CatchUpBenchmarkTest
{
    @Test
    void reportsCatchUpAgainstCommitTime() throws Exception
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CatchUpBenchmark.run(new long[]{100, 3000}, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        final String report = bytes.toString(StandardCharsets.UTF_8);
        final Matcher row = Pattern.compile("\\| (\\d+) \\| (\\d+) \\| (\\d+) \\| ([0-9.]+) \\|").matcher(report);
        int rows = 0;
        while (row.find())
        {
            rows++;
            assertTrue(Long.parseLong(row.group(3)) > 0, row.group());
        }
        assertEquals(2, rows, report);
    }
}
