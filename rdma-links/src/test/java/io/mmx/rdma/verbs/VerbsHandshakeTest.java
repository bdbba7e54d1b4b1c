package io.mmx.rdma.verbs;

import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.region.ClusterKey;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The handshake codec: sizes, round trips, and every refusal a requester or host can meet. */
class VerbsHandshakeTest
{
    static final ClusterKey KEY = ClusterKey.ofPassphrase("verbs handshake test key");
    static final PlanDigest PLAN = PlanDigest.of64(0x1234_5678_9ABCL);

    private final VerbsHandshake host = new VerbsHandshake(KEY, PLAN);
    private final VerbsHandshake requester = new VerbsHandshake(KEY, PLAN);

    @Test
    void bothMessagesFitTheConnectRequestPrivateData()
    {
        assertEquals(52, requester.request(3, 7, 40000, 1).length);
        assertEquals(56, host.reply(host.parseRequest(requester.request(3, 7, 1, 1), VerbsHandshake.REQUEST_LENGTH), OpStatus.OK, 1, 2, 8)
            .length);
        assertTrue(VerbsHandshake.REQUEST_LENGTH <= VerbsHandshake.PRIVATE_DATA_LIMIT);
        assertTrue(VerbsHandshake.REPLY_LENGTH <= VerbsHandshake.PRIVATE_DATA_LIMIT);
    }

    @Test
    void requestAndGrantRoundTrip()
    {
        final byte[] bytes = requester.request(3, 7, 40001, 0xFEEDL);
        final VerbsHandshake.Request r = host.parseRequest(padded(bytes), VerbsHandshake.PRIVATE_DATA_LIMIT);
        assertEquals(OpStatus.OK, r.status(), r.message());
        assertEquals(3, r.requester());
        assertEquals(7, r.owner());
        assertEquals(40001, r.cmPort());
        assertEquals(0xFEEDL, r.nonce());

        final byte[] reply = host.reply(r, OpStatus.OK, 0x7F00_0000_1080L, 0xABCD, 4096);
        final VerbsHandshake.Grant g = requester.parseReply(reply, reply.length, 3, 7, 0xFEEDL);
        assertEquals(OpStatus.OK, g.status(), g.message());
        assertEquals(0x7F00_0000_1080L, g.remoteBase());
        assertEquals(0xABCD, g.rkey());
        assertEquals(4096, g.dataBytes());
    }

    @Test
    void wrongClusterKeyIsRefusedOnBothSides()
    {
        final VerbsHandshake stranger = new VerbsHandshake(ClusterKey.ofPassphrase("another cluster's key"), PLAN);
        final VerbsHandshake.Request r = host.parseRequest(stranger.request(3, 7, 1, 9), VerbsHandshake.REQUEST_LENGTH);
        assertEquals(OpStatus.BAD_CLUSTER_KEY, r.status());
        assertTrue(r.message().contains("cluster key"), r.message());

        final byte[] reply = stranger.reply(host.parseRequest(requester.request(3, 7, 1, 9), VerbsHandshake.REQUEST_LENGTH), OpStatus.OK, 1, 2, 8);
        final VerbsHandshake.Grant g = requester.parseReply(reply, reply.length, 3, 7, 9);
        assertEquals(OpStatus.BAD_CLUSTER_KEY, g.status());
    }

    @Test
    void anotherPlanIsRefusedAsRegionMismatchNamingBothPlans()
    {
        final VerbsHandshake otherPlan = new VerbsHandshake(KEY, PlanDigest.of64(99));
        final VerbsHandshake.Request r = host.parseRequest(otherPlan.request(3, 7, 1, 9), VerbsHandshake.REQUEST_LENGTH);
        assertEquals(OpStatus.REGION_MISMATCH, r.status());
        assertTrue(r.message().contains(PLAN.shortHex()) && r.message().contains(PlanDigest.of64(99).shortHex()),
            r.message());
    }

    @Test
    void aRequesterOfAnotherPlanHearsRegionMismatchNotAWrongKey()
    {
        final VerbsHandshake otherPlan = new VerbsHandshake(KEY, PlanDigest.of64(99));
        final VerbsHandshake.Request r = host.parseRequest(otherPlan.request(3, 7, 1, 9), VerbsHandshake.REQUEST_LENGTH);
        final byte[] refusal = host.reply(r, r.status(), 0, 0, 0);
        final VerbsHandshake.Grant heard = otherPlan.parseReply(refusal, refusal.length, 3, 7, 9);
        assertEquals(OpStatus.REGION_MISMATCH, heard.status(), heard.message());
        assertTrue(heard.message().contains("another plan"), heard.message());

        // Only that refusal is taken unverified: a grant under the other plan's tag is still refused.
        final byte[] grant = host.reply(r, OpStatus.OK, 0x1000, 5, 64);
        assertEquals(OpStatus.BAD_CLUSTER_KEY, otherPlan.parseReply(grant, grant.length, 3, 7, 9).status());
    }

