package io.mmx.membership.sim;

import io.mmx.membership.MembershipConfig;
import io.mmx.membership.MembershipListener;
import io.mmx.membership.MembershipNode;
import io.mmx.membership.swim.MemberStatus;
import io.mmx.planner.plan.PlanDigest;
import org.agrona.DirectBuffer;
import org.agrona.collections.IntArrayList;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A cluster of {@link MembershipNode}s in one thread. Everything random comes from one seed: message
 * loss, delays, node seeds, the neighbour graph. A run is replayed exactly from its seed.
 * <p>
 * Messages are copied into a pooled buffer and delivered by a timing wheel after 1..maxDelay ticks;
 * memory heartbeat words are a {@code long[]} that crashed nodes stop bumping, as a region outliving
 * its owner would.
 */
public final class MembershipSimulation
{
    /** Parameters of one run. */
    public static final class Options
    {
        int processes = 64;
        long seed = 1;
        double lossRate;
        int minDelayTicks = 1;
        int maxDelayTicks = 2;  // ticks of 10 ms: 10..20 ms one way, pessimistic for a LAN
        int neighbourDegree = 8;
        int maxInFlight = 1 << 22;
        MembershipConfig config = new MembershipConfig();
        int foreignPlanProcess = -1;

        /**
         * @param value n.
         * @return this.
         */
        public Options processes(final int value)
        {
            processes = value;
            return this;
        }

        /**
         * @param value seed of the run.
         * @return this.
         */
        public Options seed(final long value)
        {
            seed = value;
            return this;
        }

        /**
         * @param value probability a message is lost, 0..1.
         * @return this.
         */
        public Options lossRate(final double value)
        {
            lossRate = value;
            return this;
        }

        /**
         * @param min at least 1.
         * @param max at least min.
         * @return this.
         */
        public Options delayTicks(final int min, final int max)
        {
            minDelayTicks = min;
            maxDelayTicks = max;
            return this;
        }

        /**
         * @param value plan degree d (union of d random matchings).
         * @return this.
         */
        public Options neighbourDegree(final int value)
        {
            neighbourDegree = value;
            return this;
        }

        /**
         * @param value membership configuration (concluded by the simulation).
         * @return this.
         */
        public Options config(final MembershipConfig value)
        {
            config = value;
            return this;
        }

        /**
         * @param value a process started with another plan hash, or -1.
         * @return this.
         */
        public Options foreignPlanProcess(final int value)
        {
            foreignPlanProcess = value;
            return this;
        }
    }

    private final Options options;
    private final int processes;
    private final SplittableRandom random;
    private final MembershipNode[] nodes;
    private final boolean[] crashed;
    private final long[] heartbeats;
    private final int[][] neighbours;
    private final IntArrayList[] wheel;
    private final int slotLength;
    private UnsafeBuffer pool;
    private int[] slotSrc;
    private int[] slotDst;
    private int[] slotType;
    private int[] slotLength2;
    private int[] freeSlots;
    private int freeCount;
    private long nowTick;
    private long messagesSent;
    private long messagesLost;
    private long messagesOverflowed;
    private int liveCount;
    private final String[] refusals;

    /**
     * @param options of the run.
     */
    public MembershipSimulation(final Options options)
    {
        this.options = options;
        processes = options.processes;
        if (options.minDelayTicks < 1 || options.maxDelayTicks < options.minDelayTicks ||
            options.lossRate < 0 || options.lossRate > 1)
        {
            throw new IllegalArgumentException("delays must satisfy 1 <= min <= max and loss 0..1");
        }
        options.config.conclude(processes);
        random = new SplittableRandom(options.seed);
        neighbours = randomNeighbours(processes, options.neighbourDegree, random.split());
        crashed = new boolean[processes];
        heartbeats = new long[processes];
        refusals = new String[processes];
        wheel = new IntArrayList[options.maxDelayTicks + 1];
        for (int i = 0; i < wheel.length; i++)
        {
            wheel[i] = new IntArrayList();
        }
        slotLength = 512;
        allocatePool(Math.min(options.maxInFlight, Math.max(1024, processes * 4)));

        final byte[] planHash = new byte[PlanDigest.LENGTH];
        new SplittableRandom(options.seed ^ 0x5EED).nextBytes(planHash);
        final byte[] foreignHash = planHash.clone();
        foreignHash[0] ^= 0x55;
        final PlanDigest plan = PlanDigest.of(planHash);
        final PlanDigest foreignPlan = PlanDigest.of(foreignHash);
        nodes = new MembershipNode[processes];
        for (int p = 0; p < processes; p++)
        {
            final int id = p;
            nodes[p] = new MembershipNode(
                options.config, processes, p, p == options.foreignPlanProcess ? foreignPlan : plan,
                neighbours[p], random.nextLong(), this::enqueue,
                new MembershipListener()
                {
                    public void onPlanActivation(final boolean active, final String message, final long tick)
                    {
                        if (!active)
                        {
                            refusals[id] = message;
                        }
                    }
                },
                q -> heartbeats[q], value -> heartbeats[id] = value, 0);
        }
        liveCount = processes;
    }

