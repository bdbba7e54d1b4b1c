package io.mmx.rdma.verbs;

import io.mmx.planner.plan.PlanDigest;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One registration per edge and era, all of an edge's in the edge's own protection domain; nothing
 * leaks, releasing an era or revoking an edge leaves the others.
 */
class EdgeRegistrationsTest
{
    private static final PlanDigest PLAN_A = PlanDigest.of64(0xA);
    private static final PlanDigest PLAN_B = PlanDigest.of64(0xB);
    private static final EdgeRegistrations.Region R0 = new EdgeRegistrations.Region(0, PLAN_A);
    private static final EdgeRegistrations.Region R1 = new EdgeRegistrations.Region(1, PLAN_B);

    /** Records live PDs and registrations as a NIC would hold them. */
    private static final class RecordingNic implements EdgeRegistrations.Native<Integer, int[]>
    {
        final Set<Integer> livePds = new HashSet<>();
        final Set<Integer> liveRkeys = new HashSet<>();
        final java.util.Map<Integer, Integer> pdOf = new java.util.HashMap<>();
        int nextPd = 1;
        int nextRkey = 0x100;
        int registrations;
        boolean failNextRegistration;

        @Override
        public Integer allocPd()
        {
            livePds.add(nextPd);
            return nextPd++;
        }

        @Override
        public int[] register(final Integer pd, final long address, final int length) throws IOException
        {
            assertTrue(livePds.contains(pd), "registered in a freed PD");
            if (failNextRegistration)
            {
                failNextRegistration = false;
                throw new IOException("ibv_reg_mr: cannot allocate memory");
            }
            registrations++;
            liveRkeys.add(nextRkey);
            pdOf.put(nextRkey, pd);
            return new int[]{nextRkey++, pd};
        }

        @Override
        public int rkey(final int[] mr)
        {
            return mr[0];
        }

        @Override
        public void deregister(final int[] mr)
        {
            assertTrue(liveRkeys.remove(mr[0]), "deregistered twice");
        }

        @Override
        public void deallocPd(final Integer pd)
        {
            assertTrue(livePds.remove(pd), "PD freed twice");
        }
    }

    private final RecordingNic nic = new RecordingNic();
    private final EdgeRegistrations<Integer, int[]> edges = new EdgeRegistrations<>(nic);

    @Test
    void manyGrantsOnOneEdgeMakeOneRegistration() throws Exception
    {
        final EdgeRegistrations.Edge<Integer, int[]> first = edges.grant(0, 1, R0, 0x1000, 4096);
        for (int i = 0; i < 100; i++)
        {
            assertSame(first, edges.grant(0, 1, R0, 0x1000, 4096));
        }
        assertEquals(1, nic.registrations);
        assertEquals(1, nic.liveRkeys.size());
    }

    @Test
    void eachEdgeHasItsOwnKeyAndDomainAndRevokingOneLeavesTheOthers() throws Exception
    {
        final EdgeRegistrations.Edge<Integer, int[]> from1 = edges.grant(0, 1, R0, 0x1000, 4096);
        final EdgeRegistrations.Edge<Integer, int[]> from2 = edges.grant(0, 2, R0, 0x1000, 4096);
        final EdgeRegistrations.Edge<Integer, int[]> self = edges.grant(0, 0, R0, 0x1000, 4096);
        assertNotEquals(from1.rkey(), from2.rkey());
        assertNotEquals(from1.pd(), from2.pd());
        assertNotEquals(from1.pd(), self.pd());
        assertSame(from2, edges.byRkey(from2.rkey()));

        assertTrue(edges.revoke(0, 1));
        assertFalse(nic.liveRkeys.contains(from1.rkey()), "the revoked edge's rkey is deregistered");
        assertFalse(nic.livePds.contains(from1.pd()));
        assertNull(edges.byRkey(from1.rkey()));
        assertTrue(nic.liveRkeys.contains(from2.rkey()) && nic.liveRkeys.contains(self.rkey()), "others keep working");
        assertFalse(edges.revoke(0, 1), "revoked once");
    }

    @Test
    void aMovedRegionReplacesItsRegistrationAndNothingLeaks() throws Exception
    {
        final EdgeRegistrations.Edge<Integer, int[]> old = edges.grant(3, 4, R0, 0x1000, 4096);
        final EdgeRegistrations.Edge<Integer, int[]> otherEdge = edges.grant(3, 7, R0, 0x1000, 4096);
        final EdgeRegistrations.Edge<Integer, int[]> moved = edges.grant(3, 4, R0, 0x9000, 4096);
        assertNotEquals(old.rkey(), moved.rkey());
        assertFalse(nic.liveRkeys.contains(old.rkey()), "the stale registration is gone");
        assertFalse(nic.liveRkeys.contains(otherEdge.rkey()), "and so is every other edge's into the old memory");
        assertNull(edges.byRkey(otherEdge.rkey()));
        assertEquals(1, nic.liveRkeys.size());

        edges.grant(3, 5, R0, 0x9000, 4096);
        edges.grant(6, 5, R0, 0x20000, 64);
        assertEquals(2, edges.revokeRegion(3, R0));
        assertEquals(1, edges.size());
        edges.close();
        assertTrue(nic.liveRkeys.isEmpty() && nic.livePds.isEmpty(), "close releases everything");
    }

