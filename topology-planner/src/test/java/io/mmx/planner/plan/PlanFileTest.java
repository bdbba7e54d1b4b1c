package io.mmx.planner.plan;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.io.GraphFileException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

class PlanFileTest
{
    private static Plan cyclePlan(final int n)
    {
        final Graph.Builder builder = Graph.builder(n);
        for (int i = 0; i < n; i++)
        {
            builder.addEdge(i, (i + 1) % n);
        }
        final ObjectNode analysis = JsonNodeFactory.instance.objectNode();
        analysis.putObject("tolerance").put("certified_f", 7).put("ratio", 0.1 + 0.2);
        return Plan.sealed(builder.build(), 2, "circulant", 7, null, analysis);
    }

    private static String text(final Plan plan) throws IOException
    {
        final StringWriter out = new StringWriter();
        PlanFile.write(plan, out);
        return out.toString();
    }

    private static Plan parse(final String json)
    {
        return PlanFile.read(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), "p.json");
    }

    private static String error(final String json)
    {
        return assertThrows(GraphFileException.class, () -> parse(json)).getMessage();
    }

    @Test
    void roundTripKeepsGraphFieldsAndHash() throws IOException
    {
        final Plan plan = cyclePlan(12);
        final Plan back = parse(text(plan));
        assertEquals(plan.graph(), back.graph());
        assertEquals(plan.seed(), back.seed());
        assertEquals(plan.generator(), back.generator());
        assertEquals(plan.analysis(), back.analysis());
        assertEquals(plan.contentHash(), back.contentHash());
        assertEquals(plan.contentHash(), PlanDigest.of(back).text(), "hash recomputes after a round trip");
    }

    @Test
    void hashChangesWithAnyContent()
    {
        final Plan plan = cyclePlan(12);
        final Plan otherSeed = Plan.sealed(plan.graph(), 2, "circulant", 8, null, plan.analysis());
        assertNotEquals(plan.contentHash(), otherSeed.contentHash());
        final ObjectNode tampered = plan.analysis().deepCopy();
        ((ObjectNode)tampered.get("tolerance")).put("certified_f", 8);
        assertNotEquals(plan.contentHash(), Plan.sealed(plan.graph(), 2, "circulant", 7, null, tampered).contentHash());
    }

    @Test
    void writeIsAtomicAndReadable(@TempDir final Path dir) throws IOException
    {
        final Path file = dir.resolve("plan.json");
        PlanFile.write(cyclePlan(12), file);
        assertEquals(cyclePlan(12).graph(), PlanFile.read(file).graph());
    }

    @Test
    void rejectsBrokenFilesNamingTheField() throws IOException
    {
        final String good = text(cyclePlan(12));
        assertTrue(error(good.substring(0, good.length() / 2)).contains("truncated"));
        assertTrue(error(good.replace("[1, 11]", "[1, 11, 5]")).contains("asymmetric edge"));
        assertTrue(error(good.replace("[1, 11]", "[0, 1, 11]")).contains("itself"));
        assertTrue(error(good.replace("[1, 11]", "[1, 1, 11]")).contains("twice"));
        assertTrue(error(good.replace("\"seed\"", "\"sead\"")).contains("unknown field 'sead'"));
        assertTrue(error(good.replace("\"version\": 2", "\"version\": 9")).contains("version 9"));
        assertTrue(error(good.replace("\"edges\": 12", "\"edges\": 13")).contains("'edges'"));
        assertTrue(error(good.replace("\"n\": 12", "\"n\": 13")).contains("rows"));
        assertTrue(error(good.replace("\"format\": \"mmx-plan\",", "")).contains("missing field 'format'"));
        assertTrue(error("[]").contains("expected the plan"));
    }

    @Test
    void readsFromDiskFailsCleanlyForMissingFile(@TempDir final Path dir)
    {
        assertThrows(GraphFileException.class, () -> PlanFile.read(dir.resolve("nope.json")));
        assertFalse(Files.exists(dir.resolve("nope.json")));
    }
}
