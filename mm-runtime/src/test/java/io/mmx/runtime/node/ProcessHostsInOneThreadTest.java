package io.mmx.runtime.node;

import io.mmx.planner.plan.Plan;
import io.mmx.rdma.fabric.RegionLinkFactory;
import io.mmx.rdma.local.LocalRegionStore;
import io.mmx.runtime.host.ProcessHost;
import io.mmx.runtime.host.Submission;
import io.mmx.runtime.sim.InMemoryNetwork;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three {@link ProcessHost}s of two processes each (n = 6 on a planned 3-regular graph) in this
 * thread, over an {@link InMemoryNetwork} that delays, reorders and drops frames, in-process regions,
 * and a virtual clock: nothing here waits on real time, and a seed replays a run exactly. Commands
 * submitted on every host commit in one order at every replica, each once; the leader's host stops
 * (its duty cycle is no longer run), another host's process leads, and commands commit again. Seed:
 * {@code -Dmmx.host.seed=...}.
 */
class ProcessHostsInOneThreadTest
{
    private static final long SEED = Long.getLong("mmx.host.seed", 1);
    private static final int N = 6;
    private static final int[][] HOSTED = {{0, 1}, {2, 3}, {4, 5}};
    private static final long STEP_NS = 250_000;
    /** Virtual time every phase gets at most: a bound on the loop, far above what it needs. */
    private static final long PHASE_NS = 60_000_000_000L;
    private static final int COMMANDS_PER_HOST = 40;

    @Test
    void commandsOfEveryHostCommitInOneOrderAndSurviveTheLeadersHostStopping()
    {
        System.out.println("ProcessHostsInOneThreadTest seed " + SEED + " (replay: -Dmmx.host.seed=" + SEED + ")");
        final Run run = new Run(SEED);
        run.awaitLeader();
        final List<Submission> first = run.submitOnEveryHost(1);
        run.awaitCompleted(first, "the first commands");
        run.assertOneOrder();

        final int leader = run.leader();
        final int stopped = run.hostOf[leader];
        run.stop(stopped);
        final List<Submission> second = run.submitOnEveryHost(2);
        run.awaitCompleted(second, "the commands after host " + stopped + " stopped");
        final int next = run.leader();
        assertNotEquals(stopped, run.hostOf[next], "process " + next + " of a running host leads");
        run.assertOneOrder();
        run.assertEveryRunningReplicaApplied(first, second);
        System.out.println("seed " + SEED + ": process " + leader + " led until host " + stopped + " stopped, then " +
            next + "; " + run.network.countersText() + "; virtual " + run.nowNs / 1_000_000 + " ms");
    }

    /**
     * What a host's duty cycle returns drives the node's idle strategy: membership's frames and
     * heartbeats and a tick's own work are periodic and must not count, or an idle node never parks.
     * Counting membership's frames makes about 85 of 8,000 idle cycles busy, counting ticks 1,000;
     * seeds 1 to 12 give at most 7.
     */
    @Test
    void idleHostsReportAlmostNoWork()
    {
        final Run run = new Run(SEED);
        run.awaitLeader();
        run.awaitCompleted(run.submitOnEveryHost(1), "the commands");
        final int cycles = 8_000; // 2 virtual seconds
        Arrays.fill(run.busyCycles, 0);
        for (int c = 0; c < cycles; c++)
        {
            run.step();
        }
        System.out.println("seed " + SEED + ": idle cycles with work per host, of " + cycles + ": " +
            Arrays.toString(run.busyCycles));
        for (int h = 0; h < HOSTED.length; h++)
        {
            assertTrue(run.busyCycles[h] <= cycles / 200, "seed " + SEED + ": idle host " + h + " reported work in " +
                run.busyCycles[h] + " of " + cycles + " cycles");
        }
    }