    @Test
    void aPlanThatDiffersOnlyAfterThePrefixFailsTheTag()
    {
        final byte[] digest = PLAN.toByteArray();
        digest[31] ^= 1;
        final VerbsHandshake almost = new VerbsHandshake(KEY, PlanDigest.of(digest));
        assertEquals(OpStatus.BAD_CLUSTER_KEY, host.parseRequest(almost.request(3, 7, 1, 9), VerbsHandshake.REQUEST_LENGTH).status(),
            "the whole digest is authenticated, not only the prefix that is sent");
    }

    @Test
    void everyFlippedBitOfARequestIsRefused()
    {
        final byte[] good = requester.request(3, 7, 40000, 42);
        for (int bit = 0; bit < good.length * 8; bit++)
        {
            final byte[] bad = good.clone();
            bad[bit / 8] ^= (byte)(1 << (bit % 8));
            final VerbsHandshake.Request r = host.parseRequest(bad, bad.length);
            assertNotEquals(OpStatus.OK, r.status(), "bit " + bit);
        }
    }

    @Test
    void garbledAndShortRequestsAreProtocolErrors()
    {
        final SplittableRandom random = new SplittableRandom(7);
        System.out.println("VerbsHandshakeTest seed 7");
        for (int i = 0; i < 1000; i++)
        {
            final byte[] noise = new byte[random.nextInt(0, 57)];
            random.nextBytes(noise);
            assertNotEquals(OpStatus.OK, host.parseRequest(noise, noise.length).status());
        }
        final byte[] good = requester.request(3, 7, 1, 1);
        assertEquals(OpStatus.PROTOCOL_ERROR, host.parseRequest(good, 47).status());
        good[0] = 9;
        assertEquals(OpStatus.PROTOCOL_ERROR, host.parseRequest(good, VerbsHandshake.REQUEST_LENGTH).status(), "another version");
    }

    @Test
    void aReplyToAnotherRequestIsRefused()
    {
        final byte[] reply = host.reply(host.parseRequest(requester.request(3, 7, 1, 100), VerbsHandshake.REQUEST_LENGTH), OpStatus.OK, 1, 2, 8);
        assertEquals(OpStatus.PROTOCOL_ERROR, requester.parseReply(reply, 56, 3, 7, 101).status(), "other nonce");
        assertEquals(OpStatus.PROTOCOL_ERROR, requester.parseReply(reply, 56, 4, 7, 100).status(), "other requester");
        assertEquals(OpStatus.PROTOCOL_ERROR, requester.parseReply(reply, 56, 3, 8, 100).status(), "other owner");
        assertEquals(OpStatus.PROTOCOL_ERROR, requester.parseReply(reply, 55, 3, 7, 100).status(), "truncated");
        final byte[] tampered = reply.clone();
        tampered[VerbsHandshake.RSP_RKEY] ^= 1;
        assertEquals(OpStatus.BAD_CLUSTER_KEY, requester.parseReply(tampered, 56, 3, 7, 100).status(), "tampered");
    }

