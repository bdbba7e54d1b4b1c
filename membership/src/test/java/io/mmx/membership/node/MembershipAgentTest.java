package io.mmx.membership.node;

import io.mmx.aeron.frame.FrameKey;
import io.mmx.aeron.transport.AeronTransport;
import io.mmx.aeron.transport.ProcessDirectory;
import io.mmx.aeron.transport.TransportContext;
import io.mmx.membership.MembershipConfig;
import io.mmx.membership.MembershipListener;
import io.mmx.membership.plan.PlanActivation;
import io.mmx.planner.plan.PlanDigest;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MembershipAgentTest
{
    @TempDir
    Path tempDir;

    @Test
    void eightProcessesOverIpcElectActivateAndIgnoreTheirOwnBroadcasts()
    {
        final int n = 8;
        final long tickNs = 1_000_000;
        final CachedNanoClock clock = new CachedNanoClock();
        final int[] hosted = new int[n];
        final int[][] neighbours = new int[n][];
        for (int p = 0; p < n; p++)
        {
            hosted[p] = p;
            neighbours[p] = new int[]{(p + 1) % n, (p + n - 1) % n};
        }
        final long[] applicationFrames = new long[1];
        try (AeronTransport transport = ipcTransport("0-7@127.0.0.1:1", "aeron"))
        {
            final MembershipAgent agent = new MembershipAgent(transport, new MembershipConfig(), hosted, PlanDigest.of(new byte[32]),
                neighbours, 11, clock, tickNs, MembershipListener.NO_OP,
                (header, buffer, offset, length, tick) -> applicationFrames[0]++);
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[8]);
            // Real time: frames cross Aeron IPC through the driver's thread, so a simulated clock would
            // run ahead of delivery on a starved machine and have live processes declared dead. Agreement
            // takes well under a second here; the deadline leaves a busy machine 60 s.
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            long nextBroadcastNs = 0;
            // Agreement can come before any broadcast crossed the driver: those sent before the IPC
            // publication connected were dropped, and agreement may follow the connection within the
            // 50 ms between two broadcasts. So broadcasts go on until both kinds have arrived too.
            while (!(allActive(agent, n) && allFollow(agent, n, 0) && applicationFrames[0] > 0 &&
                agent.node(4).malformedMessages() > 0) && System.nanoTime() - deadlineNs < 0)
            {
                final long nowNs = System.nanoTime();
                clock.update(nowNs);
                agent.doWork();
                if (nowNs - nextBroadcastNs >= 0)
                {
                    nextBroadcastNs = nowNs + 50 * tickNs;
                    transport.broadcast(3, 0x40, payload, 0, 8);
                    transport.broadcast(3, 0x10, payload, 0, 8); // a malformed membership broadcast
                }
            }
            assertTrue(allActive(agent, n), "all plan activations");
            for (int p = 0; p < n; p++)
            {
                assertEquals(0, agent.node(p).leaderId(), "process " + p);
            }
            assertTrue(applicationFrames[0] > 0);
            // The malformed broadcast reached the 7 others, never its sender.
            assertEquals(0, agent.node(3).malformedMessages());
            assertTrue(agent.node(4).malformedMessages() > 0);
            assertEquals(0, transport.counters().receiveDropped() - transport.counters().dropped(
                io.mmx.aeron.frame.DropReason.BAD_PAYLOAD));
            assertEquals(0, transport.handlerErrors());
        }
    }

    @Test
    void countsAsWorkOnlyTheFramesItHandsToTheApplication()
    {
        final int n = 4;
        final long tickNs = 1_000_000;
        final CachedNanoClock clock = new CachedNanoClock();
        final int[] hosted = {0, 1, 2, 3};
        final int[][] neighbours = {{1, 3}, {2, 0}, {3, 1}, {0, 2}};
        final long[] applicationFrames = new long[1];
        try (AeronTransport transport = ipcTransport("0-3@127.0.0.1:1", "aeron-work"))
        {
            final MembershipAgent agent = new MembershipAgent(transport, new MembershipConfig(), hosted, PlanDigest.of(new byte[32]),
                neighbours, 11, clock, tickNs, MembershipListener.NO_OP,
                (header, buffer, offset, length, tick) -> applicationFrames[0]++);
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[8]);
            long work = 0;
            long quietTurnsWork = 0;
            // Simulated time, one tick per turn; an application frame every 100th turn.
            for (int turn = 0; turn < 2_000; turn++)
            {
                clock.advance(tickNs);
                if (turn % 100 == 0)
                {
                    transport.broadcast(3, 0x40, payload, 0, 8);
                }
                final long before = applicationFrames[0];
                final int w = agent.doWork();
                work += w;
                if (applicationFrames[0] == before)
                {
                    quietTurnsWork += w;
                }
            }
            // Ticks, probes, acks and elections happened, but only handed-over frames were work.
            assertTrue(transport.counters().accepted() > applicationFrames[0], "membership frames flowed");
            assertTrue(applicationFrames[0] > 0);
            assertEquals(applicationFrames[0], work);
            assertEquals(0, quietTurnsWork);
        }
    }

    private AeronTransport ipcTransport(final String directory, final String aeronDir)
    {
        return AeronTransport.launch(new TransportContext()
            .frameKey(FrameKey.ofHex(5, "000102030405060708090a0b0c0d0e0f"))
            .directory(ProcessDirectory.parse(directory)).medium(TransportContext.Medium.IPC)
            .aeronDirectoryName(tempDir.resolve(aeronDir).toString()));
    }

    private static boolean allFollow(final MembershipAgent agent, final int n, final int leader)
    {
        for (int p = 0; p < n; p++)
        {
            if (agent.node(p).leaderId() != leader)
            {
                return false;
            }
        }
        return true;
    }

    private static boolean allActive(final MembershipAgent agent, final int n)
    {
        for (int p = 0; p < n; p++)
        {
            if (agent.node(p).planState() != PlanActivation.State.ACTIVE)
            {
                return false;
            }
        }
        return true;
    }
}