    /**
     * A duty cycle polls the memory of the processes it gave an event and of those with operations
     * outstanding, not of every process: over in-process regions an idle process has none between its
     * ticks. Before, every cycle polled every process twice a tick and once otherwise: 2 processes x
     * (8,000 cycles + 1,000 ticks) = 18,000 polls per host in 2 idle seconds.
     */
    @Test
    void idleHostsPollOnlyTheMemoryOfProcessesGivenAnEvent()
    {
        final Run run = new Run(SEED);
        run.awaitLeader();
        run.awaitCompleted(run.submitOnEveryHost(1), "the commands");
        final int cycles = 8_000; // 2 virtual seconds, 1,000 ticks
        final long[] before = new long[HOSTED.length];
        for (int h = 0; h < HOSTED.length; h++)
        {
            before[h] = run.hosts[h].memoryPolls();
        }
        for (int c = 0; c < cycles; c++)
        {
            run.step();
        }
        final long[] polls = new long[HOSTED.length];
        for (int h = 0; h < HOSTED.length; h++)
        {
            polls[h] = run.hosts[h].memoryPolls() - before[h];
        }
        System.out.println("seed " + SEED + ": memory polls per host in " + cycles + " idle cycles: " +
            Arrays.toString(polls));
        for (int h = 0; h < HOSTED.length; h++)
        {
            assertTrue(polls[h] <= cycles / 2, "seed " + SEED + ": idle host " + h + " polled memory " + polls[h] +
                " times in " + cycles + " cycles of 2 processes");
        }
        // Skipping must not lose anything: the cluster still commits, in one order.
        run.awaitCompleted(run.submitOnEveryHost(2), "the commands after the idle stretch");
        run.assertOneOrder();
    }

    /**
     * Quiet hosts tick the processes that neither lead nor watch the leader only every
     * {@code HostedMembers.QUIET_TICK_SPACING} ticks; a leader's host that stops after a long quiet is
     * still replaced, and commands commit again on the others.
     */
    @Test
    void afterAQuietStretchTheLeadersHostStoppingIsStillSurvived()
    {
        final Run run = new Run(SEED);
        run.awaitLeader();
        final List<Submission> first = run.submitOnEveryHost(1);
        run.awaitCompleted(first, "the first commands");
        for (int c = 0; c < 800; c++) // the hosts turn quiet 100 ms after their last work
        {
            run.step();
        }
        final long[] thinnedBefore = new long[HOSTED.length];
        final long[] replicaTicksBefore = new long[N];
        for (int h = 0; h < HOSTED.length; h++)
        {
            thinnedBefore[h] = run.hosts[h].ticksThinned();
            for (final int id : HOSTED[h])
            {
                replicaTicksBefore[id] = run.hosts[h].replicaTicks(id);
            }
        }
        for (int c = 0; c < 8_000; c++) // 2 virtual seconds, nothing submitted
        {
            run.step();
        }
        long thinned = 0;
        for (int h = 0; h < HOSTED.length; h++)
        {
            thinned += run.hosts[h].ticksThinned() - thinnedBefore[h];
        }
        // A process neither leading nor watching the leader: its replica ticks about every 48 ticks, not every 12.
        int quietProcesses = 0;
        for (int h = 0; h < HOSTED.length; h++)
        {
            for (final int id : HOSTED[h])
            {
                if (!run.hosts[h].members().node(id).needsEveryTick())
                {
                    quietProcesses++;
                    final long ticks = run.hosts[h].replicaTicks(id) - replicaTicksBefore[id];
                    assertTrue(ticks <= 1_000 / ProcessHost.QUIET_REPLICA_TICK_SPACING + 2, "seed " + SEED +
                        ": the replica of quiet process " + id + " ticked " + ticks + " times in 1,000 ticks");
                }
            }
        }
        assertTrue(quietProcesses > 0, "seed " + SEED + ": some process was neither leader nor watcher");
        // 3 hosts x 2 processes x 1,000 ticks; the leader and its watchers tick every time.
        assertTrue(thinned > 1_000, "seed " + SEED + ": quiet hosts thinned only " + thinned + " process ticks");
        final int leader = run.leader();
        final int stopped = run.hostOf[leader];
        run.stop(stopped);
        final List<Submission> second = run.submitOnEveryHost(2);
        run.awaitCompleted(second, "the commands after host " + stopped + " stopped after a quiet stretch");
        assertNotEquals(stopped, run.hostOf[run.leader()], "a process of a running host leads");
        run.assertOneOrder();
        run.assertEveryRunningReplicaApplied(first, second);
        System.out.println("seed " + SEED + ": " + thinned + " process ticks thinned in 2 quiet virtual seconds; host " +
            stopped + " stopped, process " + run.leader() + " leads");
    }

