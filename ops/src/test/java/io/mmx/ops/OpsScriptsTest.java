package io.mmx.ops;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The ops scripts under {@code mvn verify}: shellcheck finds nothing (skipped where shellcheck is
 * missing, except under CI=true), every script answers {@code --help}, and {@code ops/test/e2e-netns}
 * passes (skipped, with its reason, where network namespaces cannot be made: not root, no iproute2).
 */
class OpsScriptsTest
{
    private static final Path OPS = Path.of(System.getProperty("user.dir"));
    /** The e2e test exits 77 when it cannot run here (automake's convention for a skip). */
    private static final int SKIPPED = 77;

    /** Exit code and combined output of one run. */
    private record Run(int exit, String output)
    {
    }

    @Test
    void shellcheckFindsNothing() throws Exception
    {
        final Run version = run(List.of("shellcheck", "--version"), 30);
        final String missing = "shellcheck is not installed (apt-get install shellcheck; .ci/run installs it when run as root)";
        if ("true".equals(System.getenv("CI")))
        {
            assertEquals(0, version.exit(), "CI must lint the ops scripts, but " + missing);
        }
        Assumptions.assumeTrue(version.exit() == 0, "skipped: " + missing);
        final List<String> command = new ArrayList<>(List.of("shellcheck", "-x"));
        for (final Path script : scripts())
        {
            command.add(OPS.relativize(script).toString());
        }
        command.add("lib/common.sh");
        for (final String launcher : List.of("mmx", "topo", "perf"))
        {
            command.add("../bin/" + launcher);
        }
        final Run check = run(command, 300); // about 12 s of CPU; a loaded machine stretches it
        assertEquals(0, check.exit(), "shellcheck findings:\n" + check.output());
    }

    /**
     * bin/mmx and bin/topo archive the classes their JVMs load once per build (bin/lib/class-archive.sh;
     * 'mmx selfcheck' and a small 'topo plan' are the workloads) and start every JVM from it; what
     * the JVM says of the archive, even of a damaged one, goes to stderr, so stdout stays the
     * command's own (scripts parse 'mmx status --json' and 'topo export').
     */
    @Test
    void theLaunchersArchiveTheirClassesAndKeepStdoutClean() throws Exception
    {
        for (final String[] launcher : new String[][]{
            {"mmx", "mm-runtime/target/mm-runtime.jsa", "mmx "},
            {"topo", "topology-planner/target/topology-planner.jsa", "topo "}})
        {
            final Path archive = OPS.resolveSibling(launcher[1]);
            final String stdoutOnly = "../bin/" + launcher[0] + " --version 2>/dev/null";
            final Run plain = run(List.of("bash", "-c", "MMX_CDS=0 " + stdoutOnly), 120);
            assertEquals(0, plain.exit(), plain.output());
            assertTrue(plain.output().startsWith(launcher[2]), plain.output());

            Files.deleteIfExists(archive);
            final Run first = run(List.of("bash", "-c", stdoutOnly), 300); // builds the archive: one training run
            assertEquals(plain, first);
            assertTrue(Files.size(archive) > 1_000_000, "no class archive at " + archive);
            final Run used = run(List.of("bash", "-c", "../bin/" + launcher[0] + " --version; MMX_JAVA_OPTS=" +
                "'-Xlog:class+load=info' ../bin/" + launcher[0] + " --version | grep -c 'shared objects file (top)'"), 120);
            assertTrue(used.output().matches("(?s)" + launcher[2] + ".*\\n[1-9][0-9]*\\n"),
                launcher[0] + ": classes not loaded from the archive: " + used.output());

            // A damaged archive newer than the jar: the JVM refuses it on stderr and runs without it.
            Files.delete(archive);
            Files.writeString(archive, "not a class archive");
            try
            {
                assertEquals(plain, run(List.of("bash", "-c", stdoutOnly), 120));
            }
            finally
            {
                Files.deleteIfExists(archive);
            }
        }
    }

