package io.mmx.membership.swim;

import io.mmx.membership.wire.SwimMessage;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class DisseminationBufferTest
{
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[SwimMessage.maxLength(64)]);
    private final SwimMessage message = new SwimMessage().wrapForEncode(buffer, 0);

    @Test
    void sendsLeastSentFirstAndDropsAfterTheLimit()
    {
        final DisseminationBuffer dissemination = new DisseminationBuffer(4, 2);
        dissemination.add(1, 0, MemberStatus.SUSPECT);
        dissemination.add(2, 0, MemberStatus.SUSPECT);
        assertEquals(1, dissemination.fill(message, 1));
        assertEquals(1, message.updateMember(0));
        dissemination.add(3, 0, MemberStatus.DEAD);
        assertEquals(2, dissemination.fill(message, 2));
        assertEquals(2, message.updateMember(0));
        assertEquals(3, message.updateMember(1));
        assertEquals(3, dissemination.fill(message, 8));
        assertEquals(0, dissemination.size(), "every update reached its limit of 2 sends");
        assertEquals(0, dissemination.fill(message, 8));
    }

    @Test
    void replacesPerMemberAndEvictsTheMostSentWhenFull()
    {
        final DisseminationBuffer dissemination = new DisseminationBuffer(2, 10);
        dissemination.add(1, 0, MemberStatus.SUSPECT);
        dissemination.add(1, 1, MemberStatus.ALIVE);
        assertEquals(1, dissemination.size());
        dissemination.fill(message, 1);
        dissemination.add(2, 0, MemberStatus.SUSPECT);
        dissemination.add(3, 0, MemberStatus.DEAD);
        assertEquals(2, dissemination.size());
        assertEquals(1, dissemination.evictions());
        assertEquals(2, dissemination.fill(message, 8));
        assertEquals(java.util.Set.of(2, 3), java.util.Set.of(message.updateMember(0), message.updateMember(1)),
            "member 1, the most sent, was evicted");
    }

    @Test
    void newsAboutThePriorityMemberGoesFirst()
    {
        final DisseminationBuffer dissemination = new DisseminationBuffer(8, 10);
        for (int member = 1; member <= 5; member++)
        {
            dissemination.add(member, 0, MemberStatus.DEAD);
        }
        dissemination.fill(message, 5);
        dissemination.add(6, 0, MemberStatus.DEAD);
        assertEquals(2, dissemination.fill(message, 2, 3));
        assertEquals(java.util.Set.of(3, 6), java.util.Set.of(message.updateMember(0), message.updateMember(1)),
            "member 3 despite being sent more often than 6's fresh update");
    }
}
