package io.mmx.rdma.verbs;

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

/** One registration per edge, in the edge's own protection domain; nothing leaks, revoking one edge leaves the others. */
class EdgeRegistrationsTest
{
    /** Records live PDs and registrations as a NIC would hold them. */
    private static final class RecordingNic implements EdgeRegistrations.Native<Integer, int[]>
    {
        final Set<Integer> livePds = new HashSet<>();
        final Set<Integer> liveRkeys = new HashSet<>();
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
        final EdgeRegistrations.Edge<Integer, int[]> first = edges.grant(0, 1, 0x1000, 4096);
        for (int i = 0; i < 100; i++)
        {
            assertSame(first, edges.grant(0, 1, 0x1000, 4096));
        }
        assertEquals(1, nic.registrations);
        assertEquals(1, nic.liveRkeys.size());
    }

    @Test
    void eachEdgeHasItsOwnKeyAndDomainAndRevokingOneLeavesTheOthers() throws Exception
    {
        final EdgeRegistrations.Edge<Integer, int[]> from1 = edges.grant(0, 1, 0x1000, 4096);
        final EdgeRegistrations.Edge<Integer, int[]> from2 = edges.grant(0, 2, 0x1000, 4096);
        final EdgeRegistrations.Edge<Integer, int[]> self = edges.grant(0, 0, 0x1000, 4096);
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
        final EdgeRegistrations.Edge<Integer, int[]> old = edges.grant(3, 4, 0x1000, 4096);
        final EdgeRegistrations.Edge<Integer, int[]> otherEdge = edges.grant(3, 7, 0x1000, 4096);
        final EdgeRegistrations.Edge<Integer, int[]> moved = edges.grant(3, 4, 0x9000, 4096);
        assertNotEquals(old.rkey(), moved.rkey());
        assertFalse(nic.liveRkeys.contains(old.rkey()), "the stale registration is gone");
        assertFalse(nic.liveRkeys.contains(otherEdge.rkey()), "and so is every other edge's into the old memory");
        assertNull(edges.byRkey(otherEdge.rkey()));
        assertEquals(1, nic.liveRkeys.size());

        edges.grant(3, 5, 0x9000, 4096);
        edges.grant(6, 5, 0x20000, 64);
        assertEquals(2, edges.revokeRegion(3));
        assertEquals(1, edges.size());
        edges.close();
        assertTrue(nic.liveRkeys.isEmpty() && nic.livePds.isEmpty(), "close releases everything");
    }

    @Test
    void aNewEdgeThatSeesTheRegionMovedReleasesTheOldEdges() throws Exception
    {
        final EdgeRegistrations.Edge<Integer, int[]> stale = edges.grant(3, 4, 0x1000, 4096);
        final EdgeRegistrations.Edge<Integer, int[]> fresh = edges.grant(3, 9, 0x9000, 4096);
        assertFalse(nic.liveRkeys.contains(stale.rkey()), "no edge keeps reaching the old memory");
        assertNull(edges.byRkey(stale.rkey()));
        assertSame(fresh, edges.byRkey(fresh.rkey()));
        assertEquals(1, edges.size());
    }

    @Test
    void aFailedRegistrationLeavesNothing()
    {
        nic.failNextRegistration = true;
        assertThrows(IOException.class, () -> edges.grant(0, 1, 0x1000, 4096));
        assertTrue(nic.livePds.isEmpty(), "its PD is freed");
        assertEquals(0, edges.size());
    }
}