    /**
     * ops/dist writes an archive whose launchers run from its own lib/ with no Maven and no source
     * tree, and ops/bundle --dist ships it: the units run the shipped launcher, SHA256SUMS covers it,
     * and a deploy dry run takes the bundle.
     */
    @Test
    void theDistributionRunsOnItsOwnAndBundlesShipIt() throws Exception
    {
        final Path dir = Files.createTempDirectory("mmx-ops-dist");
        try
        {
            final Path archive = dir.resolve("mmx.tar.gz");
            final Run made = run(List.of(OPS.resolve("dist").toString(), "--out", archive.toString()), 300);
            assertEquals(0, made.exit(), made.output());
            final Run refused = run(List.of(OPS.resolve("dist").toString(), "--out", dir.toString()), 60);
            assertEquals(2, refused.exit(), refused.output());

            final Path unpacked = Files.createDirectories(dir.resolve("host"));
            assertEquals(0, run(List.of("tar", "-C", unpacked.toString(), "-xzf", archive.toString()), 60).exit());
            final Path top;
            try (Stream<Path> tops = Files.list(unpacked))
            {
                top = tops.findFirst().orElseThrow();
            }
            // Only java on the PATH: no mvn, and the launchers are not in the source tree.
            final String javaBin = Path.of(ProcessHandle.current().info().command().orElseThrow()).getParent().toString();
            final Run mmx = run(List.of("env", "PATH=" + javaBin + ":/usr/bin:/bin", "MMX_CDS=0",
                top.resolve("bin/mmx").toString(), "--version"), 120);
            final Run topo = run(List.of("env", "PATH=" + javaBin + ":/usr/bin:/bin", "MMX_CDS=0",
                top.resolve("bin/topo").toString(), "--version"), 120);
            final Run source = run(List.of("bash", "-c", "MMX_CDS=0 ../bin/mmx --version 2>/dev/null"), 120);
            assertEquals(0, mmx.exit(), mmx.output());
            assertEquals(source.output(), mmx.output(), "the distribution runs the version built here");
            assertEquals(0, topo.exit(), topo.output());
            assertTrue(topo.output().startsWith("topo (mmx) " + source.output().strip().substring("mmx ".length())),
                topo.output());
            assertTrue(Files.isRegularFile(top.resolve("LICENSE")) && Files.isRegularFile(top.resolve("lib/mm-runtime.jar")));

            final Path plan = dir.resolve("plan.json");
            final Run planned = run(List.of("../bin/topo", "plan", "--n", "16", "--degree", "4", "--seed", "1", "--racks",
                "2", "--hosts-per-rack", "2", "--procs-per-host", "4", "--attack-budget", "200ms", "--out",
                plan.toString()), 300);
            assertEquals(0, planned.exit(), planned.output());
            final Path bundles = dir.resolve("bundles");
            final Run bundled = run(List.of(OPS.resolve("bundle").toString(), "--plan", plan.toString(), "--inventory",
                OPS.resolve("examples/inventory").toString(), "--out", bundles.toString(), "--dist", archive.toString(),
                "--root", "/srv/mmx-{name}"), 300);
            assertEquals(0, bundled.exit(), bundled.output());
            final Path host = bundles.resolve("rack1/host3");
            assertTrue(Files.readString(host.resolve("mmx-node.service"))
                .contains("ExecStart=/srv/mmx-r1-h1/current/dist/bin/mmx node "), "the unit runs the shipped launcher");
            assertTrue(Files.readString(host.resolve("mmx.env")).contains("MMX_BIN=/srv/mmx-r1-h1/current/dist/bin/mmx"));
            assertTrue(Files.readString(host.resolve("SHA256SUMS")).contains("dist/lib/mm-runtime.jar"),
                "SHA256SUMS covers the distribution");
            final Run dry = run(List.of(OPS.resolve("deploy").toString(), "--bundle", bundles.toString(), "--transport",
                "local", "--dry-run"), 120);
            assertEquals(0, dry.exit(), dry.output());

            // A file that is not a distribution: one error, exit 2, no bundles written.
            final Path notDist = Files.writeString(dir.resolve("not.tar.gz"), "not an archive");
            final Run bad = run(List.of(OPS.resolve("bundle").toString(), "--plan", plan.toString(), "--inventory",
                OPS.resolve("examples/inventory").toString(), "--out", dir.resolve("bad-bundles").toString(), "--dist",
                notDist.toString()), 300);
            assertEquals(2, bad.exit(), bad.output());
            assertTrue(bad.output().contains("is not an mmx distribution"), bad.output());
            assertTrue(Files.notExists(dir.resolve("bad-bundles")));
        }
        finally
        {
            run(List.of("rm", "-rf", dir.toString()), 60);
        }
    }

    @Test
    void theSelfcheckCommitsAProbe() throws Exception
    {
        final Run check = run(List.of("../bin/mmx", "selfcheck"), 300);
        assertEquals(0, check.exit(), check.output());
        assertTrue(check.output().contains("selfcheck: OK: a memory daemon and a node of 3 processes committed a probe"),
            check.output());
    }

