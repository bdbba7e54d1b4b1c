package io.mmx.rdma.fabric;

import io.mmx.planner.graph.Graph;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Deadlines and late completions, driven by a manual clock and a link that answers only when
 * told to: no wall-clock sleeps.
 */
class PlanMemoryFabricTimeoutTest
{
    private static final Graph PLAN = Graph.fromEdges(2, new int[]{0}, new int[]{1});

    /** A link that holds operations until the test releases them. */
    private static final class SilentLink extends StubLink
    {
        final List<Long> held = new ArrayList<>();
        CompletionSink sink;

        SilentLink(final int owner)
        {
            super(owner);
        }

        @Override
        public void submit(final long correlationId, final OpType type, final long offset, final long operand1,
            final long operand2, final MutableDirectBuffer dst, final DirectBuffer src, final int bufOffset,
            final int length, final CompletionSink sink)
        {
            this.sink = sink;
            held.add(correlationId);
        }

        void releaseAll()
        {
            for (final long id : held)
            {
                sink.complete(id, OpStatus.OK, 1, null, 0);
            }
            held.clear();
        }
    }

    @Test
    void overdueOperationsCompleteWithTimeoutAndLateAnswersAreDropped()
    {
        final long[] now = {1_000_000};
        final SilentLink[] links = new SilentLink[2];
        final PlanMemoryFabric fabric = new PlanMemoryFabric(ConnectionManager.open(PLAN, 1,
            (self, owner) -> links[owner] = new SilentLink(owner)), () -> now[0], 8);
        final List<OpStatus> statuses = new ArrayList<>();
        final CompletionHandler handler = (id, type, owner, status, value) -> statuses.add(status);

        final long slow = fabric.compareAndSwap(0, 0, 0, 1, 5_000_000);
        final long fast = fabric.read(0, 8, 50_000_000);
        assertEquals(0, fabric.poll(handler, 10), "nothing is due yet");
        now[0] += 5_000_000;
        fabric.poll(handler, 10);
        assertEquals(List.of(OpStatus.TIMEOUT), statuses, "the CAS is overdue, the read is not");
        assertEquals(1, fabric.outstanding());

        links[0].releaseAll(); // the CAS answer arrives late; the read answer on time
        fabric.poll(handler, 10);
        assertEquals(List.of(OpStatus.TIMEOUT, OpStatus.OK), statuses);
        assertEquals(1, fabric.counters().get(FabricCounters.Other.LATE_COMPLETION));
        assertEquals(1, fabric.counters().get(OpStatus.TIMEOUT));
        assertEquals(0, fabric.outstanding());
        assertEquals(2, fast - slow + 1, "correlation ids increase by one");

        fabric.fetchAndAdd(0, 0, 1, 1_000);
        fabric.close();
        fabric.poll(handler, 10);
        assertEquals(OpStatus.CLOSED, statuses.get(statuses.size() - 1), "closing completes what is in flight");
    }

    @Test
    void aTimedOutOperationFencesLaterOperationsOnTheSameRegionUntilItsFateIsKnown()
    {
        final long[] now = {1_000_000};
        final SilentLink[] links = new SilentLink[2];
        final PlanMemoryFabric fabric = new PlanMemoryFabric(ConnectionManager.open(PLAN, 1,
            (self, owner) -> links[owner] = new SilentLink(owner)), () -> now[0], 8);
        final List<OpStatus> statuses = new ArrayList<>();
        final CompletionHandler handler = (id, type, owner, status, value) -> statuses.add(status);

        fabric.write(0, 56, 1, 1_000);
        now[0] += 1_000;
        fabric.poll(handler, 10);
        assertEquals(List.of(OpStatus.TIMEOUT), statuses);
        // The write may still land. Were the next write sent now, the old one could land after it.
        fabric.write(0, 56, 2, 1_000_000);
        fabric.write(1, 56, 2, 1_000_000); // another region is not fenced
        fabric.poll(handler, 10);
        assertEquals(List.of(OpStatus.TIMEOUT, OpStatus.FENCED), statuses, "the second write was not sent");
        assertEquals(1, links[0].held.size(), "only the timed-out write ever reached region 0");
        assertEquals(1, links[1].held.size());
        assertEquals(1, fabric.counters().get(OpStatus.FENCED));

        links[0].releaseAll(); // its fate is known now (landed)
        fabric.poll(handler, 10);
        fabric.write(0, 56, 2, 1_000_000);
        assertEquals(1, links[0].held.size(), "after the late completion, region 0 takes operations again");
        fabric.close();
    }
}