    /**
     * A poll reads one batch (Aeron: 64 fragments of each subscription); a duty cycle must read what
     * waits, not one batch, or a host of many processes falls behind its senders, whose back-pressured
     * publications then drop frames (n = 1024 in JVMs of 128 stopped committing so). With polls of 4
     * frames, commands commit, more than 4 frames waited for some cycle, and no cycle left a due frame
     * unread. Reading one batch a cycle, the backlog grew instead (seed 1: 99 frames of 103 left unread).
     */
    @Test
    void aDutyCycleReadsEveryFrameThatWaitsNotOnePollsBatch()
    {
        final Run run = new Run(SEED);
        run.network.framesPerPoll(4);
        run.watchInboxes = true;
        run.awaitLeader();
        final List<Submission> commands = run.submitOnEveryHost(1);
        run.awaitCompleted(commands, "the commands");
        run.assertOneOrder();
        System.out.println("seed " + SEED + ": at most " + run.mostWaiting + " frames waited for a cycle, at most " +
            run.mostLeftUnread + " were left unread after one");
        assertTrue(run.mostWaiting > 4, "seed " + SEED + ": some cycle had more frames waiting than one poll reads");
        assertEquals(0, run.mostLeftUnread, "seed " + SEED + ": a duty cycle left due frames unread");
    }

    @Test
    void aSeedReplaysTheSameRun()
    {
        final long[] a = new Run(SEED).commitsThenLog();
        final long[] b = new Run(SEED).commitsThenLog();
        assertTrue(a.length > 1, "the run committed something");
        assertEquals(Arrays.toString(a), Arrays.toString(b), "seed " + SEED + " replays the same log at the same time");
    }

    /** The hosts, their replicas and the network of one seeded run. */
    private static final class Run
    {
        final SplittableRandom random;
        final int[] hostOf = new int[N];
        final InMemoryNetwork network;
        final ProcessHost[] hosts = new ProcessHost[HOSTED.length];
        final boolean[] running = new boolean[HOSTED.length];
        final InProcessHost[] processHosts = new InProcessHost[HOSTED.length];
        final Recorder[] machines = new Recorder[N];
        final AtomicInteger[] pending = new AtomicInteger[HOSTED.length];
        /** Cycles in which each host's doWork reported work. */
        final long[] busyCycles = new long[HOSTED.length];
        /** With {@link #watchInboxes}: the most frames due at a host before its cycle, and left unread after it. */
        boolean watchInboxes;
        int mostWaiting;
        int mostLeftUnread;
        long nowNs;

        Run(final long seed)
        {
            random = new SplittableRandom(seed);
            for (int h = 0; h < HOSTED.length; h++)
            {
                for (final int id : HOSTED[h])
                {
                    hostOf[id] = h;
                }
            }
            final Plan plan = NodeTestSupport.plan(N, 3, 7);
            network = new InMemoryNetwork(random.nextLong(), hostOf, 0.02, 3_000_000,
                InProcessHost.maxFrameLengthBytes(context(plan, HOSTED[0])));
            final RegionLinkFactory links = InProcessHost.createRegions(new LocalRegionStore(), context(plan, HOSTED[0]),
                NodeTestSupport.KEY);
            for (int id = 0; id < N; id++)
            {
                machines[id] = new Recorder();
            }
            for (int h = 0; h < HOSTED.length; h++)
            {
                pending[h] = new AtomicInteger();
                processHosts[h] = new InProcessHost(context(plan, HOSTED[h]), hostOf, links, network.endpoint(h),
                    () -> nowNs, id -> machines[id], random, ReplicaFlaw.NONE, pending[h]);
                hosts[h] = processHosts[h].host();
                running[h] = true;
            }
        }

        /** A node's settings for these processes; the directory only says which processes share a host. */
        static NodeContext context(final Plan plan, final int[] hosted)
        {
            final NodeContext ctx = new NodeContext().plan(plan).hosted(hosted).clusterKey(NodeTestSupport.KEY)
                .directory("0-1@127.0.0.1:40001;2-3@127.0.0.1:40002;4-5@127.0.0.1:40003");
            ctx.conclude();
            return ctx;
        }

        /** One step of virtual time: every running host runs one duty cycle. */
        void step()
        {
            nowNs += STEP_NS;
            network.advanceTo(nowNs);
            for (int h = 0; h < hosts.length; h++)
            {
                if (!running[h])
                {
                    continue;
                }
                if (watchInboxes)
                {
                    mostWaiting = Math.max(mostWaiting, network.waiting(h));
                }
                if (hosts[h].doWork(nowNs) > 0)
                {
                    busyCycles[h]++;
                }
                if (watchInboxes)
                {
                    mostLeftUnread = Math.max(mostLeftUnread, network.waiting(h));
                }
            }
        }

