package io.mmx.planner.cli;

import io.mmx.planner.plan.PlanFile;
import io.mmx.planner.plan.ProgressListener;
import io.mmx.planner.report.PlanReport;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.*;

/**
 * What the commands that read a plan's results print, for fixed plan files: the summary, {@code topo
 * export}, {@code topo diff} and {@code topo report} (less its expansion profile, which a time budget
 * decides). The expected outputs in {@code plans/readers/} were printed by the code that read the
 * analysis by JSON path; the typed reads ({@code Plan.analysisResults()}) must print the same. The
 * plans: version 1 with racks and hosts, one without placement, a circulant (no probable bound, no
 * exact value) and a hypercube (exact by Harper's theorem).
 */
class PlanReadersGoldenTest
{
    private static String resource(final String name) throws IOException
    {
        final String path = name.equals("version1.json") ? "/plans/version1.json" : "/plans/readers/" + name;
        try (InputStream in = PlanReadersGoldenTest.class.getResourceAsStream(path))
        {
            assertNotNull(in, path);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The report without the expansion profile section (its attacks run against a time budget). */
    private static String withoutProfile(final String html)
    {
        final int from = html.indexOf("<h2>Expansion profile</h2>");
        final int to = html.indexOf("<h2>Spectrum</h2>");
        assertTrue(from > 0 && to > from, "the report has its profile section before the spectrum");
        return html.substring(0, from) + html.substring(to);
    }

    @ParameterizedTest
    @ValueSource(strings = {"version1", "unplaced", "circulant", "hypercube"})
    void readersPrintWhatTheyPrintedBefore(final String name, @TempDir final Path dir) throws IOException
    {
        final Path plan = dir.resolve(name + ".json");
        Files.writeString(plan, resource(name + ".json"));

        final StringWriter summary = new StringWriter();
        PlanSummary.print(PlanFile.readSealed(plan), new PrintWriter(summary, true));
        assertEquals(resource(name + ".summary.txt"), summary.toString(), "summary");

        final TopoCommandTest.Run export = TopoCommandTest.topo("export", plan.toString());
        assertEquals(0, export.exitCode(), export.err());
        assertEquals(resource(name + ".export.txt"), export.out(), "export");

        final TopoCommandTest.Run diff = TopoCommandTest.topo("diff", plan.toString(), plan.toString());
        assertEquals(0, diff.exitCode(), diff.err());
        assertEquals(resource(name + ".diff.txt"), diff.out(), "diff");

        final Path page = PlanReport.write(PlanFile.readSealed(plan), Files.createDirectory(dir.resolve("report")),
            Duration.ofMillis(50), ProgressListener.NONE);
        assertEquals(withoutProfile(resource(name + ".report.html")), withoutProfile(Files.readString(page)), "report");
    }
}
