package io.mmx.membership.election;

import io.mmx.membership.MembershipConfig;
import io.mmx.membership.MembershipListener;
import io.mmx.membership.MembershipNode;
import io.mmx.membership.Outbox;
import io.mmx.membership.Role;
import io.mmx.membership.neighbour.HostLiveness;
import io.mmx.membership.wire.MessageType;
import io.mmx.planner.plan.PlanDigest;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A leader renews its claim at every host four times a lease, one message per host, so that followers
 * do not depend on gossip to keep a live leader (at n = 1024 gossip took longer than a lease).
 */
class ClaimRenewalTest
{
    private static final int N = 9;
    /** Three hosts of three processes; process 0 is on host 0 with 1 and 2. */
    private static final int[] HOST_OF = {0, 0, 0, 1, 1, 1, 2, 2, 2};

    @Test
    void aLeaderRenewsItsClaimAtEveryHostFourTimesALease()
    {
        final MembershipConfig config = new MembershipConfig().conclude(N);
        final List<String> toHosts = new ArrayList<>();
        final long[] now = {0};
        final Outbox outbox = new Outbox()
        {
            @Override
            public void send(final int src, final int dst, final int type, final DirectBuffer b, final int off, final int len)
            {
            }

            @Override
            public void sendToHostOf(final int src, final int dst, final int type, final DirectBuffer b, final int off,
                final int len)
            {
                toHosts.add(now[0] + ":" + type + ":" + HOST_OF[dst] + ":" + dst);
            }
        };
        final MembershipNode node = new MembershipNode(config, N, 0, PlanDigest.of(new byte[32]), new int[]{3, 6}, 5,
            outbox, MembershipListener.NO_OP, null, null, 0, HOST_OF, HostLiveness.NONE);
        while (node.electionRole() != Role.LEADER)
        {
            assertTrue(now[0] < 10 * config.leaderLeaseTicks(), "process 0, rank 0, claims within a few leases");
            node.tick(++now[0]);
        }
        assertTrue(toHosts.isEmpty(), "no renewal before leading: " + toHosts);
        final long ledAt = now[0];
        final long span = 2L * config.leaderLeaseTicks();
        while (now[0] < ledAt + span)
        {
            node.tick(++now[0]);
        }
        final int period = config.leaderLeaseTicks() / 4;
        // The claim sent to every process on becoming leader counts as the first round.
        final long rounds = span / period - 1;
        assertTrue(toHosts.size() >= 3 * rounds && toHosts.size() <= 3 * (rounds + 2),
            "one claim per host every " + period + " ticks over " + span + " ticks: " + toHosts);
        for (int host = 0; host < 3; host++)
        {
            final int h = host;
            assertTrue(toHosts.stream().filter(s -> s.split(":")[2].equals(Integer.toString(h))).count() >= rounds,
                "host " + host + " gets its claims: " + toHosts);
        }
        for (final String s : toHosts)
        {
            assertEquals(Integer.toString(MessageType.LEADER_CLAIM), s.split(":")[1], s);
            // The leader's own host is addressed through another of its processes, never itself.
            assertTrue(!s.endsWith(":0"), "the leader does not address itself: " + s);
        }
    }
}
