package io.mmx.planner.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The CLI as a user drives it: exit codes, messages, files written or not. */
class TopoCommandTest
{
    /** What one run printed and returned. */
    record Run(int exitCode, String out, String err)
    {
    }

    static Run topo(final String... args)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final var line = TopoCommand.commandLine();
        line.setOut(new PrintWriter(out, true));
        line.setErr(new PrintWriter(err, true));
        final int code = line.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    private static void assertNoFiles(final Path dir) throws IOException
    {
        try (var files = Files.list(dir))
        {
            assertEquals(0, files.count(), "no file, not even a partial one, is left behind");
        }
    }

    @Test
    void planWritesAPlanThatVerifies(@TempDir final Path dir)
    {
        final Path plan = dir.resolve("plan.json");
        final Run run = topo("plan", "--n", "64", "--degree", "4", "--seed", "3", "--attack-budget", "200ms",
            "--out", plan.toString());
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("certified"), run.out());
        assertTrue(Files.exists(plan));
        final Run verify = topo("verify", plan.toString());
        assertEquals(0, verify.exitCode(), verify.err());
        assertTrue(verify.out().contains("OK"));
    }

    @Test
    void smallPlanIsExactAndBracketed(@TempDir final Path dir) throws IOException
    {
        final Path plan = dir.resolve("p.json");
        assertEquals(0, topo("plan", "--n", "24", "--degree", "3", "--attack-budget", "200ms", "--out",
            plan.toString()).exitCode());
        final JsonNode t = new ObjectMapper().readTree(plan.toFile()).path("analysis").path("tolerance");
        assertTrue(t.hasNonNull("exact_f"), "n = 24 is solved exactly");
        assertTrue(t.get("certified_f").asInt() <= t.get("exact_f").asInt());
        assertTrue(t.get("exact_f").asInt() <= t.get("attack_f").asInt());
    }

    @Test
    void badArgumentsFailWithOneClearErrorAndNoFile(@TempDir final Path dir) throws IOException
    {
        final String out = dir.resolve("plan.json").toString();
        final String[][] cases = {
            {"--n", "1", "--degree", "1"},
            {"--n", "8", "--degree", "8"},
            {"--n", "9", "--degree", "3"},
            {"--n", "16", "--degree", "4", "--generator", "petersen"},
            {"--n", "16", "--degree", "4", "--racks", "2"},
            {"--n", "16", "--degree", "4", "--racks", "1", "--hosts-per-rack", "1", "--procs-per-host", "4"},
            {"--n", "16", "--degree", "4", "--attack-budget", "soon"},
            {"--n", "sixteen", "--degree", "4"},
        };
        final String[] expected = {"n = 1", "degree = 8", "must be even", "unknown generator 'petersen'",
            "--hosts-per-rack", "do not fit", "not a duration", "sixteen"};
        for (int i = 0; i < cases.length; i++)
        {
            final String[] args = new String[cases[i].length + 3];
            args[0] = "plan";
            System.arraycopy(cases[i], 0, args, 1, cases[i].length);
            args[args.length - 2] = "--out";
            args[args.length - 1] = out;
            final Run run = topo(args);
            assertEquals(ExitCodes.BAD_INPUT, run.exitCode(), String.join(" ", args));
            assertTrue(run.err().contains(expected[i]), "case " + i + ": " + run.err());
            assertEquals(1, run.err().lines().filter(l -> l.contains("error")).count(), "one error line: " + run.err());
        }
        assertNoFiles(dir);
    }

    @Test
    void aPlanTooLargeForTheHeapIsRefusedNamingTheHeapItNeeds(@TempDir final Path dir) throws IOException
    {
        assumeTrue(Runtime.getRuntime().maxMemory() < io.mmx.planner.plan.HeapEstimate.planBytes(100_000_000, 8),
            "this JVM's heap could hold the plan");
        final Run run = topo("plan", "--n", "100000000", "--degree", "8", "--out", dir.resolve("plan.json").toString());
        assertEquals(ExitCodes.BAD_INPUT, run.exitCode(), run.err());
        assertTrue(run.err().contains("GiB of heap") && run.err().contains("-Xmx"), run.err());
        assertEquals(1, run.err().lines().filter(l -> l.contains("error")).count(), "one error line: " + run.err());
        assertFalse(run.err().contains("OutOfMemoryError"), run.err());
        assertNoFiles(dir);
    }

    @Test
    void theSameSeedGivesTheSamePlanHashIncluded(@TempDir final Path dir) throws IOException
    {
        // Large enough that the stage timings and the attack searches differ from run to run.
        final String[] shape = {"--n", "2000", "--degree", "8", "--seed", "11", "--racks", "2", "--hosts-per-rack", "4",
            "--procs-per-host", "250", "--attack-budget", "300ms"};
        final String[] hashes = new String[2];
        for (int i = 0; i < 2; i++)
        {
            final Path plan = dir.resolve("plan" + i + ".json");
            final String[] args = new String[shape.length + 3];
            args[0] = "plan";
            System.arraycopy(shape, 0, args, 1, shape.length);
            args[args.length - 2] = "--out";
            args[args.length - 1] = plan.toString();
            assertEquals(0, topo(args).exitCode());
            hashes[i] = new ObjectMapper().readTree(plan.toFile()).path("content_hash").asText();
        }
        assertEquals(hashes[0], hashes[1], "seed 11 twice");
        assertEquals(0, topo("verify", dir.resolve("plan1.json").toString()).exitCode());
    }

    @Test
    void aVersionOnePlanIsStillReadAndVerified(@TempDir final Path dir) throws IOException
    {
        final Path plan = dir.resolve("version1.json");
        try (var in = TopoCommandTest.class.getResourceAsStream("/plans/version1.json"))
        {
            Files.copy(in, plan);
        }
        assertEquals(1, new ObjectMapper().readTree(plan.toFile()).path("version").asInt());
        final Run verify = topo("verify", plan.toString());
        assertEquals(0, verify.exitCode(), verify.out() + verify.err());
        final Run export = topo("export", plan.toString());
        assertEquals(0, export.exitCode(), export.err());
        assertTrue(export.out().startsWith("content_hash sha256:58d17096"), export.out());
    }

    @Test
    void commandsRefuseAPlanEditedByHand(@TempDir final Path dir) throws IOException
    {
        final Path plan = dir.resolve("plan.json");
        assertEquals(0, topo("plan", "--n", "32", "--degree", "4", "--seed", "5", "--attack-budget", "100ms", "--out",
            plan.toString()).exitCode());
        final String good = Files.readString(plan);
        final String edited = good.replaceFirst("\"generator\": \"random\"", "\"generator\": \"circulant\"");
        assertNotEquals(good, edited);
        Files.writeString(plan, edited);
        for (final String[] args : new String[][] {{"analyze", plan.toString()},
            {"report", plan.toString(), "--out", dir.resolve("report").toString()},
            {"grow", plan.toString(), "--add", "2", "--out", dir.resolve("grown.json").toString()}})
        {
            final Run run = topo(args);
            assertEquals(ExitCodes.BAD_INPUT, run.exitCode(), String.join(" ", args) + ": " + run.out() + run.err());
            assertTrue(run.err().contains("content_hash") && run.err().contains("topo verify"), run.err());
        }
        assertFalse(Files.exists(dir.resolve("report")) || Files.exists(dir.resolve("grown.json")));
    }

    @Test
    void analyzeReadsEdgeListsAndGraphMlAndRejectsBrokenOnes(@TempDir final Path dir) throws IOException
    {
        final Path petersen = dir.resolve("petersen.txt");
        Files.writeString(petersen, "10 15\n0 1\n1 2\n2 3\n3 4\n4 0\n0 5\n1 6\n2 7\n3 8\n4 9\n5 7\n7 9\n9 6\n6 8\n8 5\n");
        final Run run = topo("analyze", petersen.toString(), "--json");
        assertEquals(0, run.exitCode(), run.err());
        final JsonNode t = new ObjectMapper().readTree(run.out()).path("tolerance");
        assertEquals(8, t.get("exact_f").asInt(), "the Petersen graph tolerates 8 crashes (DESIGN.md §1)");

        final Path cycle = dir.resolve("c12.graphml");
        final StringBuilder xml = new StringBuilder("<graphml><graph edgedefault=\"undirected\">");
        for (int i = 0; i < 12; i++)
        {
            xml.append("<node id=\"v").append(i).append("\"/>");
        }
        for (int i = 0; i < 12; i++)
        {
            xml.append("<edge source=\"v").append(i).append("\" target=\"v").append((i + 1) % 12).append("\"/>");
        }
        Files.writeString(cycle, xml.append("</graph></graphml>").toString());
        final Run c12 = topo("analyze", cycle.toString(), "--json");
        assertEquals(7, new ObjectMapper().readTree(c12.out()).path("tolerance").get("exact_f").asInt());

        final Path asymmetricLoop = dir.resolve("bad.txt");
        Files.writeString(asymmetricLoop, "3 2\n0 1\n2 2\n");
        final Run bad = topo("analyze", asymmetricLoop.toString());
        assertEquals(ExitCodes.BAD_INPUT, bad.exitCode());
        assertTrue(bad.err().contains("self-loop"), bad.err());
        assertEquals(ExitCodes.BAD_INPUT, topo("analyze", dir.resolve("missing.txt").toString()).exitCode());
    }

    @Test
    void verifyRejectsTamperedPlansNamingTheField(@TempDir final Path dir) throws IOException
    {
        final Path plan = dir.resolve("plan.json");
        assertEquals(0, topo("plan", "--n", "32", "--degree", "4", "--attack-budget", "100ms", "--out",
            plan.toString()).exitCode());
        final String good = Files.readString(plan);

        final Path inflated = dir.resolve("inflated.json");
        final int certified = new ObjectMapper().readTree(good).path("analysis").path("tolerance").path("certified_f").asInt();
        Files.writeString(inflated, good.replace("\"certified_f\" : " + certified, "\"certified_f\" : " + (certified + 5)));
        final Run run = topo("verify", inflated.toString());
        assertEquals(ExitCodes.VERIFY_FAILED, run.exitCode(), run.out() + run.err());
        assertTrue(run.err().contains("content_hash"), run.err());
        assertTrue(run.err().contains("analysis.tolerance.certified_f"), run.err());

        final Path asymmetric = dir.resolve("asym.json");
        final String firstRow = good.substring(good.indexOf("\"adjacency\": [") + 14);
        final String row = firstRow.substring(firstRow.indexOf('['), firstRow.indexOf(']') + 1);
        Files.writeString(asymmetric, good.replace(row, row.replace("[", "[31, ").replace("[31, 31, ", "[30, 31, ")));
        final Run asym = topo("verify", asymmetric.toString());
        assertEquals(ExitCodes.BAD_INPUT, asym.exitCode(), asym.out() + asym.err());
        assertTrue(asym.err().contains("adjacency"), asym.err());

        final Path truncated = dir.resolve("cut.json");
        Files.writeString(truncated, good.substring(0, good.length() / 2));
        final Run cut = topo("verify", truncated.toString());
        assertEquals(ExitCodes.BAD_INPUT, cut.exitCode());
        assertTrue(cut.err().contains("truncated"), cut.err());
    }

    @Test
    void probableBoundOnlyForPlansTheGeneratorDrew(@TempDir final Path dir) throws IOException
    {
        final Path plan = dir.resolve("plan.json");
        final Run run = topo("plan", "--n", "2000", "--degree", "8", "--attack-budget", "100ms", "--out", plan.toString());
        assertEquals(0, run.exitCode(), run.err());
        // The seed was drawn at random: print it so that a failure replays with --seed.
        System.out.println("TopoCommandTest probable plan: " +
            run.out().lines().filter(l -> l.startsWith("seed ")).findFirst().orElse("no seed line"));
        assertTrue(run.out().contains("drawn at random"), run.out());
        assertTrue(run.out().contains("probable   >="), run.out());
        final String good = Files.readString(plan);
        final JsonNode root = new ObjectMapper().readTree(good);
        final JsonNode t = root.path("analysis").path("tolerance");
        assertEquals(root.path("seed").asLong(), root.path("analysis").path("settings").path("seed").asLong());
        assertTrue(t.path("probable_f").isInt(), t.toString());
        assertTrue(t.path("probable_failure_probability").asDouble() <= 1e-9, t.toString());
        assertTrue(t.path("certified_f").asInt() <= t.path("probable_f").asInt(), t.toString());
        assertTrue(t.path("probable_f").asInt() <= t.path("attack_f").asInt(), "a 1e-9 event or a wrong count: " + t);
        assertEquals(0, topo("verify", plan.toString()).exitCode());

        final Path inflated = dir.resolve("inflated.json");
        final int probable = t.path("probable_f").asInt();
        Files.writeString(inflated, good.replace("\"probable_f\" : " + probable, "\"probable_f\" : " + (probable + 9)));
        final Run rejected = topo("verify", inflated.toString());
        assertEquals(ExitCodes.VERIFY_FAILED, rejected.exitCode());
        assertTrue(rejected.err().contains("analysis.tolerance.probable_f"), rejected.err());

        final Run imported = topo("analyze", plan.toString(), "--attack-budget", "100ms", "--json");
        assertEquals(0, imported.exitCode(), imported.err());
        final JsonNode it = new ObjectMapper().readTree(imported.out()).path("tolerance");
        assertTrue(it.path("probable_f").isNull(), it.toString());
        assertTrue(it.path("probable_justification").asText().startsWith("Not applicable"), it.toString());

        final Run report = topo("report", plan.toString(), "--out", dir.resolve("report").toString(),
            "--profile-budget", "200ms");
        assertEquals(0, report.exitCode(), report.err());
        assertTrue(Files.readString(dir.resolve("report").resolve("index.html")).contains("probable " + probable));

        final Run strict = topo("plan", "--n", "2000", "--degree", "8", "--attack-budget", "100ms",
            "--probable-failure", "1e-30", "--seed", "4", "--out", dir.resolve("strict.json").toString(), "--json");
        assertEquals(0, strict.exitCode(), strict.err());
        assertTrue(new ObjectMapper().readTree(strict.out()).path("tolerance").path("probable_f").asInt() < probable);

        final Run bad = topo("plan", "--n", "100", "--degree", "4", "--probable-failure", "2", "--out",
            dir.resolve("bad.json").toString());
        assertEquals(ExitCodes.BAD_INPUT, bad.exitCode());
        assertTrue(bad.err().contains("--probable-failure"), bad.err());
        assertFalse(Files.exists(dir.resolve("bad.json")));
    }

    @Test
    void hypercubePlansAreExactByHarper(@TempDir final Path dir) throws IOException
    {
        final Run run = topo("plan", "--n", "1024", "--degree", "10", "--generator", "hypercube", "--seed", "1",
            "--attack-budget", "100ms", "--out", dir.resolve("q10.json").toString(), "--json");
        assertEquals(0, run.exitCode(), run.err());
        final JsonNode t = new ObjectMapper().readTree(run.out()).path("tolerance");
        assertEquals(763, t.path("exact_f").asInt(), t.toString());
        assertEquals("harper", t.path("exact_method").asText());
        assertEquals(763, t.path("certified_f").asInt());
        assertEquals(763, t.path("attack_f").asInt());
        assertTrue(t.path("probable_f").isNull());
        assertEquals(0, topo("verify", dir.resolve("q10.json").toString()).exitCode());
    }

    @Test
    void growShrinkAndDiffReportTheRewiring(@TempDir final Path dir)
    {
        final Path plan = dir.resolve("plan.json");
        final Path grown = dir.resolve("grown.json");
        final Path shrunk = dir.resolve("shrunk.json");
        // A fixed seed: without one, plan draws a fresh seed each run, and how many of the 6 spliced
        // edges tear down an old one depends on the graph drawn (5 or 6).
        assertEquals(0, topo("plan", "--n", "64", "--degree", "6", "--seed", "11", "--racks", "2", "--hosts-per-rack", "4",
            "--procs-per-host", "9", "--attack-budget", "100ms", "--out", plan.toString()).exitCode());
        final Run grow = topo("grow", plan.toString(), "--add", "2", "--attack-budget", "100ms", "--out", grown.toString());
        assertEquals(0, grow.exitCode(), grow.err());
        assertTrue(grow.out().contains("64 -> 66"), grow.out());
        assertTrue(grow.out().contains("192 -> 198: 6 to tear down, 12 to connect"), grow.out());
        assertEquals(0, topo("verify", grown.toString()).exitCode());

        final Run shrink = topo("shrink", grown.toString(), "--ids", "3,10", "--attack-budget", "100ms", "--out",
            shrunk.toString());
        assertEquals(0, shrink.exitCode(), shrink.err());
        assertTrue(shrink.out().contains("renumbered"), shrink.out());
        assertEquals(0, topo("verify", shrunk.toString()).exitCode());

        final Run diff = topo("diff", plan.toString(), grown.toString());
        assertEquals(0, diff.exitCode(), diff.err());
        assertTrue(diff.out().contains("tolerance"), diff.out());

        // The live processes after the change, by their ids in the new plan: all 66 up reach every
        // acceptor; one process alone (degree 6) reaches 7 of 66, where a quorum needs 34.
        final Run all = topo("diff", plan.toString(), grown.toString(), "--live", "0-65");
        assertEquals(0, all.exitCode(), all.err());
        assertTrue(all.out().contains("66 live processes reach |N[S]| = 66 of n = 66 acceptors; a quorum needs 34"), all.out());
        final Run one = topo("diff", plan.toString(), grown.toString(), "--live", "5");
        assertEquals(ExitCodes.NO_QUORUM, one.exitCode(), one.out());
        assertTrue(one.err().contains("refused") && one.err().contains("|N[S]| = 7 of n = 66 acceptors; a quorum needs 34"),
            one.err());
        final Run outside = topo("diff", plan.toString(), grown.toString(), "--live", "0-66");
        assertEquals(ExitCodes.BAD_INPUT, outside.exitCode());
        assertTrue(outside.err().contains("live process 66 is not in the plan (ids 0-65)"), outside.err());
        assertFalse(outside.out().contains("processes  64 -> 66"), "bad input is refused before the diff is printed");
    }

    @Test
    void reportWritesAnHtmlPageWithCharts(@TempDir final Path dir) throws IOException
    {
        final Path plan = dir.resolve("plan.json");
        assertEquals(0, topo("plan", "--n", "128", "--degree", "4", "--racks", "2", "--hosts-per-rack", "4",
            "--procs-per-host", "16", "--attack-budget", "100ms", "--out", plan.toString()).exitCode());
        final Run run = topo("report", plan.toString(), "--out", dir.resolve("report").toString(), "--profile-budget",
            "500ms");
        assertEquals(0, run.exitCode(), run.err());
        final String html = Files.readString(dir.resolve("report").resolve("index.html"));
        assertTrue(html.contains("<svg"));
        assertTrue(html.contains("Expansion profile"));
        assertTrue(html.contains("n/2 = 64"));
        assertTrue(html.contains("Failure domains"));
        // The tolerance bracket shows the three kinds of number, and its legend names them.
        final JsonNode t = new ObjectMapper().readTree(plan.toFile()).path("analysis").path("tolerance");
        assertTrue(html.contains(">certified " + t.path("certified_f").asInt() + "<"), html);
        assertTrue(html.contains(">probable " + t.path("probable_f").asInt() + "<"), html);
        assertTrue(html.contains(">attack " + t.path("attack_f").asInt() + "<"), html);
        for (final String legend : new String[] {"proof (certified)", "probable (over the seed)", "open, up to the witness",
            "ruled out by the witness"})
        {
            assertTrue(html.contains(">" + legend + "<"), legend);
        }
    }

    @Test
    void helpListsCommandsAndExitCodes()
    {
        final Run run = topo("--help");
        assertEquals(0, run.exitCode());
        for (final String command : new String[] {"plan", "analyze", "verify", "diff", "grow", "shrink", "report"})
        {
            assertTrue(run.out().contains(command), command);
        }
        assertTrue(run.out().contains("Exit codes"));
        final Run none = topo();
        assertEquals(ExitCodes.BAD_INPUT, none.exitCode(), "no command is a usage error");
        assertTrue(none.err().startsWith("topo: error: name a command"), none.err());
        assertEquals(List.of(), UsageCheck.problems(TopoCommand.commandLine()));
    }

    /** A command with a bug. */
    @picocli.CommandLine.Command(name = "boom")
    static final class Boom implements java.util.concurrent.Callable<Integer>
    {
        @Override
        public Integer call()
        {
            throw new NullPointerException("nothing here");
        }
    }

    @Test
    void anUnexpectedFailureIsOneSentenceNotAStackTrace()
    {
        final StringWriter err = new StringWriter();
        final var line = TopoCommand.commandLine();
        line.addSubcommand("boom", new Boom());
        line.setErr(new PrintWriter(err, true));
        assertEquals(ExitCodes.IO_ERROR, line.execute("boom"));
        assertTrue(err.toString().startsWith("topo boom: error: unexpected java.lang.NullPointerException: nothing here at "),
            err.toString());
        assertTrue(err.toString().contains("this is a bug"), err.toString());
        assertEquals(1, err.toString().lines().count(), "one line, no stack trace: " + err);
    }

    @Test
    void errorsNameTheOptionAndTheFix(@TempDir final Path dir) throws IOException
    {
        final Run exact = topo("plan", "--n", "16", "--degree", "4", "--exact-limit", "-1", "--out",
            dir.resolve("p.json").toString());
        assertEquals(ExitCodes.BAD_INPUT, exact.exitCode());
        assertTrue(exact.err().contains("--exact-limit -1 is out of range: give 0..64"), exact.err());
        assertFalse(exact.err().contains("exactVertexLimit"), exact.err());

        final Run generator = topo("plan", "--n", "16", "--degree", "4", "--generator", "petersen", "--out",
            dir.resolve("p.json").toString());
        assertTrue(generator.err().contains("random, circulant, hypercube, rack-aware"), generator.err());

        final Run intoDirectory = topo("plan", "--n", "16", "--degree", "4", "--attack-budget", "100ms", "--out",
            dir.toString());
        assertEquals(ExitCodes.BAD_INPUT, intoDirectory.exitCode(), intoDirectory.err());
        assertTrue(intoDirectory.err().contains(dir + " is a directory"), intoDirectory.err());

        for (final String command : new String[] {"verify", "report", "export", "diff"})
        {
            final Run missing = command.equals("report") ? topo(command, dir.resolve("nope.json").toString(), "--out",
                dir.resolve("r").toString()) : command.equals("diff") ?
                topo(command, dir.resolve("nope.json").toString(), dir.resolve("nope.json").toString()) :
                topo(command, dir.resolve("nope.json").toString());
            assertEquals(ExitCodes.BAD_INPUT, missing.exitCode(), command + ": " + missing.err());
            assertTrue(missing.err().contains("nope.json: no such file; give the path of a plan"), missing.err());
        }
        assertNoFiles(dir);
    }
}