        void runUntil(final BooleanSupplier done, final String what)
        {
            final long deadline = nowNs + PHASE_NS;
            while (!done.getAsBoolean())
            {
                assertTrue(nowNs < deadline, "seed " + SEED + ": no " + what + " within " + PHASE_NS / 1_000_000 +
                    " virtual ms; " + network.countersText());
                step();
            }
        }

        void awaitLeader()
        {
            runUntil(() -> leaderOrMinus() >= 0, "leader");
        }

        /** The process of a running host that leads (the lowest host's, if two think so), or -1. */
        int leaderOrMinus()
        {
            for (int h = 0; h < HOSTED.length; h++)
            {
                if (running[h] && processHosts[h].leading() >= 0)
                {
                    return processHosts[h].leading();
                }
            }
            return -1;
        }

        int leader()
        {
            final int l = leaderOrMinus();
            assertTrue(l >= 0, "a process leads");
            return l;
        }

        void stop(final int host)
        {
            running[host] = false;
        }

        /** {@link #COMMANDS_PER_HOST} commands on each running host, interleaved; each value says its host and phase. */
        List<Submission> submitOnEveryHost(final int phase)
        {
            final List<Submission> all = new ArrayList<>();
            for (int k = 0; k < COMMANDS_PER_HOST; k++)
            {
                for (int h = 0; h < hosts.length; h++)
                {
                    if (running[h])
                    {
                        final byte[] command = new byte[8];
                        new UnsafeBuffer(command).putLong(0, phase * 1_000_000L + h * 1_000L + k,
                            ByteOrder.LITTLE_ENDIAN);
                        final Submission s = new Submission(command, false);
                        pending[h].incrementAndGet();
                        assertTrue(hosts[h].enqueue(s));
                        all.add(s);
                    }
                }
                step();
            }
            return all;
        }

        void awaitCompleted(final List<Submission> submissions, final String what)
        {
            runUntil(() -> submissions.stream().allMatch(s -> s.future().isDone()), "commit of " + what);
            for (final Submission s : submissions)
            {
                assertFalse(s.future().isCompletedExceptionally(), "seed " + SEED + ": " + what + " all commit");
            }
        }

        /** Every replica's log is a prefix of the longest one, and holds each command once. */
        void assertOneOrder()
        {
            List<Long> longest = List.of();
            for (final Recorder m : machines)
            {
                if (m.applied.size() > longest.size())
                {
                    longest = m.applied;
                }
            }
            for (int id = 0; id < N; id++)
            {
                final List<Long> log = machines[id].applied;
                assertEquals(longest.subList(0, log.size()), log, "seed " + SEED + ": replica " + id +
                    "'s log is a prefix of the longest");
                assertEquals(log.size(), new HashSet<>(log).size(), "seed " + SEED + ": replica " + id +
                    " applied a command twice");
            }
        }

        void assertEveryRunningReplicaApplied(final List<Submission> first, final List<Submission> second)
        {
            final Set<Long> replies = new HashSet<>();
            for (final Submission s : first)
            {
                replies.add(s.future().join());
            }
            for (final Submission s : second)
            {
                replies.add(s.future().join());
            }
            assertEquals(first.size() + second.size(), replies.size(), "each command's reply is its own value");
            runUntil(() ->
            {
                for (int id = 0; id < N; id++)
                {
                    if (running[hostOf[id]] && !new HashSet<>(machines[id].applied).containsAll(replies))
                    {
                        return false;
                    }
                }
                return true;
            }, "replica of a running host applying every committed command");
        }

        /** The log of the first phase at the first replica, then the virtual time it took. */
        long[] commitsThenLog()
        {
            awaitLeader();
            awaitCompleted(submitOnEveryHost(1), "the commands");
            final List<Long> log = machines[0].applied;
            final long[] out = new long[log.size() + 1];
            for (int i = 0; i < log.size(); i++)
            {
                out[i] = log.get(i);
            }
            out[log.size()] = nowNs;
            return out;
        }
    }

    /** Records the commands it applies; replies with the command's value. */
    private static final class Recorder implements StateMachine
    {
        final List<Long> applied = new ArrayList<>();

        @Override
        public long apply(final long logIndex, final int origin, final DirectBuffer buffer, final int offset,
            final int length)
        {
            final long value = buffer.getLong(offset, ByteOrder.LITTLE_ENDIAN);
            applied.add(value);
            return value;
        }
    }
}
