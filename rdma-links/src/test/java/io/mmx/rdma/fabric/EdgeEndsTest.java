package io.mmx.rdma.fabric;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pool logic memd sessions and verbs queue pairs share: one connection per edge end, those made
 * ahead kept until bound or expired, a connection that loses the race to join discarded uncounted.
 */
class EdgeEndsTest
{
    private record End(String edge, int serial)
    {
    }

    private final List<End> closedByPool = new ArrayList<>();
    private final List<End> discarded = new ArrayList<>();
    private final EdgeEnds<String, End>[] pool = newPool();
    private int serial;

    @SuppressWarnings("unchecked")
    private EdgeEnds<String, End>[] newPool()
    {
        final EdgeEnds<String, End>[] holder = new EdgeEnds[1];
        holder[0] = new EdgeEnds<>((end) ->
        {
            closedByPool.add(end);
            holder[0].closed(end.edge(), end); // as a connection reports its close
        }, discarded::add);
        return holder;
    }

    private End make(final String edge)
    {
        return new End(edge, ++serial);
    }

    private int ahead(final List<String> edges, final long nowNs, final long keepNs) throws Exception
    {
        return pool[0].connectAhead(edges, this::make, nowNs, keepNs, "edge-ends-test").get(10, TimeUnit.SECONDS);
    }

    @Test
    void anEdgeEndHasOneConnectionWhicheverThreadMadeIt() throws Exception
    {
        final End a = pool[0].bind("0-1", this::make);
        assertSame(a, pool[0].bind("0-1", this::make), "a second binding shares the edge's connection");
        assertEquals(1, ahead(List.of("0-1", "0-2"), 0, 100), "0-1 has one: only 0-2 is made");
        assertEquals(1, pool[0].unbound());
        final End b = pool[0].bind("0-2", this::make);
        assertEquals(2, b.serial(), "the link binds on the connection made ahead");
        assertEquals(0, pool[0].unbound());
        assertEquals(2, pool[0].opened());
        assertEquals(2, pool[0].open());
        pool[0].expire(Long.MAX_VALUE - 1);
        assertTrue(closedByPool.isEmpty(), "a bound connection never expires");
    }

    @Test
    void aConnectionMadeAheadThatNoLinkBindsClosesWhenItsTimeRunsOut() throws Exception
    {
        assertEquals(1, ahead(List.of("0-3"), 1_000, 500));
        pool[0].expire(1_499);
        assertEquals(1, pool[0].unbound(), "kept until its time runs out");
        pool[0].expire(1_500);
        assertEquals(1, closedByPool.size());
        assertEquals(0, pool[0].unbound());
        assertEquals(0, pool[0].open());
        assertEquals(1, pool[0].closed());
    }

    @Test
    void aConnectionThatCouldNotBeMadeAheadIsNotCounted() throws Exception
    {
        assertEquals(0, pool[0].connectAhead(List.of("0-4"), (edge) -> null, 0, 100, "edge-ends-test")
            .get(10, TimeUnit.SECONDS));
        assertEquals(0, pool[0].opened());
        assertEquals(0, pool[0].open());
    }

    @Test
    void aConnectionMadeAheadThatLosesTheRaceIsDiscardedUncounted() throws Exception
    {
        // The agent binds the edge while the connection made ahead is still being set up.
        final End[] agents = new End[1];
        assertEquals(0, pool[0].connectAhead(List.of("0-5"), (edge) ->
        {
            agents[0] = pool[0].bind(edge, this::make);
            return make(edge);
        }, 0, 100, "edge-ends-test").get(10, TimeUnit.SECONDS));
        assertEquals(1, discarded.size());
        assertNotSame(agents[0], discarded.get(0));
        assertSame(agents[0], pool[0].bind("0-5", this::make), "the agent's connection stays the edge's");
        assertEquals(1, pool[0].opened());
        assertEquals(0, pool[0].unbound(), "the discarded one is not waiting for a link");
        pool[0].closeAll();
        assertEquals(List.of(agents[0]), closedByPool);
        assertEquals(1, pool[0].closed());
    }
}
