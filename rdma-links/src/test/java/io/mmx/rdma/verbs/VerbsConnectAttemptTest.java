package io.mmx.rdma.verbs;

import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.region.ClusterKey;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static io.mmx.rdma.verbs.VerbsHandshakeTest.KEY;
import static io.mmx.rdma.verbs.VerbsHandshakeTest.PLAN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The per-edge connection state machine, driven by events alone. */
class VerbsConnectAttemptTest
{
    private static final long TIMEOUT_NS = 2_000_000_000L;
    private static final long NONCE = 0x5151L;

    private final List<String> steps = new ArrayList<>();
    private final VerbsHandshake host = new VerbsHandshake(KEY, PLAN);
    private byte[] sentRequest;
    private String failingStep;

    private final VerbsConnectAttempt.Actions actions = new VerbsConnectAttempt.Actions()
    {
        @Override
        public void resolveAddr() throws IOException
        {
            record("resolveAddr");
        }

        @Override
        public void resolveRoute() throws IOException
        {
            record("resolveRoute");
        }

        @Override
        public int localCmPort()
        {
            return 40000;
        }

        @Override
        public void sendHandshake(final byte[] request) throws IOException
        {
            record("sendHandshake");
            sentRequest = request;
        }

        @Override
        public void connect() throws IOException
        {
            record("connect");
        }

        @Override
        public void abort()
        {
            steps.add("abort");
        }

        private void record(final String step) throws IOException
        {
            steps.add(step);
            if (step.equals(failingStep))
            {
                throw new IOException("rdma_" + step + " failed: No such device");
            }
        }
    };

    private VerbsConnectAttempt attempt(final VerbsHandshake codec)
    {
        final VerbsConnectAttempt a = new VerbsConnectAttempt(3, 7, "10.0.0.7:7471", codec, NONCE, 0, TIMEOUT_NS,
            actions);
        a.start();
        return a;
    }

    private VerbsConnectAttempt routed()
    {
        final VerbsConnectAttempt a = attempt(new VerbsHandshake(KEY, PLAN));
        a.onCmEvent(CmEvent.ADDR_RESOLVED, 1);
        assertEquals(VerbsConnectAttempt.State.ADDR_RESOLVED, a.state());
        a.onCmEvent(CmEvent.ROUTE_RESOLVED, 2);
        assertEquals(VerbsConnectAttempt.State.ROUTE_RESOLVED, a.state());
        return a;
    }

    // Stage 0 waits for ADDR_RESOLVED, 1 for ROUTE_RESOLVED, 2 for the handshake reply, 3 for ESTABLISHED.
    private VerbsConnectAttempt advancedTo(final int stage)
    {
        final VerbsConnectAttempt a = attempt(new VerbsHandshake(KEY, PLAN));
        if (stage >= 1)
        {
            a.onCmEvent(CmEvent.ADDR_RESOLVED, 1);
        }
        if (stage >= 2)
        {
            a.onCmEvent(CmEvent.ROUTE_RESOLVED, 2);
        }
        if (stage >= 3)
        {
            a.onHandshakeReply(hostAnswer(OpStatus.OK), 56, 3);
        }
        return a;
    }

    private byte[] hostAnswer(final OpStatus status)
    {
        return host.reply(host.parseRequest(sentRequest, sentRequest.length), status, 0x2000, 0x99, 4096);
    }

    @Test
    void theHappyPathEstablishesWithTheGrant()
    {
        final VerbsConnectAttempt a = routed();
        final VerbsHandshake.Request seenByHost = host.parseRequest(sentRequest, sentRequest.length);
        assertEquals(OpStatus.OK, seenByHost.status());
        assertEquals(40000, seenByHost.cmPort(), "the request names the CM source port the host will see");
        a.onHandshakeReply(hostAnswer(OpStatus.OK), 56, 3);
        assertEquals(VerbsConnectAttempt.State.CONNECTING, a.state());
        a.onCmEvent(CmEvent.ESTABLISHED, 4);
        assertEquals(VerbsConnectAttempt.State.ESTABLISHED, a.state());
        assertEquals(OpStatus.OK, a.status());
        assertEquals(0x99, a.grant().rkey());
        assertEquals(List.of("resolveAddr", "resolveRoute", "sendHandshake", "connect"), steps, "no abort");
        assertTrue(a.onTick(TIMEOUT_NS * 2), "an established attempt does not time out");
        assertEquals(VerbsConnectAttempt.State.ESTABLISHED, a.state());
    }