    @Test
    void aRefusalCarriesTheHostsReasonAndNoAddress()
    {
        final VerbsHandshake.Request r = host.parseRequest(requester.request(3, 7, 1, 5), VerbsHandshake.REQUEST_LENGTH);
        final byte[] reply = host.reply(r, OpStatus.REFUSED_NOT_NEIGHBOUR, 0x1000, 0x55, 4096);
        assertEquals(0, reply[VerbsHandshake.RSP_RKEY]);
        final VerbsHandshake.Grant g = requester.parseReply(reply, 56, 3, 7, 5);
        assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, g.status());
        assertEquals(0, g.rkey());
        assertTrue(g.message().contains("plan neighbour of process 7"), g.message());
    }

    private static byte[] padded(final byte[] bytes)
    {
        return Arrays.copyOf(bytes, VerbsHandshake.PRIVATE_DATA_LIMIT);
    }

    @Test
    void aHolderOfOneProcessKeyCannotRequestAsAnother()
    {
        final VerbsHandshake onlyTwo = new VerbsHandshake(KEY.processKey(2), PLAN);
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> onlyTwo.request(1, 0, 4791, 7));
        final byte[] asTwo = onlyTwo.request(2, 0, 4791, 7);
        assertEquals(OpStatus.OK, host.parseRequest(asTwo, asTwo.length).status(), "2 as itself");
        final byte[] forged = asTwo.clone();
        java.nio.ByteBuffer.wrap(forged).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(VerbsHandshake.REQ_REQUESTER, 1);
        final VerbsHandshake.Request claim = host.parseRequest(forged, forged.length);
        assertEquals(OpStatus.BAD_CLUSTER_KEY, claim.status(), "2's key claiming to be 1");
        assertTrue(claim.message().contains("not authenticated by that process's key"), claim.message());

        // A reply the host makes for 2 verifies for 2's codec, and for nobody else's.
        final byte[] reply = host.reply(host.parseRequest(asTwo, asTwo.length), OpStatus.OK, 0x1000, 0x44, 64);
        assertEquals(OpStatus.OK, onlyTwo.parseReply(reply, reply.length, 2, 0, 7).status());
        final VerbsHandshake onlyThree = new VerbsHandshake(KEY.processKey(3), PLAN);
        assertEquals(OpStatus.BAD_CLUSTER_KEY, onlyThree.parseReply(reply, reply.length, 2, 0, 7).status());
    }

    @Test
    void aBindNamesItsEraAndOperationAndRoundTrips()
    {
        final VerbsHandshake era5 = new VerbsHandshake(KEY.processKey(3), PLAN, 5);
        final byte[] bind = era5.request(VerbsHandshake.OP_BIND, 3, 7, 0, 42);
        final VerbsHandshake.Request r = host.parseRequest(bind, bind.length);
        assertEquals(OpStatus.OK, r.status(), r.message());
        assertEquals(VerbsHandshake.OP_BIND, r.op());
        assertEquals(5, r.era());
        final byte[] reply = host.reply(r, OpStatus.OK, 0x9000, 0x55, 4096);
        final VerbsHandshake.Grant g = era5.parseReply(reply, reply.length, VerbsHandshake.OP_BIND, 3, 7, 42);
        assertEquals(OpStatus.OK, g.status(), g.message());
        assertEquals(0x55, g.rkey());
        assertEquals(0x9000, g.remoteBase());
        assertEquals(OpStatus.PROTOCOL_ERROR, era5.parseReply(reply, reply.length, VerbsHandshake.OP_CONNECT, 3, 7, 42)
            .status(), "a BIND's reply is not a CONNECT's");
    }

    @Test
    void aTamperedEraOrOperationIsRefused()
    {
        final VerbsHandshake era1 = new VerbsHandshake(KEY.processKey(3), PLAN, 1);
        final byte[] bind = era1.request(VerbsHandshake.OP_BIND, 3, 7, 0, 42);
        final byte[] otherEra = bind.clone();
        otherEra[VerbsHandshake.REQ_ERA] = 0; // claims era 0's region with era 1's tag
        assertEquals(OpStatus.BAD_CLUSTER_KEY, host.parseRequest(otherEra, otherEra.length).status());
        final byte[] otherOp = bind.clone();
        otherOp[VerbsHandshake.REQ_OP] = VerbsHandshake.OP_RELEASE;
        assertEquals(OpStatus.BAD_CLUSTER_KEY, host.parseRequest(otherOp, otherOp.length).status());
        final byte[] unknownOp = bind.clone();
        unknownOp[VerbsHandshake.REQ_OP] = 9;
        assertEquals(OpStatus.PROTOCOL_ERROR, host.parseRequest(unknownOp, unknownOp.length).status());

        final VerbsHandshake.Request r = host.parseRequest(bind, bind.length);
        final byte[] reply = host.reply(r, OpStatus.OK, 0x9000, 0x55, 4096);
        final byte[] otherRkey = reply.clone();
        otherRkey[VerbsHandshake.RSP_RKEY] ^= 0x40; // an rkey of another registration
        assertEquals(OpStatus.BAD_CLUSTER_KEY, era1.parseReply(otherRkey, otherRkey.length, VerbsHandshake.OP_BIND,
            3, 7, 42).status());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
            () -> new VerbsHandshake(KEY.processKey(3), PLAN, -1));
    }

    @Test
    void aReplyUnderAnotherPlanIsNotAGrant()
    {
        // A host answering era 1's BIND under plan A's digest while the requester runs plan B.
        final PlanDigest planB = PlanDigest.of64(0x4321L);
        final VerbsHandshake requesterB = new VerbsHandshake(KEY.processKey(3), planB, 1);
        final VerbsHandshake hostB = new VerbsHandshake(KEY, planB);
        final VerbsHandshake.Request r = hostB.parseRequest(requesterB.request(VerbsHandshake.OP_BIND, 3, 7, 0, 5),
            VerbsHandshake.REQUEST_LENGTH);
        final byte[] underA = host.reply(r, OpStatus.OK, 0x9000, 0x55, 4096);
        assertEquals(OpStatus.BAD_CLUSTER_KEY, requesterB.parseReply(underA, underA.length, VerbsHandshake.OP_BIND, 3,
            7, 5).status());
    }
}
