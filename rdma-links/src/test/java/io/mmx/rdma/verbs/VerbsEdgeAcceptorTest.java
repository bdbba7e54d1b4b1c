package io.mmx.rdma.verbs;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.FabricCounters;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.region.ClusterKey;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import static io.mmx.rdma.verbs.VerbsHandshakeTest.KEY;
import static io.mmx.rdma.verbs.VerbsHandshakeTest.PLAN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The host's decisions: grants only along plan edges, and every refusal (non-neighbour, wrong
 * key, other plan, replay, garbled bytes, unannounced or late connection) is counted and
 * leaves no grant behind.
 */
class VerbsEdgeAcceptorTest
{
    // Ring 0-1-2-3-0; regions of 0 and 1 hosted here.
    private static final Graph RING = Graph.fromEdges(4, new int[]{0, 1, 2, 3}, new int[]{1, 2, 3, 0});
    private static final long TTL_NS = 1_000_000_000L;

    private final FabricCounters counters = new FabricCounters();
    private final List<Integer> registrationsAskedFor = new ArrayList<>();
    private final FakeRegions regions = new FakeRegions((owner, requester) ->
    {
        registrationsAskedFor.add(owner);
        return owner <= 1 ? new VerbsEdgeAcceptor.Registration(0x10_0000L * (owner + 1), 0x700 + owner, 4096) : null;
    });
    private final VerbsEdgeAcceptor acceptor = new VerbsEdgeAcceptor(RING, PLAN, KEY, regions, counters, 4, TTL_NS);
    private final VerbsHandshake requester = new VerbsHandshake(KEY, PLAN);
    private final InetAddress peer = InetAddress.getLoopbackAddress();

    @Test
    void aNeighbourIsGrantedAndItsConnectionAdmittedOnce()
    {
        final VerbsEdgeAcceptor.Decision d = acceptor.onRequest(requester.request(3, 0, 40000, 1), VerbsHandshake.REQUEST_LENGTH, peer, 0);
        assertEquals(OpStatus.OK, d.status(), d.message());
        final VerbsHandshake.Grant g = requester.parseReply(d.reply(), d.reply().length, 3, 0, 1);
        assertEquals(0x700, g.rkey());
        assertEquals(0x10_0000L, g.remoteBase());

        assertNull(acceptor.admit(peer, 40001, 1), "another port: not announced");
        assertNotNull(acceptor.admit(peer, 40000, 2));
        assertNull(acceptor.admit(peer, 40000, 3), "a grant admits one connection");
        assertEquals(2, counters.get(FabricCounters.Other.CONNECTION_REFUSED));
    }

