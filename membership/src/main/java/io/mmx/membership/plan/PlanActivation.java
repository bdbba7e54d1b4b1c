package io.mmx.membership.plan;

import io.mmx.planner.plan.PlanDigest;

/**
 * Plan activation at one process: PENDING until every plan neighbour has confirmed the same plan
 * hash (or is known dead) and a leader is known, then ACTIVE; REFUSED, for good, when another process
 * answers with a different plan. Every membership message carries the sender's plan fingerprint, and
 * a receiver drops any message of another plan and answers PLAN_REFUSED with its full hash, so
 * processes of two plans never mix their views.
 */
public final class PlanActivation
{
    /** Activation state. */
    public enum State
    {
        /** Waiting for confirmations: must not serve. */
        PENDING,
        /** Neighbours and leader run this plan: may serve. */
        ACTIVE,
        /** Another process runs another plan: must not serve; restart with the cluster's plan. */
        REFUSED
    }

    private final byte[] planHash;
    private final long fingerprint;
    private final int[] neighbours;
    private final boolean[] confirmed;
    private State state = State.PENDING;
    private int confirmedCount;
    private String refusal;

    /**
     * @param planDigest the plan's content hash.
     * @param neighbours plan neighbours of this process.
     */
    public PlanActivation(final PlanDigest planDigest, final int[] neighbours)
    {
        this.planHash = planDigest.toByteArray();
        this.neighbours = neighbours.clone();
        this.confirmed = new boolean[neighbours.length];
        fingerprint = planDigest.membershipFingerprint();
    }

    /**
     * @param hash bytes.
     * @return lower-case hex.
     */
    public static String hex(final byte[] hash)
    {
        final StringBuilder sb = new StringBuilder(hash.length * 2);
        for (final byte b : hash)
        {
            sb.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
        }
        return sb.toString();
    }

    /**
     * A neighbour (or any process) confirmed the same plan.
     *
     * @param processId who.
     */
    public void onConfirmed(final int processId)
    {
        for (int i = 0; i < neighbours.length; i++)
        {
            if (neighbours[i] == processId && !confirmed[i])
            {
                confirmed[i] = true;
                confirmedCount++;
            }
        }
    }

    /**
     * Try to activate.
     *
     * @param leaderKnown true if a leader with a fresh claim is known.
     * @param deadView    tells which neighbours are known dead.
     * @return true if this call moved PENDING to ACTIVE.
     */
    public boolean tryActivate(final boolean leaderKnown, final java.util.function.IntPredicate deadView)
    {
        if (state != State.PENDING || !leaderKnown)
        {
            return false;
        }
        for (int i = 0; i < neighbours.length; i++)
        {
            if (!confirmed[i] && !deadView.test(neighbours[i]))
            {
                return false;
            }
        }
        state = State.ACTIVE;
        return true;
    }

    /**
     * Another process refused this one.
     *
     * @param self        this process.
     * @param refuser     the process that refused.
     * @param refuserHash its plan hash.
     * @return the sentence to report, or null if already refused.
     */
    public String onRefused(final int self, final int refuser, final byte[] refuserHash)
    {
        if (state == State.REFUSED)
        {
            return null;
        }
        state = State.REFUSED;
        refusal = "process " + refuser + " refused process " + self + ": it runs plan " + hex(refuserHash) +
            " but this process runs plan " + hex(planHash) + "; restart this process with the cluster's plan file";
        return refusal;
    }

    /**
     * @param index of a neighbour.
     * @return true if it still has to confirm.
     */
    public boolean awaits(final int index)
    {
        return !confirmed[index];
    }

    /** @return plan neighbours. */
    public int[] neighbours()
    {
        return neighbours;
    }

    /** @return neighbours that confirmed. */
    public int confirmedCount()
    {
        return confirmedCount;
    }

    /** @return the state. */
    public State state()
    {
        return state;
    }

    /** @return the fingerprint. */
    public long fingerprint()
    {
        return fingerprint;
    }

    /** @return a copy of the plan hash. */
    public byte[] planHash()
    {
        return planHash.clone();
    }

    /** @return the refusal sentence, or null. */
    public String refusal()
    {
        return refusal;
    }
}
