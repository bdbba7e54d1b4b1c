package io.mmx.membership.election;

import io.mmx.membership.MembershipConfig;
import io.mmx.membership.MembershipListener;
import io.mmx.membership.MembershipNode;
import io.mmx.membership.Outbox;
import io.mmx.membership.Role;
import io.mmx.membership.neighbour.HostLiveness;
import io.mmx.planner.plan.PlanDigest;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A leader that hears nobody for a lease steps down (and, the lowest id, claims again with a new epoch:
 * a new phase 1). Protocol messages from other processes count as hearing someone, as membership's do:
 * a leader its acceptors answer keeps its epoch although no membership message reaches it.
 */
class LeaderContactTest
{
    private static final int N = 5;

    private static final Outbox NOWHERE = new Outbox()
    {
        @Override
        public void send(final int src, final int dst, final int type, final DirectBuffer b, final int off, final int len)
        {
        }

        @Override
        public void sendToHostOf(final int src, final int dst, final int type, final DirectBuffer b, final int off,
            final int len)
        {
        }
    };

    /** Ticks process 0 alone for three leases after it leads; contact every eighth of a lease if asked. */
    private static long epochsAfterThreeLeases(final boolean protocolContact)
    {
        final MembershipConfig config = new MembershipConfig().conclude(N);
        final MembershipNode node = new MembershipNode(config, N, 0, PlanDigest.of(new byte[32]), new int[]{1, 2}, 5,
            NOWHERE, MembershipListener.NO_OP, null, null, 0, null, HostLiveness.NONE);
        long now = 0;
        while (node.electionRole() != Role.LEADER)
        {
            assertTrue(now < 10L * config.leaderLeaseTicks(), "process 0, rank 0, claims within a few leases");
            node.tick(++now);
        }
        final long firstEpoch = node.leaderEpoch();
        final long end = now + 3L * config.leaderLeaseTicks();
        while (now < end)
        {
            node.tick(++now);
            if (protocolContact && now % (config.leaderLeaseTicks() / 8) == 0)
            {
                node.onProtocolContact(now);
            }
        }
        return node.leaderEpoch() - firstEpoch;
    }

    @Test
    void aLeaderThatHearsNobodyClaimsAgainWithANewEpoch()
    {
        assertTrue(epochsAfterThreeLeases(false) >= 2, "a step down and a new claim per lease of silence");
    }

    @Test
    void protocolMessagesFromOthersKeepALeadersEpoch()
    {
        assertEquals(0, epochsAfterThreeLeases(true), "its acceptors answer it: it is not cut off");
    }
}
