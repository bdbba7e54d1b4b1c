package io.mmx.membership;

import io.mmx.planner.plan.PlanDigest;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertTrue;

class MembershipNodeAllocationTest
{
    private MembershipNode[] nodes;
    private final UnsafeBuffer copy = new UnsafeBuffer(new byte[1024]);
    private long delivered;
    private long tick;

    @Test
    void tickAndMessageHandlingDoNotAllocateOnceWarm()
    {
        final int n = 4;
        final MembershipConfig config = new MembershipConfig().conclude(n);
        final long[] heartbeats = new long[n];
        nodes = new MembershipNode[n];
        for (int p = 0; p < n; p++)
        {
            final int id = p;
            nodes[p] = new MembershipNode(config, n, p, PlanDigest.of(new byte[32]), new int[]{(p + 1) % n}, p, this::deliver,
                MembershipListener.NO_OP, q -> heartbeats[q], v -> heartbeats[id] = v, 0);
        }
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        long allocatedBytes = 0;
        for (int round = 0; round < 3; round++)
        {
            final long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 20_000; i++, tick++)
            {
                for (final MembershipNode node : nodes)
                {
                    node.tick(tick);
                }
            }
            allocatedBytes = threads.getCurrentThreadAllocatedBytes() - before;
        }
        System.out.println("membership: allocated " + allocatedBytes + " bytes over 80000 node ticks and " +
            delivered + " messages in total");
        assertTrue(delivered > 10_000);
        assertTrue(allocatedBytes < 16 * 1024, "allocated " + allocatedBytes);
    }

    private void deliver(
        final int src, final int dst, final int type, final DirectBuffer buffer, final int offset, final int length)
    {
        // Synchronous delivery through a copy, as a transport would: re-entrancy is part of the test.
        final UnsafeBuffer local = copy;
        local.putBytes(0, buffer, offset, length);
        delivered++;
        nodes[dst].onMessage(tick, src, type, local, 0, length);
    }
}
