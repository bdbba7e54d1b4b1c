package io.mmx.runtime.host;

import java.util.concurrent.CompletableFuture;

/**
 * A command submitted through a host, on its way: queued by any thread with
 * {@link ProcessHost#enqueue(Submission)}, then routed and tracked on the host's thread until it is
 * applied at the host's first process (the future completes with the reply) or times out.
 */
public final class Submission
{
    final CompletableFuture<Long> future = new CompletableFuture<>();
    final byte[] payload;
    final boolean probe;
    /** A plan change's plan id ({@link #planChange}), or 0 for a command or probe. */
    final long planId;
    /** A plan change's number of processes in the new plan, or 0 when not given. */
    final int planProcesses;
    long counter;
    long[] words;
    long deadlineTick;
    long routedTick = Long.MIN_VALUE;
    int routedTo = -1;

    /**
     * @param payload the command's bytes (at most what the core's proposal width carries).
     * @param probe   a probe: ordered and decided, never applied; {@code payload} is ignored.
     */
    public Submission(final byte[] payload, final boolean probe)
    {
        this.payload = payload;
        this.probe = probe;
        this.planId = 0;
        this.planProcesses = 0;
    }

    private Submission(final long planId, final int planProcesses)
    {
        this.payload = new byte[0];
        this.probe = false;
        this.planId = planId;
        this.planProcesses = planProcesses;
    }

    /**
     * A plan change to the plan with id {@code planId} (its {@code PlanDigest.id64()}): ordered and
     * decided like a command; the first one decided ends the era, and its reply is its log index.
     */
    public static Submission planChange(final long planId)
    {
        return planChange(planId, 0);
    }

    /**
     * As {@link #planChange(long)}, saying that the new plan has {@code processes} processes: a node
     * whose processes all lie beyond them learns from the change alone that it leaves the cluster.
     */
    public static Submission planChange(final long planId, final int processes)
    {
        if (planId == 0)
        {
            throw new IllegalArgumentException("plan id 0 names no plan");
        }
        if (processes < 0 || processes > 0xFFFF_FFFFL >>> 12)
        {
            throw new IllegalArgumentException("a plan of " + processes + " processes");
        }
        return new Submission(planId, processes);
    }

    /** @return completed with the state machine's reply (a probe or a plan change: its log index), or failed. */
    public CompletableFuture<Long> future()
    {
        return future;
    }
}
