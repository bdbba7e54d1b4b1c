package io.mmx.planner.plan;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Plans found in a directory by what they hold: other JSON files skipped, a changed file read again. */
class PlanDirectoryTest
{
    @TempDir
    Path dir;

    private static Plan cycle(final int n)
    {
        final Graph.Builder builder = Graph.builder(n);
        for (int i = 0; i < n; i++)
        {
            builder.addEdge(i, (i + 1) % n);
        }
        return Plan.sealed(builder.build(), 2, "circulant", n, null, JsonNodeFactory.instance.objectNode());
    }

    @Test
    void findsAPlanByWhatItHoldsAndSeesAFileChange() throws Exception
    {
        final PlanDirectory plans = new PlanDirectory(dir);
        assertNull(plans.find(p -> true), "an empty directory holds no plan");
        final Plan five = cycle(5);
        final Plan seven = cycle(7);
        Files.writeString(dir.resolve("a-notes.json"), "{\"not\": \"a plan\"}");
        Files.writeString(dir.resolve("ignored.txt"), "not json");
        PlanFile.write(five, dir.resolve("b.json"));
        final PlanDirectory.Found found = plans.find(p -> p.digest().equals(five.digest()));
        assertEquals(dir.resolve("b.json"), found.file());
        assertEquals(five.contentHash(), found.plan().contentHash());
        assertNull(plans.find(p -> p.n() == 7));

        // The same file now holds another plan: read again, not served from what was seen before.
        PlanFile.write(seven, dir.resolve("b.json"));
        Files.setLastModifiedTime(dir.resolve("b.json"), FileTime.fromMillis(System.currentTimeMillis() + 5_000));
        assertEquals(seven.contentHash(), plans.find(p -> p.n() == 7).plan().contentHash());
        assertNull(plans.find(p -> p.n() == 5));
        assertNull(new PlanDirectory(dir.resolve("missing")).find(p -> true), "a missing directory holds no plan");
    }
}
