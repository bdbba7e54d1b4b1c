package io.mmx.membership;

import io.mmx.membership.wire.MessageType;
import io.mmx.membership.wire.SwimMessage;
import io.mmx.planner.plan.PlanDigest;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MembershipNodeHostileTest
{
    private final List<Integer> sentTypes = new ArrayList<>();
    private final byte[] planHash = new byte[32];
    private final MembershipNode node = new MembershipNode(new MembershipConfig().conclude(16), 16, 3, PlanDigest.of(planHash),
        new int[]{2, 4}, 9, (src, dst, type, buffer, offset, length) -> sentTypes.add(type), MembershipListener.NO_OP,
        null, null, 0);

    @Test
    void randomMessagesAreCountedNeverThrown()
    {
        final long seed = System.nanoTime();
        System.out.println("randomMessagesAreCountedNeverThrown seed=" + seed);
        final SplittableRandom random = new SplittableRandom(seed);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[1024]);
        final int trials = 10_000;
        for (int i = 0; i < trials; i++)
        {
            final int length = random.nextInt(0, 900);
            for (int j = 0; j < length; j++)
            {
                buffer.putByte(j, (byte)random.nextInt());
            }
            if (random.nextBoolean() && length >= SwimMessage.HEADER_LENGTH)
            {
                // Right fingerprint, random rest: exercises the deeper checks.
                buffer.putLong(0, 0L);
            }
            node.onMessage(i, random.nextInt(-2, 18), MessageType.PING + random.nextInt(-1, 7), buffer, 0, length);
            node.tick(i);
        }
        assertTrue(node.malformedMessages() + node.foreignPlanMessages() > trials * 0.9,
            "seed=" + seed + " malformed=" + node.malformedMessages());
    }

    @Test
    void messageOfAnotherPlanIsRefusedAndCounted()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        final int length = new SwimMessage().wrapForEncode(buffer, 0)
            .header(0xBADL, 0, 1, -1, 0, -1, -1, 0, 0, 0).updateCount(0);
        node.onMessage(1, 5, MessageType.PING, buffer, 0, length);
        assertEquals(1, node.foreignPlanMessages());
        assertEquals(List.of(MessageType.PLAN_REFUSED), sentTypes);
    }
}
