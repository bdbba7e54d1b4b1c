package io.mmx.runtime.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code mmx sim}: its summary line, exit codes, and one clear error per bad argument. */
class SimCommandTest
{
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(final String... args)
    {
        final CommandLine line = MmxCommand.commandLine();
        line.setErr(new PrintWriter(err, true));
        line.setOut(new PrintWriter(out, true));
        return line.execute(args);
    }

    private String lastLine()
    {
        final String[] lines = out.toString().trim().split("\n");
        return lines[lines.length - 1];
    }

    @Test
    void aCleanSweepEndsWithItsSummaryAndExitsZero()
    {
        assertEquals(MmxCommand.OK, run("sim", "--seeds", "1000-1003", "--n-range", "3-5"), out + "\n" + err);
        assertTrue(lastLine().matches("sim: 4 seeds, 0 safety violations, 0 liveness failures, [0-9.]+ seeds/s"),
            lastLine());
    }

    @Test
    void aVariantReportsTheSeedThatCatchesItWithItsReplay()
    {
        assertEquals(MmxCommand.OK, run("sim", "--seeds", "1-50", "--variant", "two-write-transition"), out.toString());
        assertTrue(out.toString().contains("caught by seed"), out.toString());
        assertTrue(out.toString().contains("replay: bin/mmx sim --seeds "), out.toString());
        assertTrue(lastLine().matches("sim: \\d+ seeds, 1 safety violations, 0 liveness failures, [0-9.]+ seeds/s"),
            lastLine());
    }

    @Test
    void theHostSweepEndsWithItsSummaryAndCatchesAReplicaVariant()
    {
        assertEquals(MmxCommand.OK, run("sim", "--host", "--seeds", "2-3"), out + "\n" + err);
        assertTrue(lastLine().matches("sim --host: 2 seeds, 0 safety violations, 0 liveness failures, [0-9.]+ seeds/s"),
            lastLine());
        out.getBuffer().setLength(0);
        assertEquals(MmxCommand.OK, run("sim", "--host", "--seeds", "1-5", "--variant", "filter-forgets-older"),
            out.toString());
        // Which seed catches it first follows the core's timing; the report names it and its replay.
        final Matcher caught = Pattern.compile("caught by seed ([1-5]) ").matcher(out.toString());
        assertTrue(caught.find(), out.toString());
        final String seed = caught.group(1);
        assertTrue(out.toString().contains("replay: bin/mmx sim --seeds " + seed + "-" + seed +
            " --host --variant filter-forgets-older"), out.toString());
    }

    @Test
    void badArgumentsExitTwoWithOneSentence()
    {
        for (final String[] args : new String[][] {
            {"sim", "--seeds", "5-3"},
            {"sim", "--seeds", "x"},
            {"sim", "--seeds", "1-2", "--faults", "crash,bogus"},
            {"sim", "--seeds", "1-2", "--variant", "nope"},
            {"sim", "--seeds", "1-2", "--n", "0"},
            {"sim", "--seeds", "1-2", "--n", "3", "--n-range", "1-4"},
            {"sim", "--seeds", "1-2", "--slots", "0"},
            {"sim", "--host", "--seeds", "1-2", "--faults", "crash"},
            {"sim", "--host", "--seeds", "1-2", "--n", "1"},
            {"sim", "--host", "--seeds", "1-2", "--variant", "nope"},
            {"sim", "--host", "--seeds", "1-2", "--every-seed"},
            {"sim"}})
        {
            err.getBuffer().setLength(0);
            assertEquals(MmxCommand.BAD_INPUT, run(args), String.join(" ", args) + ": " + err);
            assertTrue(err.toString().startsWith("mmx sim: error: "), err.toString());
        }
    }
}
