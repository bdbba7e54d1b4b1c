package io.mmx.perf.niccache;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The QP-context cache is LRU within a set and maps QP ids to sets by their low bits. */
class NicQpContextCacheTest
{
    @Test
    void evictsTheLeastRecentlyUsedOfAFullSet()
    {
        final QpContextCache cache = new QpContextCache(3, 3);
        assertFalse(cache.access(1));
        assertFalse(cache.access(2));
        assertFalse(cache.access(3));
        assertTrue(cache.access(1));
        assertFalse(cache.access(4), "evicts 2, the least recently used");
        assertTrue(cache.access(1));
        assertTrue(cache.access(3));
        assertFalse(cache.access(2));
    }

    @Test
    void qpsInDifferentSetsDoNotEvictEachOther()
    {
        final QpContextCache cache = new QpContextCache(4, 1);
        for (int qp = 0; qp < 4; qp++)
        {
            assertFalse(cache.access(qp));
        }
        for (int qp = 0; qp < 4; qp++)
        {
            assertTrue(cache.access(qp), "QP " + qp);
        }
        assertFalse(cache.access(4), "same set as QP 0");
        assertFalse(cache.access(0));
        assertTrue(cache.access(1));
    }

    @Test
    void uniformOverTwiceTheCapacityMissesHalfTheTime()
    {
        final QpContextCache cache = new QpContextCache(256, 8);
        final SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < 20_000; i++)
        {
            cache.access(random.nextInt(512));
        }
        int misses = 0;
        final int measured = 200_000;
        for (int i = 0; i < measured; i++)
        {
            misses += cache.access(random.nextInt(512)) ? 0 : 1;
        }
        assertEquals(0.5, (double)misses / measured, 0.01);
    }

    @Test
    void rejectsAShapeThatIsNotWholeSets()
    {
        assertThrows(IllegalArgumentException.class, () -> new QpContextCache(10, 4));
        assertThrows(IllegalArgumentException.class, () -> new QpContextCache(0, 1));
    }

    @Test
    void aliasSamplerDrawsInProportionToWeight()
    {
        final AliasSampler sampler = new AliasSampler(new double[]{1, 0, 3, 6});
        final SplittableRandom random = new SplittableRandom(5);
        final int[] counts = new int[4];
        final int draws = 400_000;
        for (int i = 0; i < draws; i++)
        {
            counts[sampler.sample(random)]++;
        }
        assertEquals(0, counts[1]);
        assertEquals(0.1, counts[0] / (double)draws, 0.005);
        assertEquals(0.3, counts[2] / (double)draws, 0.005);
        assertEquals(0.6, counts[3] / (double)draws, 0.005);
    }
}