    @Test
    void aNewEdgeThatSeesTheRegionMovedReleasesTheOldEdges() throws Exception
    {
        final EdgeRegistrations.Edge<Integer, int[]> stale = edges.grant(3, 4, R0, 0x1000, 4096);
        final EdgeRegistrations.Edge<Integer, int[]> fresh = edges.grant(3, 9, R0, 0x9000, 4096);
        assertFalse(nic.liveRkeys.contains(stale.rkey()), "no edge keeps reaching the old memory");
        assertNull(edges.byRkey(stale.rkey()));
        assertSame(fresh, edges.byRkey(fresh.rkey()));
        assertEquals(1, edges.size());
    }

    @Test
    void aFailedRegistrationLeavesNothing()
    {
        nic.failNextRegistration = true;
        assertThrows(IOException.class, () -> edges.grant(0, 1, R0, 0x1000, 4096));
        assertTrue(nic.livePds.isEmpty(), "its PD is freed");
        assertEquals(0, edges.size());
    }

    @Test
    void aLaterErasRegionGoesInTheEdgesProtectionDomainAndReleasingTheEndedOneKeepsIt() throws Exception
    {
        final EdgeRegistrations.Edge<Integer, int[]> era0 = edges.grant(0, 1, R0, 0x1000, 4096);
        edges.attach(0, 1); // the edge's queue pair, created in its PD
        final EdgeRegistrations.Edge<Integer, int[]> era1 = edges.grant(0, 1, R1, 0x8000, 4096);
        assertEquals(era0.pd(), era1.pd(), "the new era's region is in the PD the queue pair is in");
        assertEquals(era1.pd().intValue(), nic.pdOf.get(era1.rkey()), "registered there on the NIC");
        assertNotEquals(era0.rkey(), era1.rkey());
        assertEquals(1, nic.livePds.size());
        assertEquals(2, nic.liveRkeys.size());

        assertTrue(edges.release(0, 1, R0));
        assertFalse(nic.liveRkeys.contains(era0.rkey()), "the ended era's rkey is deregistered");
        assertTrue(nic.liveRkeys.contains(era1.rkey()), "the running era's stays");
        assertTrue(nic.livePds.contains(era0.pd()), "and so does the PD");
        assertFalse(edges.release(0, 1, R0), "released once");

        assertTrue(edges.release(0, 1, R1));
        assertTrue(nic.livePds.contains(era0.pd()), "a PD holding a queue pair is not freed");
        edges.detach(0, 1);
        assertTrue(nic.livePds.isEmpty(), "freed with its last queue pair");
        assertEquals(0, edges.domains());
    }

    @Test
    void twoErasOfOnePlanAreTwoRegions() throws Exception
    {
        final EdgeRegistrations.Region sameGraphLater = new EdgeRegistrations.Region(1, PLAN_A);
        final EdgeRegistrations.Edge<Integer, int[]> early = edges.grant(0, 1, R0, 0x1000, 4096);
        final EdgeRegistrations.Edge<Integer, int[]> later = edges.grant(0, 1, sameGraphLater, 0x8000, 4096);
        assertTrue(nic.liveRkeys.contains(early.rkey()), "a fresh region of a later era is not a move of the old one");
        assertNotEquals(early.rkey(), later.rkey());
        assertEquals(2, edges.size());
    }

    @Test
    void theEdgesLastQueuePairTakesItsRegistrationsWithIt() throws Exception
    {
        edges.grant(0, 1, R0, 0x1000, 4096);
        edges.attach(0, 1);
        edges.grant(0, 1, R1, 0x8000, 4096);
        edges.attach(0, 1); // reconnected before the old queue pair's disconnection arrived
        edges.detach(0, 1);
        assertEquals(2, nic.liveRkeys.size(), "one queue pair is left");
        edges.detach(0, 1);
        assertTrue(nic.liveRkeys.isEmpty() && nic.livePds.isEmpty(), "a requester gone pins nothing");
        assertThrows(IllegalStateException.class, () -> edges.attach(0, 1), "no queue pair without a grant");
    }

    @Test
    void anEdgeHoldsAtMostFourErasTheOldestGoesFirst() throws Exception
    {
        final int[] rkeys = new int[EdgeRegistrations.MAX_REGIONS_PER_EDGE + 1];
        for (int era = 0; era < rkeys.length; era++)
        {
            rkeys[era] = edges.grant(0, 1, new EdgeRegistrations.Region(era, PLAN_A), 0x1000L * (era + 1), 64).rkey();
        }
        assertEquals(EdgeRegistrations.MAX_REGIONS_PER_EDGE, edges.size());
        assertFalse(nic.liveRkeys.contains(rkeys[0]), "the era granted longest ago (never released) is dropped");
        assertNull(edges.byRkey(rkeys[0]));
        for (int era = 1; era < rkeys.length; era++)
        {
            assertTrue(nic.liveRkeys.contains(rkeys[era]));
        }
    }
}
