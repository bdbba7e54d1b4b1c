package io.mmx.planner.plan;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mmx.planner.analysis.AnalysisOptions;
import io.mmx.planner.generate.RandomRegularGenerator;
import io.mmx.planner.placement.QpAccounting;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@link Plan#analysisResults()} reads back exactly what the plan file holds: writing the typed
 * results again gives the same analysis object, field for field, for a plan with failure domains
 * and for a version-1 plan file written by mmx 0.1.
 */
class PlanAnalysisTest
{
    private static void assertRoundTrip(final Plan plan)
    {
        final PlanAnalysis results = plan.analysisResults();
        final ObjectNode again = PlanAnalysisJson.of(plan.graph(), results.graph(), results.settings(),
            plan.placement() == null ? null : QpAccounting.of(plan.graph(), plan.placement()),
            results.racks(), results.hosts());
        assertEquals(plan.analysis().toPrettyString(), again.toPrettyString());
    }

    @Test
    void aPlanWithFailureDomainsReadsBackFieldForField()
    {
        final Plan plan = Planner.plan(new PlanRequest(120, 6, 3, RandomRegularGenerator.NAME,
            new PlacementLayout(2, 3, 20), null, AnalysisOptions.defaults().withSeed(3).withAttackBudgetMillis(50)),
            ProgressListener.NONE);
        assertRoundTrip(plan);
        final PlanAnalysis results = plan.analysisResults();
        assertNotNull(results.racks());
        assertNotNull(results.hosts());
        assertEquals(plan.analysis().path("tolerance").path("certified_f").asInt(), results.certifiedF());
        assertEquals(plan.analysis().path("tolerance").path("attack_f").asInt(), results.attackF());
        assertEquals(plan.analysis().path("tolerance").path("message_passing_f").asInt(), results.messagePassingF());
    }

    @Test
    void aVersionOnePlanFileReadsBackFieldForField(@TempDir final Path dir) throws IOException
    {
        final Path file = dir.resolve("version1.json");
        try (InputStream in = PlanAnalysisTest.class.getResourceAsStream("/plans/version1.json"))
        {
            Files.copy(in, file);
        }
        assertRoundTrip(PlanFile.read(file));
    }

    @Test
    void aMissingFieldIsNamed()
    {
        final Plan plan = Planner.plan(new PlanRequest(16, 4, 1, RandomRegularGenerator.NAME, null, null,
            AnalysisOptions.defaults().withSeed(1).withAttackBudgetMillis(20)), ProgressListener.NONE);
        assertNull(plan.analysisResults().racks(), "no placement, no failure domains");
        final ObjectNode analysis = plan.analysis().deepCopy();
        ((ObjectNode)analysis.get("tolerance")).remove("certified_f");
        final Plan edited = new Plan(plan.version(), plan.graph(), plan.degree(), plan.generator(), plan.seed(),
            plan.placement(), analysis, plan.contentHash());
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, edited::analysisResults);
        assertTrue(ex.getMessage().startsWith("analysis.tolerance.certified_f is missing"), ex.getMessage());
    }
}
