package io.mmx.rdma.fabric;

import io.mmx.planner.graph.Graph;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The connection manager polls only the links that can do work: a link that completes inline is never polled. */
class LinkPollingTest
{
    /** A link that counts its polls; {@code inline} links complete in submit and say they need no work. */
    private static final class CountingLink extends StubLink
    {
        final int ownerId;
        final boolean inline;
        int polls;

        CountingLink(final int owner, final boolean inline)
        {
            super(owner);
            this.ownerId = owner;
            this.inline = inline;
        }

        @Override
        public void submit(final long correlationId, final OpType type, final long offset, final long operand1,
            final long operand2, final MutableDirectBuffer dst, final DirectBuffer src, final int bufOffset, final int length,
            final CompletionSink sink)
        {
            sink.complete(correlationId, OpStatus.OK, 0, null, 0);
        }

        @Override
        public int doWork(final CompletionSink sink)
        {
            polls++;
            return 0;
        }

        @Override
        public boolean completesInline()
        {
            return inline;
        }
    }

    @Test
    void onlyLinksThatNeedWorkArePolled()
    {
        // A triangle plus a pendant: process 0's neighbours are 1, 2 and 3; 2 and the loopback complete inline.
        final Graph plan = Graph.builder(4).addEdge(0, 1).addEdge(0, 2).addEdge(0, 3).addEdge(1, 2).build();
        final List<CountingLink> links = new ArrayList<>();
        final ConnectionManager manager = ConnectionManager.open(plan, 0, (self, owner) ->
        {
            final CountingLink link = new CountingLink(owner, owner == 0 || owner == 2);
            links.add(link);
            return link;
        });
        for (int i = 0; i < 5; i++)
        {
            manager.doWork((correlationId, status, value, data, dataLength) -> { });
        }
        for (final CountingLink link : links)
        {
            assertEquals(link.inline ? 0 : 5, link.polls, "link to " + link.ownerId);
        }
        assertEquals(4, links.size(), "the loopback and three neighbours");
    }
}
