package io.mmx.runtime.core;

import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A group no quorum answers is broadcast again after one retransmit period, then after 2, 4 and at most 8. */
class InFlightGroupsTest
{
    @Test
    void anUnansweredGroupIsBroadcastAgainWithAWaitThatDoublesUpToEightPeriods()
    {
        final CoreConfig config = new CoreConfig().graph(Graph.empty(5)).retransmitTicks(4).conclude();
        final List<Long> broadcastAt = new ArrayList<>();
        final long[] now = {0};
        final IgnoringEffects effects = new IgnoringEffects()
        {
            @Override
            public void broadcast(final Message message)
            {
                broadcastAt.add(now[0]);
            }
        };
        final InFlightGroups groups = new InFlightGroups(0, config, effects, new Learner(0, config, effects));
        groups.open(0, new long[][]{new long[config.proposalWords()]}, 0);
        for (now[0] = 1; now[0] <= 100; now[0]++)
        {
            groups.retransmitOverdue(1, -1, now[0]);
        }
        // Waits of 4, 8, 16, 32, then 32 again: the cap.
        assertEquals(List.of(4L, 12L, 28L, 60L, 92L), broadcastAt);
        assertEquals(5, groups.retransmissions());
    }
}
