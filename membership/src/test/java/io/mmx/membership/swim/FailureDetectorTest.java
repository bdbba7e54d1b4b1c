package io.mmx.membership.swim;

import io.mmx.membership.MembershipConfig;
import io.mmx.membership.wire.MessageType;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FailureDetectorTest
{
    private final MembershipConfig config = new MembershipConfig().conclude(8);
    private final List<int[]> sent = new ArrayList<>();
    private final List<String> changes = new ArrayList<>();
    private final FailureDetector detector = new FailureDetector(config, 8, 3, new SplittableRandom(1),
        (type, dst, seq, subject, subjectInc, origin) -> sent.add(new int[]{type, dst, seq, subject, origin}),
        (member, status, inc, tick) -> changes.add(member + ":" + status + ":" + inc));

    @Test
    void precedenceFollowsSwim()
    {
        detector.apply(5, 0, MemberStatus.SUSPECT, 0);
        assertEquals(MemberStatus.SUSPECT, detector.status(5));
        detector.apply(5, 0, MemberStatus.ALIVE, 0);
        assertEquals(MemberStatus.SUSPECT, detector.status(5), "same incarnation does not refute");
        detector.apply(5, 1, MemberStatus.ALIVE, 0);
        assertEquals(MemberStatus.ALIVE, detector.status(5), "higher incarnation refutes");
        detector.apply(5, 1, MemberStatus.DEAD, 0);
        assertEquals(MemberStatus.DEAD, detector.status(5));
        detector.apply(5, 1, MemberStatus.ALIVE, 0);
        assertEquals(MemberStatus.DEAD, detector.status(5), "dead is final for its incarnation");
        detector.apply(5, 2, MemberStatus.ALIVE, 0);
        assertEquals(MemberStatus.ALIVE, detector.status(5), "a falsely declared member revives itself");
        assertEquals(List.of("5:SUSPECT:0", "5:ALIVE:1", "5:DEAD:1", "5:ALIVE:2"), changes);
    }

    @Test
    void suspicionAboutSelfIsRefutedWithAHigherIncarnation()
    {
        detector.apply(3, 0, MemberStatus.SUSPECT, 0);
        assertEquals(1, detector.selfIncarnation());
        detector.apply(3, 4, MemberStatus.DEAD, 0);
        assertEquals(5, detector.selfIncarnation());
        assertEquals(MemberStatus.ALIVE, detector.status(3));
    }

    @Test
    void unansweredProbeGoesIndirectThenSuspectThenDead()
    {
        long tick = 0;
        while (sent.isEmpty())
        {
            detector.tick(tick++);
        }
        final int[] ping = sent.get(0);
        assertEquals(MessageType.PING, ping[0]);
        final int target = ping[1];
        final long periodStart = tick - 1;
        for (; tick <= periodStart + config.probeTimeoutTicks(); tick++)
        {
            detector.tick(tick);
        }
        long pingReqs = sent.stream().filter(m -> m[0] == MessageType.PING_REQ && m[3] == target).count();
        assertEquals(config.indirectProbes(), pingReqs);
        for (; tick <= periodStart + config.protocolPeriodTicks(); tick++)
        {
            detector.tick(tick);
        }
        assertEquals(MemberStatus.SUSPECT, detector.status(target));
        final long suspectedAt = tick - 1;
        for (; tick <= suspectedAt + config.suspicionTimeoutTicks(); tick++)
        {
            detector.tick(tick);
        }
        assertEquals(MemberStatus.DEAD, detector.status(target));
        assertTrue(detector.rank() <= 3);
    }

    @Test
    void ackSettlesTheProbeAndRelaysAreStateless()
    {
        long tick = 0;
        while (sent.isEmpty())
        {
            detector.tick(tick++);
        }
        final int[] ping = sent.get(0);
        detector.onAck(ping[2], ping[1], 0, -1, tick);
        for (long t = tick; t < tick + config.protocolPeriodTicks() + 1; t++)
        {
            detector.tick(t);
        }
        assertEquals(MemberStatus.ALIVE, detector.status(ping[1]));

        sent.clear();
        detector.onPingReq(6, 77, 1);
        assertEquals(MessageType.PING, sent.get(0)[0]);
        assertEquals(1, sent.get(0)[1]);
        assertEquals(6, sent.get(0)[4], "origin carried so the relay keeps no state");
        detector.onAck(77, 1, 0, 6, tick);
        assertEquals(MessageType.ACK, sent.get(1)[0]);
        assertEquals(6, sent.get(1)[1], "relayed to the origin");
    }

    @Test
    void aMemberHeldDeadThatTalksIsToldSoThatItCanRefute()
    {
        detector.apply(5, 2, MemberStatus.DEAD, 0);
        final FailureDetector restarted = new FailureDetector(config, 8, 5, new SplittableRandom(2),
            (type, dst, seq, subject, subjectInc, origin) -> { }, (member, status, inc, tick) -> { });
        detector.onDirectContact(5, restarted.selfIncarnation(), 1);
        final io.mmx.membership.wire.SwimMessage message = new io.mmx.membership.wire.SwimMessage()
            .wrapForEncode(new org.agrona.concurrent.UnsafeBuffer(new byte[1024]), 0);
        final int count = detector.dissemination().fill(message, 64);
        for (int i = 0; i < count; i++)
        {
            restarted.apply(message.updateMember(i), message.updateIncarnation(i),
                MemberStatus.fromCode(message.updateStatus(i)), 1);
        }
        assertEquals(3, restarted.selfIncarnation(), "refutes above the incarnation it was declared dead at");
        detector.onDirectContact(5, restarted.selfIncarnation(), 2);
        assertEquals(MemberStatus.ALIVE, detector.status(5));
    }

    private long pingReqsFor(final int target)
    {
        return sent.stream().filter(m -> m[0] == MessageType.PING_REQ && m[3] == target).count();
    }

    /**
     * This process stalls 10 periods right after its PING: on waking its probe has not timed out, and the
     * ACK it reads then settles the probe. Without the ACK the probe goes indirect after probeTimeoutTicks
     * and the target is suspected after a period, both counted in ticks this process ran.
     */
    @Test
    void ownStallDoesNotTimeAProbeOut()
    {
        for (final boolean answered : new boolean[]{true, false})
        {
            sent.clear();
            changes.clear();
            final FailureDetector d = new FailureDetector(config, 8, 3, new SplittableRandom(1),
                (type, dst, seq, subject, subjectInc, origin) -> sent.add(new int[]{type, dst, seq, subject, origin}),
                (member, status, inc, tick) -> changes.add(member + ":" + status + "@" + tick));
            long tick = 0;
            while (sent.isEmpty())
            {
                d.tick(tick++);
            }
            final long pinged = tick - 1;
            final int[] ping = sent.get(0);
            final int target = ping[1];
            final long woke = pinged + 10L * config.protocolPeriodTicks();
            d.tick(woke);
            assertEquals(0, pingReqsFor(target), "no indirect probe on waking");
            assertEquals(MemberStatus.ALIVE, d.status(target), "not suspected on waking");
            if (answered)
            {
                d.onAck(ping[2], target, 0, -1, woke);
            }
            // Own ticks: pinged + 1 at woke, so the probe times out at woke + timeout - 1.
            for (tick = woke + 1; tick < woke + config.probeTimeoutTicks() - 1; tick++)
            {
                d.tick(tick);
            }
            assertEquals(0, pingReqsFor(target));
            d.tick(tick);
            assertEquals(answered ? 0 : config.indirectProbes(), pingReqsFor(target), "answered " + answered);
            for (tick++; tick <= woke + config.protocolPeriodTicks() - 1; tick++)
            {
                d.tick(tick);
            }
            assertEquals(answered ? List.of() : List.of(target + ":SUSPECT@" + (woke + config.protocolPeriodTicks() - 1)),
                changes, "answered " + answered);
            assertEquals(10L * config.protocolPeriodTicks() - 1, d.stalledTicks());
        }
    }

    /**
     * A member is suspected, then this process stalls 10 suspicion timeouts: on waking it is still only
     * suspected, and a refutation read then clears it. Without one it is declared dead a suspicion
     * timeout of this process's own ticks later.
     */
    @Test
    void ownStallDoesNotTimeASuspicionOut()
    {
        final long suspectedAt = 7;
        detector.tick(suspectedAt);
        detector.apply(5, 0, MemberStatus.SUSPECT, suspectedAt);
        detector.apply(6, 0, MemberStatus.SUSPECT, suspectedAt);
        final long woke = suspectedAt + 10L * config.suspicionTimeoutTicks();
        detector.tick(woke);
        assertEquals(MemberStatus.SUSPECT, detector.status(5));
        assertEquals(MemberStatus.SUSPECT, detector.status(6));
        detector.apply(5, 1, MemberStatus.ALIVE, woke);
        assertEquals(MemberStatus.ALIVE, detector.status(5), "refuted on waking");
        final long dies = woke + config.suspicionTimeoutTicks() - 1;
        for (long tick = woke + 1; tick <= dies; tick++)
        {
            detector.tick(tick);
            assertEquals(tick < dies ? MemberStatus.SUSPECT : MemberStatus.DEAD, detector.status(6), "at " + tick);
        }
        // Its own unanswered probes may suspect 5 again here, but not for a suspicion timeout yet.
        assertTrue(detector.status(5) != MemberStatus.DEAD, "the refuted suspicion does not run out");
    }

    /** Gaps shorter than the probe timeout (an idle host parking) are time: a suspicion runs out on schedule. */
    @Test
    void shortGapsCountAsTime()
    {
        final long gap = config.probeTimeoutTicks() - 1;
        detector.tick(0);
        detector.apply(6, 0, MemberStatus.SUSPECT, 0);
        long tick = 0;
        while (detector.status(6) == MemberStatus.SUSPECT)
        {
            tick += gap;
            detector.tick(tick);
        }
        assertEquals(MemberStatus.DEAD, detector.status(6));
        assertTrue(tick >= config.suspicionTimeoutTicks() && tick < config.suspicionTimeoutTicks() + gap, "dead at " + tick);
        assertEquals(0, detector.stalledTicks());
    }
}
