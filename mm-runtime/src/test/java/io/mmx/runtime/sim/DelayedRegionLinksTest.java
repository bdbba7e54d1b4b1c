package io.mmx.runtime.sim;

import io.mmx.rdma.fabric.CompletionSink;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.OpType;
import io.mmx.rdma.fabric.RegionLink;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.LongArrayList;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link DelayedRegionLinks}: completions wait for their latency in virtual time, in issue order. */
class DelayedRegionLinksTest
{
    private long nowNs;

    /** A link that completes every operation at once, as in-process regions do. */
    private static RegionLink instant(final int owner)
    {
        return new RegionLink()
        {
            @Override
            public int owner()
            {
                return owner;
            }

            @Override
            public OpStatus state()
            {
                return OpStatus.OK;
            }

            @Override
            public String stateMessage()
            {
                return "";
            }

            @Override
            public void submit(final long correlationId, final OpType type, final long offset, final long operand1,
                final long operand2, final MutableDirectBuffer dst, final DirectBuffer src, final int bufOffset,
                final int length, final CompletionSink sink)
            {
                sink.complete(correlationId, OpStatus.OK, operand1, null, 0);
            }

            @Override
            public int doWork(final CompletionSink sink)
            {
                return 0;
            }

            @Override
            public void close()
            {
            }
        };
    }

    @Test
    void completionsWaitForTheirLatencyAndKeepIssueOrder()
    {
        final DelayedRegionLinks links = new DelayedRegionLinks((self, owner) -> instant(owner), () -> nowNs, 7,
            10_000, 50_000, 0, 1);
        final RegionLink link = links.open(0, 1);
        final LongArrayList done = new LongArrayList();
        final CompletionSink sink = (id, status, value, payload, offset) -> done.addLong(id);
        link.submit(1, OpType.WRITE, 0, 5, 0, null, null, 0, 8, sink);
        assertEquals(1, link.doWork(sink), "before start() a completion is due at once (regions are formatted then)");
        links.start();
        for (long id = 2; id <= 20; id++)
        {
            link.submit(id, OpType.WRITE, 0, 5, 0, null, null, 0, 8, sink);
        }
        assertEquals(0, link.doWork(sink), "nothing is due before the shortest latency");
        nowNs = 9_999;
        assertEquals(0, link.doWork(sink));
        nowNs = 50_000;
        assertEquals(19, link.doWork(sink), "everything is due by the longest latency");
        for (int i = 0; i < done.size(); i++)
        {
            assertEquals(i + 1, done.getLong(i), "issue order");
        }
        assertEquals(20, links.delayed(), "every completion passed through the wrapper");
    }

    @Test
    void slowOperationsStopAtTheHeal()
    {
        final DelayedRegionLinks links = new DelayedRegionLinks((self, owner) -> instant(owner), () -> nowNs, 7,
            1_000, 1_000, 1.0, 1_000_000);
        links.start();
        final RegionLink link = links.open(0, 1);
        final LongArrayList done = new LongArrayList();
        final CompletionSink sink = (id, status, value, payload, offset) -> done.addLong(id);
        link.submit(1, OpType.READ, 0, 0, 0, null, null, 0, 8, sink);
        nowNs = 1_000;
        link.doWork(sink);
        assertTrue(done.isEmpty(), "a slow operation is still waiting");
        nowNs = 1_001_000;
        link.doWork(sink);
        assertEquals(1, done.size());
        links.heal();
        link.submit(2, OpType.READ, 0, 0, 0, null, null, 0, 8, sink);
        nowNs += 1_000;
        link.doWork(sink);
        assertEquals(2, done.size(), "after the heal an operation takes its ordinary latency");
    }
}