    @Test
    void aRefusalEndsBeforeAnyQueuePairWithTheHostsReason()
    {
        final VerbsConnectAttempt a = routed();
        a.onHandshakeReply(hostAnswer(OpStatus.REFUSED_NOT_NEIGHBOUR), 56, 3);
        assertEquals(VerbsConnectAttempt.State.REFUSED, a.state());
        assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, a.status());
        assertTrue(a.message().contains("plan neighbour"), a.message());
        assertFalse(steps.contains("connect"));
        assertEquals("abort", steps.get(steps.size() - 1));
    }

    @Test
    void aReplyUnderAnotherKeyIsBadClusterKey()
    {
        final VerbsConnectAttempt a = routed();
        final VerbsHandshake stranger = new VerbsHandshake(ClusterKey.ofPassphrase("some other cluster key"), PLAN);
        final byte[] forged = stranger.reply(host.parseRequest(sentRequest, VerbsHandshake.REQUEST_LENGTH), OpStatus.OK, 1, 2, 8);
        a.onHandshakeReply(forged, 56, 3);
        assertEquals(OpStatus.BAD_CLUSTER_KEY, a.status());
        assertFalse(steps.contains("connect"));
    }

    @Test
    void eachStageTimesOutWithItsOwnMessage()
    {
        final String[] waitingFor = {"ADDR_RESOLVED", "ROUTE_RESOLVED", "the handshake reply", "ESTABLISHED"};
        for (int stage = 0; stage < waitingFor.length; stage++)
        {
            steps.clear();
            final VerbsConnectAttempt a = advancedTo(stage);
            assertFalse(a.onTick(TIMEOUT_NS - 1));
            assertTrue(a.onTick(TIMEOUT_NS));
            assertEquals(VerbsConnectAttempt.State.TIMED_OUT, a.state());
            assertEquals(OpStatus.NOT_CONNECTED, a.status(), "the link retries on its next operation");
            assertTrue(a.message().contains("timed out after 2000 ms waiting for " + waitingFor[stage]) &&
                a.message().contains("10.0.0.7:7471"), a.message());
            assertEquals(1, steps.stream().filter("abort"::equals).count());
        }
    }

    @Test
    void errorEventsFailWithOneMessageAndAbortOnce()
    {
        final Object[][] cases = {
            {0, CmEvent.ADDR_ERROR, "ADDR_ERROR"},
            {1, CmEvent.ROUTE_ERROR, "ROUTE_ERROR"},
            {3, CmEvent.UNREACHABLE, "UNREACHABLE"},
            {3, CmEvent.CONNECT_ERROR, "CONNECT_ERROR"},
            {3, CmEvent.REJECTED, "rejected"},
            {2, CmEvent.ESTABLISHED, "does not belong"},
            {1, CmEvent.DEVICE_REMOVAL, "DEVICE_REMOVAL"},
        };
        for (final Object[] c : cases)
        {
            steps.clear();
            final int stage = (int)c[0];
            final VerbsConnectAttempt a = advancedTo(stage);
            a.onCmEvent((CmEvent)c[1], 4);
            assertTrue(a.state().terminal(), c[1] + " at stage " + stage);
            assertTrue(a.message().contains((String)c[2]), a.message());
            a.onCmEvent(CmEvent.ESTABLISHED, 5);
            assertTrue(a.state() != VerbsConnectAttempt.State.ESTABLISHED, "nothing revives an ended attempt");
            assertEquals(1, steps.stream().filter("abort"::equals).count(), c[1].toString());
        }
    }

    @Test
    void aFailingNativeStepFailsTheAttempt()
    {
        failingStep = "connect";
        final VerbsConnectAttempt a = routed();
        a.onHandshakeReply(hostAnswer(OpStatus.OK), 56, 3);
        assertEquals(VerbsConnectAttempt.State.FAILED, a.state());
        assertTrue(a.message().contains("failed connecting (rdma_connect failed: No such device)"), a.message());
        assertNotNull(a.grant());
    }

    @Test
    void aLostHandshakeFails()
    {
        final VerbsConnectAttempt a = routed();
        a.onHandshakeFailed("connection refused", 3);
        assertEquals(VerbsConnectAttempt.State.FAILED, a.state());
        assertTrue(a.message().contains("no handshake reply") && a.message().contains("connection refused"),
            a.message());
    }

    @Test
    void cmEventsMatchDisniAndTheCEnum() throws Exception
    {
        // DiSNI's enum is plain Java: loading it does not load libdisni.
        final Class<?> type = Class.forName("com.ibm.disni.verbs.RdmaCmEvent$EventType");
        final Object[] disni = type.getEnumConstants();
        assertEquals(CmEvent.values().length, disni.length);
        for (int i = 0; i < disni.length; i++)
        {
            assertEquals("RDMA_CM_EVENT_" + CmEvent.of(i).name(), ((Enum<?>)disni[i]).name());
        }
        assertEquals(9, CmEvent.ESTABLISHED.ordinal(), "RDMA_CM_EVENT_ESTABLISHED in <rdma/rdma_cma.h>");
        assertEquals(null, CmEvent.of(16));
    }
}
