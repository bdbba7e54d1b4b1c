package io.mmx.planner.plan;

import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Every form of a plan's identity stays byte for byte what plan files, regions and messages
 * written before hold: the expected values come from a plan file written by an older release and
 * from the encodings in docs/plan-format.md and docs/memory-fabric.md, recomputed outside Java.
 */
class PlanDigestTest
{
    /** The content hash recorded in the version-1 plan file (written by mmx 0.1). */
    private static final String VERSION1_HASH = "sha256:58d17096f5c3e240c657d7121f83809ce45f0f6a87dcddc44dab10a4d0101020";

    @Test
    void contentHashOfAnOldPlanFileIsTheOneItRecords(@TempDir final Path dir) throws IOException
    {
        final Path file = dir.resolve("version1.json");
        try (InputStream in = PlanDigestTest.class.getResourceAsStream("/plans/version1.json"))
        {
            Files.copy(in, file);
        }
        final Plan plan = PlanFile.read(file);
        assertEquals(VERSION1_HASH, plan.contentHash());
        assertEquals(VERSION1_HASH, PlanDigest.of(plan).text(), "recomputed hash");
        assertEquals(PlanDigest.of(plan), plan.digest(), "the recorded hash parses to the computed digest");
        assertEquals(0x58d17096f5c3e240L, plan.digest().id64(), "region header word and frame keys: big-endian prefix");
        assertEquals(0x40e2c3f59670d158L, plan.digest().membershipFingerprint(), "membership: little-endian prefix");
    }

    @Test
    void graphDigestIsSha256OfTheLittleEndianAdjacency()
    {
        // A 4-cycle: n = 4, offsets 0 2 4 6 8, targets 1 3 0 2 1 3 0 2, each a little-endian int32;
        // sha256 of those 56 bytes computed with Python's hashlib.
        final Graph ring = Graph.fromEdges(4, new int[]{0, 1, 2, 3}, new int[]{1, 2, 3, 0});
        assertEquals("sha256:2b63e2e23ac6847235f858931578af92388dc543b6c72f99120e85bb04afe9d5",
            PlanDigest.ofGraph(ring).text());
    }

    @Test
    void shortFormsReadTheFirstEightBytes()
    {
        final byte[] bytes = new byte[PlanDigest.LENGTH];
        for (int i = 0; i < bytes.length; i++)
        {
            bytes[i] = (byte)i;
        }
        final PlanDigest digest = PlanDigest.of(bytes);
        assertEquals(0x0001020304050607L, digest.id64());
        assertEquals(0x0706050403020100L, digest.membershipFingerprint());
        assertEquals(digest.membershipFingerprint(), PlanDigest.membershipFingerprint(bytes));
        assertEquals("0001020304050607", digest.shortHex());
        assertEquals(digest, PlanDigest.parse(digest.text()));
        assertEquals(digest, PlanDigest.parse(digest.text().substring(PlanDigest.TEXT_PREFIX.length())));
        assertEquals(0x0706050403020100L, PlanDigest.of64(0x0706050403020100L).membershipFingerprint(),
            "of64 zero-extends little-endian");
    }

    @Test
    void malformedDigestsAreRefusedNamingTheFix()
    {
        final IllegalArgumentException text = assertThrows(IllegalArgumentException.class,
            () -> PlanDigest.parse("sha256:abcd"));
        assertTrue(text.getMessage().contains("'sha256:abcd'") && text.getMessage().contains("topo plan"),
            text.getMessage());
        final IllegalArgumentException bytes = assertThrows(IllegalArgumentException.class,
            () -> PlanDigest.of(new byte[31]));
        assertTrue(bytes.getMessage().contains("31"), bytes.getMessage());
    }
}
