package io.mmx.planner.generate;

import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FamilyGeneratorsTest
{
    @Test
    void circulantJoinsNearestOffsets()
    {
        final Graph graph = new CirculantGenerator().generate(10, 4, 0);
        GraphChecks.assertConnectedRegular(graph, 10, 4, "C10(1,2)");
        assertArrayEquals(new int[] {1, 2, 8, 9}, graph.neighbours(0));
        assertArrayEquals(new int[] {3, 4, 6, 7}, graph.neighbours(5));
    }

    @Test
    void circulantOddDegreeAddsOppositeProcess()
    {
        final Graph graph = new CirculantGenerator().generate(12, 5, 0);
        GraphChecks.assertConnectedRegular(graph, 12, 5, "C12(1,2,6)");
        assertArrayEquals(new int[] {1, 2, 6, 10, 11}, graph.neighbours(0));
        final Graph complete = new CirculantGenerator().generate(8, 7, 0);
        GraphChecks.assertConnectedRegular(complete, 8, 7, "K8 as a circulant");
    }

    @Test
    void circulantCycleIsTheRing()
    {
        final Graph ring = new CirculantGenerator().generate(12, 2, 0);
        for (int v = 0; v < 12; v++)
        {
            assertTrue(ring.hasEdge(v, (v + 1) % 12));
        }
    }

    @Test
    void hypercubeJoinsIdsOneBitApart()
    {
        final Graph cube = new HypercubeGenerator().generate(16, 4, 0);
        GraphChecks.assertConnectedRegular(cube, 16, 4, "Q4");
        for (int v = 0; v < 16; v++)
        {
            for (final int w : cube.neighbours(v))
            {
                assertEquals(1, Integer.bitCount(v ^ w), "Q4 edge " + v + "-" + w);
            }
        }
        assertEquals(4, cube.eccentricity(0));
    }

    @Test
    void hypercubeRejectsOtherSizesNamingTheFix()
    {
        final HypercubeGenerator cube = new HypercubeGenerator();
        final IllegalArgumentException size = assertThrows(IllegalArgumentException.class,
            () -> cube.generate(100, 7, 0));
        assertTrue(size.getMessage().contains("power of two") && size.getMessage().contains("use n = 64 or 128"),
            size.getMessage());
        final IllegalArgumentException degree = assertThrows(IllegalArgumentException.class,
            () -> cube.generate(4096, 8, 0));
        assertTrue(degree.getMessage().contains("use degree 12"), degree.getMessage());
    }

    @Test
    void registryKnowsEveryPlainGeneratorAndListsThemOnError()
    {
        assertEquals(List.of("random", "circulant", "hypercube"), Generators.names());
        assertEquals("random", Generators.byName(Generators.DEFAULT).name());
        assertTrue(Generators.byName("hypercube") instanceof HypercubeGenerator);
        final IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
            () -> Generators.byName("petersen"));
        assertTrue(unknown.getMessage().contains("'petersen'") &&
            unknown.getMessage().contains("random, circulant, hypercube, rack-aware"), unknown.getMessage());
        final IllegalArgumentException rackAware = assertThrows(IllegalArgumentException.class,
            () -> Generators.byName("rack-aware"));
        assertTrue(rackAware.getMessage().contains("needs a placement"), rackAware.getMessage());
    }
}
