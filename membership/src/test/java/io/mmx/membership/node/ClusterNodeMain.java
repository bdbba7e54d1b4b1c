package io.mmx.membership.node;

import io.mmx.aeron.frame.FrameKey;
import io.mmx.aeron.frame.FrameCounters;
import io.mmx.aeron.transport.AeronTransport;
import io.mmx.aeron.transport.ProcessDirectory;
import io.mmx.aeron.transport.TransportContext;
import io.mmx.membership.MembershipConfig;
import io.mmx.membership.MembershipListener;
import io.mmx.membership.MembershipNode;
import io.mmx.membership.swim.MemberStatus;
import io.mmx.planner.plan.PlanDigest;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * One JVM of the multi-JVM test: hosts a range of processes, runs their membership over Aeron UDP,
 * sends all-to-all application frames, and prints its state on stdout for the parent test.
 * Exits when stdin closes (the parent is done) or after a safety limit.
 */
public final class ClusterNodeMain
{
    static final int APP_TYPE = 0x40;
    static final long TICK_NS = TimeUnit.MILLISECONDS.toNanos(10);
    static final long MAX_RUN_NS = TimeUnit.SECONDS.toNanos(120);

    /** Membership settings of the test (ticks of 10 ms). */
    static MembershipConfig config(final int processes)
    {
        return new MembershipConfig()
            .protocolPeriodTicks(10).probeTimeoutTicks(3).suspicionTimeoutTicks(30).leaderLeaseTicks(150)
            .conclude(processes);
    }

    private ClusterNodeMain()
    {
    }

    /**
     * @param args first-id count directory-spec local-endpoint aeron-dir.
     */
    public static void main(final String[] args)
    {
        try
        {
            run(Integer.parseInt(args[0]), Integer.parseInt(args[1]), args[2], args[3], args[4]);
        }
        catch (final Throwable t)
        {
            System.out.println("EXCEPTION " + t);
            t.printStackTrace(System.out);
            System.out.flush();
            System.exit(3);
        }
    }

    private static void run(
        final int firstId, final int count, final String spec, final String endpoint, final String aeronDir)
    {
        final ProcessDirectory directory = ProcessDirectory.parse(spec);
        final int n = directory.processCount();
        final long[] heardMask = new long[n];
        final int[] hosted = new int[count];
        final int[][] neighbours = new int[count][];
        for (int i = 0; i < count; i++)
        {
            hosted[i] = firstId + i;
            neighbours[i] = new int[]{(hosted[i] + 1) % n, (hosted[i] + n - 1) % n};
        }
        final byte[] planHash = new byte[32];
        planHash[0] = 42;
        final StringBuilder events = new StringBuilder();
        final MembershipListener listener = new MembershipListener()
        {
            public void onMemberStatus(final int member, final MemberStatus status, final int inc, final long tick)
            {
                events.append("V ").append(member).append(' ').append(status).append(' ').append(tick).append('\n');
            }
        };

        final Thread stdinWatcher = new Thread(() ->
        {
            try
            {
                while (System.in.read() >= 0)
                {
                    Thread.onSpinWait();
                }
            }
            catch (final IOException ignore)
            {
                // Parent gone: same as EOF.
            }
        }, "stdin-watcher");
        stdinWatcher.setDaemon(true);
        stdinWatcher.start();

        try (AeronTransport transport = AeronTransport.launch(new TransportContext()
            .frameKey(FrameKey.ofHex(77, "0f0e0d0c0b0a09080706050403020100"))
            .directory(directory).localEndpoint(endpoint).aeronDirectoryName(aeronDir)))
        {
            final MembershipAgent agent = new MembershipAgent(transport, config(n), hosted, PlanDigest.of(planHash), neighbours, 1234,
                new SystemNanoClock(), TICK_NS, listener,
                (header, buffer, offset, length, tick) ->
                    heardMask[header.dstProcessId()] |= 1L << header.srcProcessId());
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[16]);
            final BackoffIdleStrategy idle = new BackoffIdleStrategy(10, 20, 1_000, 1_000_000);
            final long startNs = System.nanoTime();
            long nextAppTick = 0;
            long nextReportTick = 0;
            System.out.println("READY " + firstId);
            while (stdinWatcher.isAlive() && System.nanoTime() - startNs < MAX_RUN_NS)
            {
                int work = agent.doWork();
                final long tick = agent.nowTick();
                if (tick >= nextAppTick)
                {
                    nextAppTick = tick + 10;
                    for (final int src : hosted)
                    {
                        for (int dst = 0; dst < n; dst++)
                        {
                            if (dst != src && !agent.node(src).status(dst).equals(MemberStatus.DEAD))
                            {
                                payload.putLong(0, tick);
                                transport.send(src, dst, APP_TYPE, payload, 0, 16);
                            }
                        }
                    }
                    work++;
                }
                if (tick >= nextReportTick)
                {
                    nextReportTick = tick + 10;
                    report(agent, hosted, heardMask, events);
                }
                idle.idle(work);
            }
        }
    }

    private static void report(
        final MembershipAgent agent, final int[] hosted, final long[] heardMask, final StringBuilder events)
    {
        final StringBuilder sb = new StringBuilder(512);
        if (events.length() > 0)
        {
            sb.append(events);
            events.setLength(0);
        }
        long malformed = 0;
        final int n = agent.transport().directory().processCount();
        for (final int p : hosted)
        {
            final MembershipNode node = agent.node(p);
            long deadMask = 0;
            for (int q = 0; q < n; q++)
            {
                if (node.status(q) == MemberStatus.DEAD)
                {
                    deadMask |= 1L << q;
                }
            }
            malformed += node.malformedMessages();
            sb.append("S ").append(p).append(' ').append(node.leaderId()).append(' ').append(node.leaderEpoch())
                .append(' ').append(deadMask).append(' ').append(heardMask[p]).append(' ')
                .append(agent.nowTick()).append('\n');
        }
        final FrameCounters counters = agent.transport().counters();
        sb.append("T ").append(hosted[0]).append(' ').append(counters.receiveDropped()).append(' ')
            .append(agent.transport().handlerErrors()).append(' ').append(agent.transport().clientErrors())
            .append(' ').append(malformed).append(' ').append(counters.sendDropped()).append(' ')
            .append(counters.accepted()).append('\n');
        System.out.print(sb);
        System.out.flush();
    }
}