    @Test
    void anOpenAdmitsAQueuePairOfANeighbourWithNoRegionAndANonNeighbourGetsNone()
    {
        // Owner 3's regions are not hosted (yet): an OPEN does not look them up.
        final VerbsEdgeAcceptor.Decision d = acceptor.onRequest(requester.request(VerbsHandshake.OP_OPEN, 2, 3, 40000,
            1), VerbsHandshake.REQUEST_LENGTH, peer, 0);
        assertEquals(OpStatus.OK, d.status(), d.message());
        final VerbsHandshake.Grant g = requester.parseReply(d.reply(), d.reply().length, VerbsHandshake.OP_OPEN, 2, 3, 1);
        assertEquals(OpStatus.OK, g.status(), g.message());
        assertEquals(0, g.rkey(), "an OPEN grants no region");
        assertEquals(0, g.dataBytes());
        assertTrue(registrationsAskedFor.isEmpty(), "nor registers one");
        final VerbsEdgeAcceptor.Admitted admitted = acceptor.admit(peer, 40000, 1);
        assertNotNull(admitted);
        assertEquals(3, admitted.owner());
        assertEquals(2, admitted.requester());
        assertNull(admitted.registration());

        final VerbsEdgeAcceptor.Decision refused = acceptor.onRequest(requester.request(VerbsHandshake.OP_OPEN, 2, 0,
            40001, 2), VerbsHandshake.REQUEST_LENGTH, peer, 0);
        assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, refused.status(), "2 and 0 are not neighbours in the ring");
        assertNull(acceptor.admit(peer, 40001, 1));
    }

    @Test
    void theOwnerIsGrantedItsOwnRegionForTheLoopbackQueuePair()
    {
        assertEquals(OpStatus.OK, acceptor.onRequest(requester.request(1, 1, 40000, 1), VerbsHandshake.REQUEST_LENGTH, peer, 0).status());
    }

    @Test
    void aNonNeighbourIsRefusedCountedAndGetsNothing()
    {
        final VerbsEdgeAcceptor.Decision d = acceptor.onRequest(requester.request(2, 0, 40000, 1), VerbsHandshake.REQUEST_LENGTH, peer, 0);
        assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, d.status());
        assertTrue(d.message().contains("plan neighbour"), d.message());
        assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, requester.parseReply(d.reply(), 56, 2, 0, 1).status());
        assertEquals(1, counters.get(OpStatus.REFUSED_NOT_NEIGHBOUR));
        assertTrue(registrationsAskedFor.isEmpty(), "the region is not even looked up");
        assertNull(acceptor.admit(peer, 40000, 1));
        assertEquals(0, acceptor.pendingGrants());
    }

    @Test
    void idsOutsideThePlanAreNonNeighbours()
    {
        assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR,
            acceptor.onRequest(requester.request(-1, 0, 1, 1), VerbsHandshake.REQUEST_LENGTH, peer, 0).status());
        assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR,
            acceptor.onRequest(requester.request(1, 4, 1, 2), VerbsHandshake.REQUEST_LENGTH, peer, 0).status());
    }

    @Test
    void wrongKeyAndOtherPlanAreRefusedAndCounted()
    {
        final VerbsHandshake stranger = new VerbsHandshake(ClusterKey.ofPassphrase("not this cluster's key"), PLAN);
        assertEquals(OpStatus.BAD_CLUSTER_KEY, acceptor.onRequest(stranger.request(1, 0, 1, 1), VerbsHandshake.REQUEST_LENGTH, peer, 0).status());
        final VerbsHandshake oldPlan = new VerbsHandshake(KEY, PlanDigest.of64(5));
        assertEquals(OpStatus.REGION_MISMATCH, acceptor.onRequest(oldPlan.request(1, 0, 1, 2), VerbsHandshake.REQUEST_LENGTH, peer, 0).status());
        assertEquals(1, counters.get(OpStatus.BAD_CLUSTER_KEY));
        assertEquals(1, counters.get(OpStatus.REGION_MISMATCH));
        assertEquals(0, acceptor.pendingGrants());
        assertTrue(registrationsAskedFor.isEmpty());
    }

    @Test
    void aReplayedRequestIsRefusedAndCounted()
    {
        final byte[] request = requester.request(1, 0, 40000, 77);
        assertEquals(OpStatus.OK, acceptor.onRequest(request, VerbsHandshake.REQUEST_LENGTH, peer, 0).status());
        final VerbsEdgeAcceptor.Decision replay = acceptor.onRequest(request, VerbsHandshake.REQUEST_LENGTH, peer, 1);
        assertEquals(OpStatus.PROTOCOL_ERROR, replay.status());
        assertEquals(1, counters.get(FabricCounters.Other.REPLAYED_REQUEST));
        assertEquals(1, acceptor.pendingGrants(), "only the first request's grant");
    }

    @Test
    void garbledBytesAreCountedAndNotAnswered()
    {
        final VerbsEdgeAcceptor.Decision d = acceptor.onRequest(new byte[VerbsHandshake.REQUEST_LENGTH], VerbsHandshake.REQUEST_LENGTH, peer, 0);
        assertEquals(OpStatus.PROTOCOL_ERROR, d.status());
        assertNull(d.reply());
        assertEquals(1, counters.get(FabricCounters.Other.MALFORMED_FRAME));
    }

    @Test
    void aRegionNotHostedHereIsRegionLost()
    {
        final VerbsEdgeAcceptor.Decision d = acceptor.onRequest(requester.request(2, 3, 1, 1), VerbsHandshake.REQUEST_LENGTH, peer, 0);
        assertEquals(OpStatus.REGION_LOST, d.status());
        assertEquals(0, acceptor.pendingGrants());
    }

    @Test
    void anUnclaimedGrantExpires()
    {
        assertEquals(OpStatus.OK, acceptor.onRequest(requester.request(1, 0, 40000, 1), VerbsHandshake.REQUEST_LENGTH, peer, 0).status());
        assertNull(acceptor.admit(peer, 40000, TTL_NS));
        assertEquals(0, acceptor.pendingGrants());
    }

    @Test
    void aBindNeedsTheEdgesQueuePairAndAnnouncesNoConnection()
    {
        final VerbsHandshake era1 = new VerbsHandshake(KEY, PLAN, 1);
        final VerbsEdgeAcceptor.Decision early = acceptor.onRequest(era1.request(VerbsHandshake.OP_BIND, 1, 0, 0, 1),
            VerbsHandshake.REQUEST_LENGTH, peer, 0);
        assertEquals(OpStatus.NOT_CONNECTED, early.status(), "no queue pair of 1->0 here yet");
        assertEquals(0, regions.granted.size(), "nothing registered");

        assertEquals(OpStatus.OK, acceptor.onRequest(requester.request(1, 0, 40000, 2), VerbsHandshake.REQUEST_LENGTH,
            peer, 0).status());
        final VerbsEdgeAcceptor.Decision bind = acceptor.onRequest(era1.request(VerbsHandshake.OP_BIND, 1, 0, 0, 3),
            VerbsHandshake.REQUEST_LENGTH, peer, 0);
        assertEquals(OpStatus.OK, bind.status(), bind.message());
        assertEquals(List.of(new EdgeRegistrations.Region(0, PLAN), new EdgeRegistrations.Region(1, PLAN)),
            regions.granted, "each era's own region");
        assertEquals(1, acceptor.pendingGrants(), "only the CONNECT waits for a connection request");

        final VerbsEdgeAcceptor.Decision release = acceptor.onRequest(era1.request(VerbsHandshake.OP_RELEASE, 1, 0, 0,
            4), VerbsHandshake.REQUEST_LENGTH, peer, 0);
        assertEquals(OpStatus.OK, release.status());
        assertEquals(List.of(new EdgeRegistrations.Region(1, PLAN)), regions.released);
        assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, acceptor.onRequest(era1.request(VerbsHandshake.OP_RELEASE, 2, 0,
            0, 5), VerbsHandshake.REQUEST_LENGTH, peer, 0).status(), "a non-neighbour releases nothing");
    }

    @Test
    void eachServedPlanGrantsAlongItsOwnEdges()
    {
        // Plan B is the ring 0-2-1-3-0: 2 is a neighbour of 0 there, not in RING.
        final Graph other = Graph.fromEdges(4, new int[]{0, 2, 1, 3}, new int[]{2, 1, 3, 0});
        final PlanDigest otherDigest = PlanDigest.ofGraph(other);
        final VerbsEdgeAcceptor.ServedPlan launch = new VerbsEdgeAcceptor.ServedPlan(PLAN, RING);
        final VerbsEdgeAcceptor both = new VerbsEdgeAcceptor(new VerbsServedPlans(launch, null).add(other), launch,
            KEY, regions, counters, 64, TTL_NS);
        final VerbsHandshake inB = new VerbsHandshake(KEY, otherDigest, 1);
        assertEquals(OpStatus.OK, both.onRequest(inB.request(2, 0, 40000, 1), VerbsHandshake.REQUEST_LENGTH, peer, 0)
            .status(), "2->0 is an edge of plan B");
        assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, both.onRequest(requester.request(2, 0, 40001, 2),
            VerbsHandshake.REQUEST_LENGTH, peer, 0).status(), "and not of plan A");
        final VerbsHandshake unknown = new VerbsHandshake(KEY, PlanDigest.of64(0x77L), 1);
        assertEquals(OpStatus.REGION_MISMATCH, both.onRequest(unknown.request(1, 0, 40002, 3),
            VerbsHandshake.REQUEST_LENGTH, peer, 0).status(), "a plan not served");
    }
}
