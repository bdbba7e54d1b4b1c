package io.mmx.runtime.core;

/**
 * Routes a leader's new Accept groups to executors (thrifty phase 2): once it knows an executor
 * for enough acceptors (from this term's Promises and Accepted bundles), a group goes only to those executors,
 * one Accept per executor naming its acceptors, quorum + n/32 acceptors in all; until then it is
 * broadcast. With hosts of several processes ({@link CoreConfig#hosts}), the owners on one host that
 * execute their own acceptors share one Accept naming them all ({@link Effects#sendToHost}). Performance only: which acceptors answer never matters for safety, and
 * retransmissions always broadcast, so a wrong guess costs one retransmission period.
 */
final class AcceptRouter
{
    private final int self;
    private final int n;
    private final Effects effects;
    /** The executor that last ran each acceptor for us, or -1. */
    private final int[] executorOf;
    private final int[] thriftyCount;
    private final int[][] thriftyLists;
    private final int thriftyTarget;
    private final CoreConfig config;
    /** Per host: the owners there that execute their own acceptor in this group (shared hosts only). */
    private final int[] hostCount;
    private final int[][] hostLists;
    /** True for the acceptors this process's own drivers execute: their Accepts go to ourselves. */
    private final java.util.function.IntPredicate executesLocally;

    AcceptRouter(final int self, final CoreConfig config, final Effects effects,
        final java.util.function.IntPredicate executesLocally)
    {
        this.self = self;
        this.executesLocally = executesLocally;
        this.config = config;
        this.hostCount = config.sharedHosts() ? new int[config.n()] : null;
        this.hostLists = config.sharedHosts() ? new int[config.n()][] : null;
        this.n = config.n();
        this.effects = effects;
        this.executorOf = new int[n];
        java.util.Arrays.fill(executorOf, -1);
        this.thriftyCount = new int[n];
        this.thriftyLists = new int[n][];
        // A margin above the quorum absorbs a few slow or lost executors before a retransmission.
        this.thriftyTarget = Math.min(n, config.quorumSize() + Math.max(1, n / 32));
    }

    /** {@code executor} ran {@code acceptor} for us (an Accepted bundle named it). */
    void heard(final int acceptor, final int executor)
    {
        executorOf[acceptor] = executor;
    }

    /** A new term: no executor is known until this ballot's Promises and Accepted bundles name them. */
    void forgetExecutors()
    {
        java.util.Arrays.fill(executorOf, -1);
    }

    /** Sends a new group: to the known executors of enough acceptors, else to every process. */
    void send(final long ballot, final long firstSlot, final long[][] values, final long durable, final long decidedBase)
    {
        if (!sendThrifty(ballot, firstSlot, values, durable, decidedBase))
        {
            effects.broadcast(new Message.Accept(self, ballot, firstSlot, values, durable, decidedBase));
        }
    }

    /**
     * Thrifty phase 2: ask only as many acceptors as a quorum plus a margin, each from the
     * executor that last ran it for us, one Accept per executor naming its acceptors. Returns
     * false (broadcast instead) until enough acceptors have known executors.
     */
    private boolean sendThrifty(final long ballot, final long firstSlot, final long[][] values, final long durable,
        final long decidedBase)
    {
        int known = 0;
        for (int q = 0; q < n && known < thriftyTarget; q++)
        {
            known += executorOf[q] >= 0 || executesLocally.test(q) ? 1 : 0;
        }
        if (known < thriftyTarget)
        {
            return false;
        }
        // The acceptors we execute ourselves first: they answer within our own duty cycle.
        int chosen = 0;
        for (int pass = 0; pass < 2; pass++)
        {
            for (int q = 0; q < n && chosen < thriftyTarget; q++)
            {
                final boolean local = executesLocally.test(q);
                final int e = local ? self : executorOf[q];
                if (e < 0 || local != (pass == 0))
                {
                    continue;
                }
                if (thriftyLists[e] == null || thriftyLists[e].length == thriftyCount[e])
                {
                    thriftyLists[e] = thriftyLists[e] == null ? new int[4] :
                        java.util.Arrays.copyOf(thriftyLists[e], thriftyLists[e].length * 2);
                }
                thriftyLists[e][thriftyCount[e]++] = q;
                chosen++;
            }
        }
        for (int e = 0; e < n; e++)
        {
            if (thriftyCount[e] == 0)
            {
                continue;
            }
            if (hostCount != null && e != self && thriftyCount[e] == 1 && thriftyLists[e][0] == e)
            {
                // An owner executing its own acceptor: one Accept for all such owners of its host.
                final int h = config.hostOf(e);
                if (hostLists[h] == null || hostLists[h].length == hostCount[h])
                {
                    hostLists[h] = hostLists[h] == null ? new int[4] : java.util.Arrays.copyOf(hostLists[h], hostLists[h].length * 2);
                }
                hostLists[h][hostCount[h]++] = e;
            }
            else
            {
                // Ourselves, or an executor running a suspected neighbour's acceptor: only it may get the
                // Accept, or the owner beside it would run the same acceptor in a race for its head word.
                effects.send(e, new Message.Accept(self, ballot, firstSlot, values, durable, decidedBase,
                    java.util.Arrays.copyOf(thriftyLists[e], thriftyCount[e])));
            }
            thriftyCount[e] = 0;
        }
        for (int h = 0; hostCount != null && h < n; h++)
        {
            if (hostCount[h] == 0)
            {
                continue;
            }
            final Message.Accept accept = new Message.Accept(self, ballot, firstSlot, values, durable, decidedBase,
                java.util.Arrays.copyOf(hostLists[h], hostCount[h]));
            if (hostCount[h] == 1)
            {
                effects.send(hostLists[h][0], accept);
            }
            else
            {
                effects.sendToHost(hostLists[h][0], accept);
            }
            hostCount[h] = 0;
        }
        return true;
    }
}
