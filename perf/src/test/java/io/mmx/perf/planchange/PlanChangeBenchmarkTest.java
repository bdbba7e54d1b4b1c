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

/**
 * The plan-change benchmark runs end to end on memd (a regraph, the replacement, a grow and a shrink)
 * and reports each row, with the sessions each change opened (all before it was proposed: the nodes are
 * prepared, as mmx reconfigure does) and closed.
 */
class PlanChangeBenchmarkTest
{
    @TempDir
    Path dir;

    @Test
    void reportsEachChangesStallAndTheSessionsItRewired() throws Exception
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PlanChangeBenchmark.run(dir, 1, true, true, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        final String report = bytes.toString(StandardCharsets.UTF_8);
        final Matcher row = Pattern.compile("\\| (regraph|replace|grow|shrink)[^|]* (\\d) \\| (\\d) of (\\d) \\| (\\d+) \\| " +
            "(\\d+) \\| ([0-9.]+) \\| ([0-9.]+) \\| ([0-9.]+) \\| (\\d+) / (\\d+) \\| (\\d+) \\((\\d+)\\) / (\\d+) \\| " +
            "(\\d+) / (\\d+) \\|").matcher(report);
        final java.util.List<String> kinds = new java.util.ArrayList<>();
        while (row.find())
        {
            kinds.add(row.group(1));
            assertTrue(Integer.parseInt(row.group(6)) > 0, "commits continued through the change: " + row.group());
            assertTrue(Double.parseDouble(row.group(7)) > 0 && Double.parseDouble(row.group(8)) > 0, row.group());
            // The links follow the diff: a session opened per added edge end the nodes up host, one closed
            // per removed one, and none for the edges both plans keep.
            assertEquals(row.group(15), row.group(12), "sessions opened = added edge ends: " + row.group());
            assertEquals(row.group(15), row.group(13), "all of them before the change was proposed: " + row.group());
            assertEquals(row.group(16), row.group(14), "sessions closed = removed edge ends: " + row.group());
            assertTrue(Integer.parseInt(row.group(10)) + Integer.parseInt(row.group(11)) > 0, row.group());
        }
        assertEquals(java.util.List.of("regraph", "replace", "grow", "shrink"), kinds, report);
        assertTrue(report.contains("| replace (node 3 lost, joins empty) 2 | 3 of 4 |"), report);
        assertTrue(report.contains("| shrink 20 -> 16 (node 4 leaves) 4 | 4 of 5 |"), report);
    }
}
