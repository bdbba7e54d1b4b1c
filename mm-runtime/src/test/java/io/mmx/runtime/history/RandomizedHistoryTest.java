package io.mmx.runtime.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mmx.runtime.history.CheckResult.Verdict;
import io.mmx.runtime.history.Operation.Kind;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Randomized concurrent histories against a correct and a deliberately broken store; replay via -Dmmx.history.seed. */
class RandomizedHistoryTest
{
    private static final int THREADS = 4;
    private static final int OPS = 500;
    private static final int KEYS = 8;

    private static long seed()
    {
        final long seed = Long.getLong("mmx.history.seed", System.nanoTime());
        System.out.println("mmx.history.seed=" + seed);
        return seed;
    }

    private static History run(final long seed, final boolean broken) throws Exception
    {
        final ConcurrentHashMap<String, String> map = new ConcurrentHashMap<>();
        final HistoryRecorder rec = new HistoryRecorder(System::nanoTime);
        final CyclicBarrier start = new CyclicBarrier(THREADS);
        final Thread[] threads = new Thread[THREADS];
        final Throwable[] failure = new Throwable[1];
        for (int t = 0; t < THREADS; t++)
        {
            final int client = t;
            threads[t] = new Thread(() ->
            {
                try
                {
                    final Random rnd = new Random(seed * 31 + client);
                    // The broken store's per-thread cache: filled on first GET, never invalidated.
                    final Map<String, String> cache = new HashMap<>();
                    final Map<String, String> lastSeen = new HashMap<>();
                    start.await();
                    for (int i = 0; i < OPS; i++)
                    {
                        final String key = "k" + rnd.nextInt(KEYS);
                        final int r = rnd.nextInt(10);
                        if (r < 3)
                        {
                            final String v = "c" + client + "-" + i;
                            final HistoryRecorder.Handle h = rec.invoke(client, Kind.PUT, key, v, null);
                            map.put(key, v);
                            rec.complete(h, null);
                            lastSeen.put(key, v);
                        }
                        else if (r < 7)
                        {
                            final HistoryRecorder.Handle h = rec.invoke(client, Kind.GET, key, null, null);
                            final String v;
                            if (broken && cache.containsKey(key))
                            {
                                v = cache.get(key);
                            }
                            else
                            {
                                v = map.get(key);
                                cache.put(key, v);
                            }
                            rec.complete(h, v);
                            lastSeen.put(key, v);
                        }
                        else if (r < 9)
                        {
                            final String exp = lastSeen.get(key);
                            final String v = "c" + client + "-" + i;
                            final HistoryRecorder.Handle h = rec.invoke(client, Kind.CAS, key, v, exp);
                            final boolean ok = exp == null ? map.putIfAbsent(key, v) == null
                                : map.replace(key, exp, v);
                            rec.complete(h, Boolean.toString(ok));
                            if (ok)
                            {
                                lastSeen.put(key, v);
                            }
                        }
                        else
                        {
                            final HistoryRecorder.Handle h = rec.invoke(client, Kind.DELETE, key, null, null);
                            map.remove(key);
                            rec.complete(h, null);
                            lastSeen.remove(key);
                        }
                    }
                }
                catch (final Throwable e)
                {
                    synchronized (failure)
                    {
                        failure[0] = e;
                    }
                }
            });
            threads[t].start();
        }
        for (final Thread t : threads)
        {
            t.join();
        }
        if (failure[0] != null)
        {
            throw new AssertionError(failure[0]);
        }
        return rec.history();
    }

    @Test
    void correctStoreIsLinearizable() throws Exception
    {
        final long seed = seed();
        final History h = run(seed, false);
        final CheckResult r = LinearizabilityChecker.check(h, new KeyValueModel(), 10_000_000);
        assertEquals(Verdict.OK, r.verdict(), "seed=" + seed + " " + r);
    }

    @Test
    void staleCacheStoreIsCaught() throws Exception
    {
        final long base = seed();
        int failures = 0;
        for (long s = base; s < base + 3; s++)
        {
            final CheckResult r = LinearizabilityChecker.check(run(s, true), new KeyValueModel(), 10_000_000);
            if (r.verdict() == Verdict.NOT_LINEARIZABLE)
            {
                failures++;
            }
        }
        assertTrue(failures > 0, "seed base=" + base);
    }

    @Test
    void fileRoundTrip(@TempDir final Path dir) throws Exception
    {
        final History h = new History(List.of(
            new Operation(0, 1, Kind.PUT, "k\t1", "-", null, null, 5, 9),
            new Operation(1, 2, Kind.CAS, "k\\2", "a\nb", "x\ry", "true", 6, Long.MAX_VALUE),
            new Operation(2, 3, Kind.GET, "", null, null, "\\-", 7, 8)));
        final Path p = dir.resolve("h.tsv");
        HistoryFile.save(h, p);
        assertEquals(h, HistoryFile.load(p));
        HistoryFile.save(run(seed(), false), p);
        assertEquals(THREADS * OPS, HistoryFile.load(p).ops().size());
    }

    @Test
    void recorderRejectsDoubleCompletionAndReportsPendingAsUnknown()
    {
        final AtomicLong clock = new AtomicLong();
        final HistoryRecorder rec = new HistoryRecorder(clock::incrementAndGet);
        final HistoryRecorder.Handle a = rec.invoke(1, Kind.PUT, "k", "v", null);
        final HistoryRecorder.Handle b = rec.invoke(2, Kind.GET, "k", null, null);
        rec.complete(a, null);
        assertThrows(IllegalStateException.class, () -> rec.complete(a, null));
        assertThrows(IllegalStateException.class, () -> rec.completeUnknown(a));
        final History h = rec.history();
        assertEquals(3, h.ops().get(0).completeNs());
        assertTrue(h.ops().get(1).unknown());
        rec.completeUnknown(b);
        assertThrows(IllegalStateException.class, () -> rec.complete(b, "v"));
    }
}