    @Test
    void everyScriptAnswersHelp() throws Exception
    {
        final List<Path> scripts = scripts();
        assertTrue(scripts.size() >= 8, "found only " + scripts);
        for (final Path script : scripts)
        {
            final Run help = run(List.of(script.toString(), "--help"), 30);
            final String name = script.getFileName().toString();
            assertEquals(0, help.exit(), name + " --help failed: " + help.output());
            assertTrue(help.output().startsWith(name + ": ") && help.output().contains("Usage:"),
                name + " --help does not start with its name and a usage line: " + help.output());
        }
    }

    @Test
    void aMissingOrEmptyBundleIsRefusedWithExit2AndNothingElse() throws Exception
    {
        final Path empty = Files.createTempDirectory("mmx-ops-empty-bundle");
        try
        {
            for (final String script : List.of("health", "deploy", "rollback", "rolling-restart"))
            {
                for (final List<String> bundle : List.of(List.<String>of(), List.of("--bundle", "/nonexistent/bundle"),
                    List.of("--bundle", empty.toString()), List.of("--bundle", empty.toString(), "--hosts", "9")))
                {
                    final List<String> command = new ArrayList<>(List.of(OPS.resolve(script).toString()));
                    command.addAll(bundle);
                    command.addAll(List.of("--transport", "local", "--dry-run"));
                    if ("health".equals(script))
                    {
                        command.remove("--dry-run");
                    }
                    final Run r = run(command, 60);
                    assertEquals(2, r.exit(), String.join(" ", command) + ":\n" + r.output());
                    assertEquals(1, r.output().lines().count(), "one error line: " + r.output());
                    assertTrue(r.output().startsWith(script + ": error: "), r.output());
                }
            }
        }
        finally
        {
            Files.delete(empty);
        }
    }

    @Test
    void endToEndWithNetworkNamespaces() throws Exception
    {
        // The real node (bin/mmx, memd regions, one namespace per host). mm-runtime is packaged earlier
        // in the same reactor, so bin/mmx finds its jar fresh and starts without building.
        final Run e2e = run(List.of(OPS.resolve("test/e2e-netns").toString()), 600);
        System.out.println(e2e.output());
        Assumptions.assumeTrue(e2e.exit() != SKIPPED, () -> e2e.output().lines()
            .filter(line -> line.contains("SKIP")).findFirst().orElse("skipped"));
        assertEquals(0, e2e.exit(), "ops/test/e2e-netns failed:\n" + e2e.output());
        assertTrue(e2e.output().contains("e2e-netns: PASS"), e2e.output());
    }

    /** The executable scripts: ops/*, ops/test/* without an extension. */
    private static List<Path> scripts() throws IOException
    {
        final List<Path> scripts = new ArrayList<>();
        for (final Path dir : List.of(OPS, OPS.resolve("test")))
        {
            try (Stream<Path> files = Files.list(dir))
            {
                files.filter(Files::isRegularFile).filter(Files::isExecutable)
                    .filter(f -> !f.getFileName().toString().contains(".")).sorted().forEach(scripts::add);
            }
        }
        return scripts;
    }

    private static Run run(final List<String> command, final int timeoutSeconds)
        throws IOException, InterruptedException
    {
        final ProcessBuilder builder = new ProcessBuilder(command).directory(OPS.toFile()).redirectErrorStream(true);
        final Process process;
        try
        {
            process = builder.start();
        }
        catch (final IOException ex)
        {
            return new Run(-1, command.get(0) + " could not start: " + ex.getMessage());
        }
        final Path log = Files.createTempFile("mmx-ops-test", ".log");
        try
        {
            final Thread drain = new Thread(() ->
            {
                try
                {
                    Files.copy(process.getInputStream(), log, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
                catch (final IOException ignored)
                {
                    // the process was destroyed; what was read is in the log
                }
            });
            drain.start();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS))
            {
                process.descendants().forEach(ProcessHandle::destroy);
                process.destroy();
                process.waitFor(30, TimeUnit.SECONDS);
                drain.join(TimeUnit.SECONDS.toMillis(10));
                fail(String.join(" ", command) + " did not finish within " + timeoutSeconds + " s:\n" +
                    Files.readString(log, StandardCharsets.UTF_8));
            }
            drain.join(TimeUnit.SECONDS.toMillis(10));
            return new Run(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        }
        finally
        {
            Files.deleteIfExists(log);
        }
    }
}
