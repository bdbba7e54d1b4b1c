package io.mmx.runtime.core;

/**
 * Collects the Accepted replies of one executor for one Accept group across the acceptors it
 * covers, and sends them as one {@link Message.Accepted} once every covered acceptor resolved
 * (or at the next tick). Bounded: {@code capacity} groups; the oldest is flushed when full.
 */
final class AcceptedBundles
{
    private final int self;
    private final int n;
    private final Effects effects;
    private final Learner learner;
    private final long[] ballots;
    private final long[] firstSlots;
    private final int[] outstanding;
    private final int[][] acceptors;
    /** The first length of a row's acceptor list: the acceptors this process may cover. */
    private final int maxAcceptors;
    private final int[] counts;
    /** A covered acceptor's window was full: report our durable prefix even with no acceptor. */
    private final boolean[] report;
    private int size;
    private long bundlesSent;

    AcceptedBundles(final int self, final int n, final int capacity, final int maxAcceptors, final Effects effects,
        final Learner learner)
    {
        this.learner = learner;
        this.self = self;
        this.n = n;
        this.effects = effects;
        this.ballots = new long[capacity];
        this.firstSlots = new long[capacity];
        this.outstanding = new int[capacity];
        // A row's list is made when a group first collects an acceptor: a process has a few groups
        // open at once, and at n = 4096 a list per row for every core was 262,144 arrays at start.
        this.acceptors = new int[capacity][];
        this.maxAcceptors = maxAcceptors;
        this.counts = new int[capacity];
        this.report = new boolean[capacity];
    }

    long bundlesSent()
    {
        return bundlesSent;
    }

    /** {@code k} more acceptor resolutions will follow for group (ballot, firstSlot). */
    void expect(final long ballot, final long firstSlot, final int k)
    {
        int i = find(ballot, firstSlot);
        if (i < 0)
        {
            if (size == ballots.length)
            {
                send(0);
                remove(0);
            }
            i = size++;
            ballots[i] = ballot;
            firstSlots[i] = firstSlot;
            outstanding[i] = 0;
            counts[i] = 0;
            report[i] = false;
        }
        outstanding[i] += k;
    }

    /**
     * One covered acceptor is done with group (ballot, firstSlot). {@code windowFull}: it could not
     * accept for lack of room, so the leader needs our durable prefix to let floors rise.
     */
    void resolve(final long ballot, final long firstSlot, final int acceptor, final boolean accepted,
        final boolean windowFull)
    {
        final int i = find(ballot, firstSlot);
        if (i < 0)
        {
            if (accepted || windowFull)
            {
                bundlesSent++;
                effects.send(Ballot.proposer(ballot, n), new Message.Accepted(self, ballot, firstSlot,
                    accepted ? new int[] {acceptor} : new int[0], learner.durableThrough()));
            }
            return;
        }
        report[i] |= windowFull;
        if (accepted)
        {
            int[] list = acceptors[i];
            if (list == null || counts[i] == list.length)
            {
                list = list == null ? new int[maxAcceptors] : java.util.Arrays.copyOf(list, list.length * 2);
                acceptors[i] = list;
            }
            list[counts[i]++] = acceptor;
        }
        if (--outstanding[i] <= 0)
        {
            send(i);
            remove(i);
        }
    }

    /** Sends what has been collected so far; keeps waiting for the rest. */
    void flushAll()
    {
        for (int i = 0; i < size; i++)
        {
            send(i);
        }
    }

    private void send(final int i)
    {
        if (counts[i] == 0 && !report[i])
        {
            return;
        }
        report[i] = false;
        bundlesSent++;
        effects.send(Ballot.proposer(ballots[i], n),
            new Message.Accepted(self, ballots[i], firstSlots[i],
                counts[i] == 0 ? new int[0] : java.util.Arrays.copyOf(acceptors[i], counts[i]), learner.durableThrough()));
        counts[i] = 0;
    }

    private int find(final long ballot, final long firstSlot)
    {
        for (int i = 0; i < size; i++)
        {
            if (firstSlots[i] == firstSlot && ballots[i] == ballot)
            {
                return i;
            }
        }
        return -1;
    }

    private void remove(final int i)
    {
        size--;
        if (i == size)
        {
            return; // the last row (usually the only one): its list stays where it is, for the next group
        }
        final int[] list = acceptors[i];
        for (int j = i; j < size; j++)
        {
            ballots[j] = ballots[j + 1];
            firstSlots[j] = firstSlots[j + 1];
            outstanding[j] = outstanding[j + 1];
            acceptors[j] = acceptors[j + 1];
            counts[j] = counts[j + 1];
        }
        acceptors[size] = list;
    }
}
