package io.mmx.perf.niccache;

import io.mmx.planner.analysis.AnalysisOptions;
import io.mmx.planner.generate.Generators;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.placement.Placement;
import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanFile;
import io.mmx.planner.plan.Planner;
import io.mmx.planner.plan.ProgressListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The report writes its table and plots, and refuses bad arguments with one clear line. */
class NicCacheReportTest
{
    @Test
    void writesMarkdownAndTwoSvgPlots(@TempDir final Path dir) throws Exception
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = NicCacheReport.run(new String[]{"--out", dir.toString(), "--preset", "connectx3",
            "--references", "20000", "--nics", "1"}, new PrintStream(out), new PrintStream(err));
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        final String md = Files.readString(dir.resolve("nic-cache.md"));
        assertTrue(md.contains("| 16 | 8 |"), md);
        assertTrue(md.contains("full (4095)"), md);
        assertTrue(md.contains("knee"), md);
        for (final String svg : new String[]{"nic-cache-miss.svg", "nic-cache-capacity.svg"})
        {
            final String text = Files.readString(dir.resolve(svg));
            assertTrue(text.startsWith("<svg") && text.trim().endsWith("</svg>"), svg);
            assertEquals(4, text.split("<polyline").length - 1, svg + ": one line per processes-per-host");
        }
        try (var files = Files.list(dir))
        {
            assertFalse(files.anyMatch((p) -> p.toString().endsWith(".tmp")), "no temporary file left");
        }
    }

    @Test
    void comparesAPlanFileWithTheFullMeshOnItsPlacement(@TempDir final Path dir) throws Exception
    {
        final Graph graph = Generators.byName("random").generate(256, 6, 4);
        final Plan plan = Planner.analyzeAsPlan(graph, Placement.contiguous(256, 1, 16, 16),
            AnalysisOptions.defaults().withAttackBudgetMillis(50), ProgressListener.NONE);
        final Path file = dir.resolve("plan.json");
        PlanFile.write(plan, file);
        final Path out = dir.resolve("report");
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = NicCacheReport.run(new String[]{"--out", out.toString(), "--plan", file.toString(),
            "--references", "20000", "--nics", "1"}, new PrintStream(new ByteArrayOutputStream()),
            new PrintStream(err));
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        final String md = Files.readString(out.resolve("nic-cache.md"));
        assertTrue(md.contains("n = 256"), "n is the plan's");
        assertTrue(md.contains("| plan, degree 6 | 16 |"), md);
        assertTrue(md.contains("The plan beats the full mesh."), md);
    }

    @Test
    void unknownPresetIsOneLineAndExitCode2(@TempDir final Path dir)
    {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = NicCacheReport.run(new String[]{"--out", dir.toString(), "--preset", "connectx9"},
            new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
        assertEquals(2, code);
        final String message = err.toString(StandardCharsets.UTF_8).trim();
        assertTrue(message.contains("connectx9") && message.contains("connectx6"), message);
        assertEquals(1, message.lines().count(), message);
    }

    @Test
    void missingOutIsExitCode2()
    {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(2, NicCacheReport.run(new String[0], new PrintStream(new ByteArrayOutputStream()),
            new PrintStream(err)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--out DIR is required"));
    }
}
