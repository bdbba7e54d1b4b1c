package io.mmx.planner.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static io.mmx.planner.cli.TopoCommandTest.topo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code topo export} as the ops scripts drive it: facts on stdout, plain files, tampering refused. */
class ExportCommandTest
{
    @Test
    void exportsFactsPlacementHostsAndEdges(@TempDir final Path dir) throws IOException
    {
        final Path plan = dir.resolve("plan.json");
        assertEquals(0, topo("plan", "--n", "16", "--degree", "4", "--seed", "1", "--racks", "2", "--hosts-per-rack",
            "2", "--procs-per-host", "4", "--attack-budget", "100ms", "--out", plan.toString()).exitCode());
        final int certified = new ObjectMapper().readTree(plan.toFile()).path("analysis").path("tolerance")
            .path("certified_f").asInt();
        final Path placement = dir.resolve("placement");
        final Path hosts = dir.resolve("hosts");
        final Path edges = dir.resolve("edges");
        final TopoCommandTest.Run run = topo("export", plan.toString(), "--placement", placement.toString(),
            "--hosts", hosts.toString(), "--edges", edges.toString());
        assertEquals(0, run.exitCode(), run.err());
        final List<String> facts = run.out().lines().toList();
        assertTrue(facts.get(0).matches("content_hash sha256:[0-9a-f]{64}"), facts.get(0));
        assertTrue(facts.containsAll(List.of("n 16", "degree 4", "racks 2", "hosts_per_rack 2", "procs_per_host 4",
            "certified_f " + certified, "host_failures 0 " + certified, "rack_failures 0 " + certified)), run.out());
        assertTrue(facts.stream().anyMatch(l -> l.startsWith("host_failures 1 ")), run.out());

        final List<String> placed = Files.readAllLines(placement, StandardCharsets.UTF_8);
        assertEquals(16, placed.size());
        assertEquals("5 0 1", placed.get(5));
        assertEquals("15 1 3", placed.get(15));
        assertEquals(List.of("host 0 rack 0 ids 0-3", "host 1 rack 0 ids 4-7", "host 2 rack 1 ids 8-11",
            "host 3 rack 1 ids 12-15"), Files.readAllLines(hosts, StandardCharsets.UTF_8));
        final List<String> edgeLines = Files.readAllLines(edges, StandardCharsets.UTF_8);
        assertEquals("16 32", edgeLines.get(0));
        assertEquals(33, edgeLines.size());
    }

    @Test
    void idSpecJoinsRuns()
    {
        assertEquals("0-3,8", ExportCommand.idSpec(new int[] {0, 1, 2, 3, 8}));
        assertEquals("7", ExportCommand.idSpec(new int[] {7}));
        assertEquals("1,3-4", ExportCommand.idSpec(new int[] {1, 3, 4}));
    }

    @Test
    void refusesATamperedPlanAndAPlanWithoutPlacement(@TempDir final Path dir) throws IOException
    {
        final Path plan = dir.resolve("plan.json");
        assertEquals(0, topo("plan", "--n", "16", "--degree", "4", "--seed", "1", "--attack-budget", "100ms", "--out",
            plan.toString()).exitCode());
        final TopoCommandTest.Run noPlacement = topo("export", plan.toString(), "--hosts", dir.resolve("h").toString());
        assertEquals(ExitCodes.BAD_INPUT, noPlacement.exitCode());
        assertTrue(noPlacement.err().contains("has no placement"), noPlacement.err());
        assertFalse(Files.exists(dir.resolve("h")));

        final String text = Files.readString(plan).replaceFirst("\"seed\" *: *1", "\"seed\" : 2");
        Files.writeString(plan, text);
        final Path edges = dir.resolve("edges");
        final TopoCommandTest.Run tampered = topo("export", plan.toString(), "--edges", edges.toString());
        assertEquals(ExitCodes.BAD_INPUT, tampered.exitCode());
        assertTrue(tampered.err().contains("was changed after topo wrote it"), tampered.err());
        assertFalse(Files.exists(edges), "nothing is written for a refused plan");
    }
}