    private static int[][] randomNeighbours(final int n, final int degree, final SplittableRandom random)
    {
        final IntArrayList[] lists = new IntArrayList[n];
        for (int i = 0; i < n; i++)
        {
            lists[i] = new IntArrayList();
        }
        final int[] order = new int[n];
        for (int round = 0; round < degree && n > 1; round++)
        {
            for (int i = 0; i < n; i++)
            {
                order[i] = i;
            }
            for (int i = n - 1; i > 0; i--)
            {
                final int j = random.nextInt(i + 1);
                final int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
            for (int i = 0; i + 1 < n; i += 2)
            {
                final int a = order[i];
                final int b = order[i + 1];
                if (!lists[a].containsInt(b))
                {
                    lists[a].addInt(b);
                    lists[b].addInt(a);
                }
            }
        }
        final int[][] result = new int[n][];
        for (int i = 0; i < n; i++)
        {
            result[i] = lists[i].toIntArray();
        }
        return result;
    }

    private void allocatePool(final int slots)
    {
        final int old = slotSrc == null ? 0 : slotSrc.length;
        final UnsafeBuffer grown = new UnsafeBuffer(new byte[slots * slotLength]);
        if (pool != null)
        {
            grown.putBytes(0, pool, 0, old * slotLength);
        }
        pool = grown;
        slotSrc = slotSrc == null ? new int[slots] : Arrays.copyOf(slotSrc, slots);
        slotDst = slotDst == null ? new int[slots] : Arrays.copyOf(slotDst, slots);
        slotType = slotType == null ? new int[slots] : Arrays.copyOf(slotType, slots);
        slotLength2 = slotLength2 == null ? new int[slots] : Arrays.copyOf(slotLength2, slots);
        freeSlots = freeSlots == null ? new int[slots] : Arrays.copyOf(freeSlots, slots);
        for (int s = slots - 1; s >= old; s--)
        {
            freeSlots[freeCount++] = s;
        }
    }

    private void enqueue(
        final int src, final int dst, final int type, final DirectBuffer buffer, final int offset, final int length)
    {
        messagesSent++;
        if (options.lossRate > 0 && random.nextDouble() < options.lossRate)
        {
            messagesLost++;
            return;
        }
        if (length > slotLength)
        {
            messagesOverflowed++;
            return;
        }
        if (freeCount == 0)
        {
            if (slotSrc.length * 2 > options.maxInFlight)
            {
                messagesOverflowed++;
                return;
            }
            allocatePool(slotSrc.length * 2);
        }
        final int slot = freeSlots[--freeCount];
        pool.putBytes(slot * slotLength, buffer, offset, length);
        slotSrc[slot] = src;
        slotDst[slot] = dst;
        slotType[slot] = type;
        slotLength2[slot] = length;
        final int delay = options.minDelayTicks == options.maxDelayTicks ? options.minDelayTicks :
            options.minDelayTicks + random.nextInt(options.maxDelayTicks - options.minDelayTicks + 1);
        wheel[(int)((nowTick + delay) % wheel.length)].addInt(slot);
    }

    /**
     * Advance one tick: deliver due messages to live nodes, then tick every live node.
     */
    public void step()
    {
        nowTick++;
        final IntArrayList due = wheel[(int)(nowTick % wheel.length)];
        for (int i = 0; i < due.size(); i++)
        {
            final int slot = due.getInt(i);
            final int dst = slotDst[slot];
            if (!crashed[dst])
            {
                nodes[dst].onMessage(
                    nowTick, slotSrc[slot], slotType[slot], pool, slot * slotLength, slotLength2[slot]);
            }
            freeSlots[freeCount++] = slot;
        }
        due.clear();
        for (int p = 0; p < processes; p++)
        {
            if (!crashed[p])
            {
                nodes[p].tick(nowTick);
            }
        }
    }

    /**
     * @param ticks to run.
     */
    public void run(final long ticks)
    {
        for (long t = 0; t < ticks; t++)
        {
            step();
        }
    }

    /**
     * Run until every live process follows the same live leader, or the limit.
     *
     * @param maxTicks limit.
     * @return ticks taken, or -1 if the limit was reached.
     */
    public long runUntilAgreement(final long maxTicks)
    {
        for (long t = 0; t <= maxTicks; t++)
        {
            if (agreedLeader() >= 0)
            {
                return t;
            }
            step();
        }
        return -1;
    }

    /**
     * Crash a process: it stops ticking, receiving and bumping its heartbeat.
     *
     * @param processId to crash.
     */
    public void crash(final int processId)
    {
        if (!crashed[processId])
        {
            crashed[processId] = true;
            liveCount--;
        }
    }

    /**
     * Crash a random fraction of processes, always including {@code alsoCrash}.
     *
     * @param fraction  0..1 of n.
     * @param alsoCrash a process to crash as well, or -1.
     * @return the number crashed.
     */
    public int crashRandom(final double fraction, final int alsoCrash)
    {
        final int target = (int)Math.round(fraction * processes);
        if (alsoCrash >= 0)
        {
            crash(alsoCrash);
        }
        while (processes - liveCount < target)
        {
            crash(random.nextInt(processes));
        }
        return processes - liveCount;
    }

    /** @return the leader every live process follows, if it is live and unanimous; else -1. */
    public int agreedLeader()
    {
        int leader = -2;
        for (int p = 0; p < processes; p++)
        {
            if (!crashed[p])
            {
                final int l = nodes[p].leaderId();
                if (l < 0 || (leader != -2 && l != leader))
                {
                    return -1;
                }
                leader = l;
            }
        }
        return leader >= 0 && !crashed[leader] ? leader : -1;
    }

    /**
     * @return true if every live process holds exactly the crashed processes DEAD and no live one DEAD or SUSPECT.
     */
    public boolean viewsAreExact()
    {
        final int crashedCount = processes - liveCount;
        for (int p = 0; p < processes; p++)
        {
            if (crashed[p])
            {
                continue;
            }
            if (nodes[p].deadCount() != crashedCount)
            {
                return false;
            }
        }
        for (int p = 0; p < processes; p++)
        {
            if (crashed[p])
            {
                continue;
            }
            for (int q = 0; q < processes; q++)
            {
                final MemberStatus s = nodes[p].status(q);
                if (crashed[q] != (s == MemberStatus.DEAD))
                {
                    return false;
                }
            }
        }
        return true;
    }

    /** @return the lowest live id. */
    public int lowestLive()
    {
        for (int p = 0; p < processes; p++)
        {
            if (!crashed[p])
            {
                return p;
            }
        }
        return -1;
    }

    /**
     * @param processId a process.
     * @return its node.
     */
    public MembershipNode node(final int processId)
    {
        return nodes[processId];
    }

    /**
     * @param processId a process.
     * @return its plan neighbours.
     */
    public int[] neighbours(final int processId)
    {
        return neighbours[processId].clone();
    }

    /**
     * @param processId a process.
     * @return true if crashed.
     */
    public boolean isCrashed(final int processId)
    {
        return crashed[processId];
    }

    /**
     * @param processId a process.
     * @return the refusal sentence it received, or null.
     */
    public String refusal(final int processId)
    {
        return refusals[processId];
    }

    /** @return current tick. */
    public long nowTick()
    {
        return nowTick;
    }

    /** @return messages sent since the start. */
    public long messagesSent()
    {
        return messagesSent;
    }

    /** @return messages lost by the network. */
    public long messagesLost()
    {
        return messagesLost;
    }

    /** @return messages dropped because the in-flight limit was hit. */
    public long messagesOverflowed()
    {
        return messagesOverflowed;
    }

    /** @return live processes. */
    public int liveCount()
    {
        return liveCount;
    }

    /** @return n. */
    public int processes()
    {
        return processes;
    }

    /** @return malformed messages over all live nodes (must stay 0 without an attacker). */
    public long malformedMessages()
    {
        long sum = 0;
        for (final MembershipNode node : nodes)
        {
            sum += node.malformedMessages();
        }
        return sum;
    }
}
