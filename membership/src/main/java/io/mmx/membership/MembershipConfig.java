package io.mmx.membership;

import java.util.ArrayList;
import java.util.List;

/**
 * Every setting of a membership node, in ticks (the host decides what a tick is; docs/membership.md
 * assumes 10 ms). {@link #conclude(int)} validates all settings at once against the cluster size.
 */
public final class MembershipConfig
{
    /** Default SWIM protocol period: one probe per period. */
    public static final int DEFAULT_PROTOCOL_PERIOD_TICKS = 20;
    /** Default wait for a direct ack before probing indirectly. */
    public static final int DEFAULT_PROBE_TIMEOUT_TICKS = 5;
    /** Default number of members asked to probe indirectly (SWIM's k). */
    public static final int DEFAULT_INDIRECT_PROBES = 3;
    /** Default time a suspect has to refute before it is declared dead. */
    public static final int DEFAULT_SUSPICION_TIMEOUT_TICKS = 60;
    /** Default membership updates piggybacked on one message. */
    public static final int DEFAULT_MAX_PIGGYBACK_UPDATES = 8;
    /** Default capacity of the dissemination buffer. */
    public static final int DEFAULT_DISSEMINATION_CAPACITY = 256;
    /** Default λ: each update is sent λ·ceil(log2(n+1)) times. */
    public static final int DEFAULT_RETRANSMIT_MULTIPLIER = 3;
    /** Default leader lease: a claim older than this is not followed. */
    public static final int DEFAULT_LEADER_LEASE_TICKS = 800;
    /** Default extra wait per rank before a candidate claims. */
    public static final int DEFAULT_CANDIDATE_STAGGER_TICKS = 10;
    /** Default cap on the rank used for the candidate wait. */
    public static final int DEFAULT_MAX_CANDIDATE_RANK = 100;
    /** Default memory heartbeat interval. */
    public static final int DEFAULT_HEARTBEAT_INTERVAL_TICKS = 1;
    /** Default ticks a neighbour's heartbeat may stand still before it is suspected. */
    public static final int DEFAULT_NEIGHBOUR_STALE_TICKS = 20;
    /** Default ticks the leader's heartbeat may stand still before a neighbour declares it stopped. */
    public static final int DEFAULT_LEADER_STALE_TICKS = 5;
    /** Default reads (one per tick) that must see the leader's heartbeat stand still before it is declared stopped. */
    public static final int DEFAULT_LEADER_STALE_READS = 4;
    /**
     * Default ticks the leader's heartbeat may stand still before a neighbour asks the host whether the
     * leader's process is dead (only a host that can tell answers; a confirmed death is declared at once).
     */
    public static final int DEFAULT_LEADER_CONFIRMED_STALE_TICKS = 5;
    /** Default still reads before that question. */
    public static final int DEFAULT_LEADER_CONFIRMED_STALE_READS = 3;
    /** Largest cluster a node accepts. */
    public static final int MAX_PROCESSES = 1 << 20;

    private int protocolPeriodTicks = DEFAULT_PROTOCOL_PERIOD_TICKS;
    private int probeTimeoutTicks = DEFAULT_PROBE_TIMEOUT_TICKS;
    private int indirectProbes = DEFAULT_INDIRECT_PROBES;
    private int suspicionTimeoutTicks = DEFAULT_SUSPICION_TIMEOUT_TICKS;
    private int maxPiggybackUpdates = DEFAULT_MAX_PIGGYBACK_UPDATES;
    private int disseminationCapacity = DEFAULT_DISSEMINATION_CAPACITY;
    private int retransmitMultiplier = DEFAULT_RETRANSMIT_MULTIPLIER;
    private int leaderLeaseTicks = DEFAULT_LEADER_LEASE_TICKS;
    private int candidateStaggerTicks = DEFAULT_CANDIDATE_STAGGER_TICKS;
    private int maxCandidateRank = DEFAULT_MAX_CANDIDATE_RANK;
    private int heartbeatIntervalTicks = DEFAULT_HEARTBEAT_INTERVAL_TICKS;
    private int neighbourStaleTicks = DEFAULT_NEIGHBOUR_STALE_TICKS;
    private int leaderStaleTicks = DEFAULT_LEADER_STALE_TICKS;
    private int leaderStaleReads = DEFAULT_LEADER_STALE_READS;
    private int leaderConfirmedStaleTicks = DEFAULT_LEADER_CONFIRMED_STALE_TICKS;
    private int leaderConfirmedStaleReads = DEFAULT_LEADER_CONFIRMED_STALE_READS;
    private int concludedFor;

    /**
     * Validate every setting for a cluster of {@code processes}.
     *
     * @param processes cluster size n.
     * @return this.
     * @throws IllegalStateException listing every problem.
     */
    public MembershipConfig conclude(final int processes)
    {
        final List<String> errors = new ArrayList<>();
        if (processes < 1 || processes > MAX_PROCESSES)
        {
            errors.add("processes must be 1.." + MAX_PROCESSES + ", got " + processes);
        }
        if (protocolPeriodTicks < 2 || protocolPeriodTicks > 1_000_000)
        {
            errors.add("protocolPeriodTicks must be 2..1000000, got " + protocolPeriodTicks);
        }
        if (probeTimeoutTicks < 1 || probeTimeoutTicks >= protocolPeriodTicks)
        {
            errors.add("probeTimeoutTicks must be 1..protocolPeriodTicks-1 (" + (protocolPeriodTicks - 1) +
                "), got " + probeTimeoutTicks);
        }
        if (indirectProbes < 0 || indirectProbes > 16)
        {
            errors.add("indirectProbes must be 0..16, got " + indirectProbes);
        }
        if (suspicionTimeoutTicks < protocolPeriodTicks)
        {
            errors.add("suspicionTimeoutTicks must be at least one protocol period (" + protocolPeriodTicks +
                "), got " + suspicionTimeoutTicks);
        }
        if (maxPiggybackUpdates < 0 || maxPiggybackUpdates > 64)
        {
            errors.add("maxPiggybackUpdates must be 0..64, got " + maxPiggybackUpdates);
        }
        if (disseminationCapacity < 1 || disseminationCapacity > 65536)
        {
            errors.add("disseminationCapacity must be 1..65536, got " + disseminationCapacity);
        }
        if (retransmitMultiplier < 1 || retransmitMultiplier > 16)
        {
            errors.add("retransmitMultiplier must be 1..16, got " + retransmitMultiplier);
        }
        if (leaderLeaseTicks < 4)
        {
            // A leader renews its claim at every host each quarter lease (MembershipNode), so claims do
            // not wait on gossip; a quarter must still be a tick.
            errors.add("leaderLeaseTicks must be at least 4, got " + leaderLeaseTicks);
        }
        if (candidateStaggerTicks < 1 || maxCandidateRank < 0 || maxCandidateRank > 1024)
        {
            errors.add("candidateStaggerTicks must be >= 1 and maxCandidateRank 0..1024, got " +
                candidateStaggerTicks + " and " + maxCandidateRank);
        }
        if (heartbeatIntervalTicks < 1 || neighbourStaleTicks <= 2 * heartbeatIntervalTicks)
        {
            errors.add("heartbeatIntervalTicks must be >= 1 and neighbourStaleTicks more than twice it, got " +
                heartbeatIntervalTicks + " and " + neighbourStaleTicks);
        }
        if (leaderStaleTicks < 2 || leaderStaleReads < 1 || leaderStaleReads > leaderStaleTicks)
        {
            errors.add("leaderStaleTicks must be >= 2 and leaderStaleReads 1..leaderStaleTicks (one read per tick), got " +
                leaderStaleTicks + " and " + leaderStaleReads);
        }
        if (leaderConfirmedStaleReads < 1 || leaderConfirmedStaleReads > leaderConfirmedStaleTicks ||
            leaderConfirmedStaleTicks > leaderStaleTicks)
        {
            errors.add("leaderConfirmedStaleReads must be 1..leaderConfirmedStaleTicks and leaderConfirmedStaleTicks at " +
                "most leaderStaleTicks, got " + leaderConfirmedStaleReads + ", " + leaderConfirmedStaleTicks + " and " +
                leaderStaleTicks);
        }
        if (!errors.isEmpty())
        {
            throw new IllegalStateException("invalid membership configuration: " + String.join("; ", errors));
        }
        concludedFor = processes;
        return this;
    }

    /** @return the cluster size this was concluded for, 0 if not yet. */
    public int concludedFor()
    {
        return concludedFor;
    }

    /**
     * @param processes n.
     * @return transmissions of each disseminated update: λ·ceil(log2(n+1)).
     */
    public int retransmitLimit(final int processes)
    {
        return retransmitMultiplier * (32 - Integer.numberOfLeadingZeros(processes));
    }

    /**
     * A bound on failure detection that holds without gossip: every live process probes every
     * member within two passes of its probe order (2n periods), then waits out the probe and suspicion timeouts.
     *
     * @param processes n.
     * @return ticks from a crash until every live process has declared the crashed one dead.
     */
    public long detectionBoundTicks(final int processes)
    {
        // A crash just after a probe: the next probe of that member can be up to two passes of the order away.
        return 2L * processes * protocolPeriodTicks + suspicionTimeoutTicks + protocolPeriodTicks;
    }

    /** @return the protocol period. */
    public int protocolPeriodTicks()
    {
        return protocolPeriodTicks;
    }

    /**
     * @param value ticks per probe.
     * @return this.
     */
    public MembershipConfig protocolPeriodTicks(final int value)
    {
        protocolPeriodTicks = value;
        return this;
    }

    /** @return the direct probe timeout. */
    public int probeTimeoutTicks()
    {
        return probeTimeoutTicks;
    }

    /**
     * @param value ticks before probing indirectly.
     * @return this.
     */
    public MembershipConfig probeTimeoutTicks(final int value)
    {
        probeTimeoutTicks = value;
        return this;
    }

    /** @return k. */
    public int indirectProbes()
    {
        return indirectProbes;
    }

    /**
     * @param value k, members asked to probe indirectly.
     * @return this.
     */
    public MembershipConfig indirectProbes(final int value)
    {
        indirectProbes = value;
        return this;
    }

    /** @return the suspicion timeout. */
    public int suspicionTimeoutTicks()
    {
        return suspicionTimeoutTicks;
    }

    /**
     * @param value ticks a suspect has to refute.
     * @return this.
     */
    public MembershipConfig suspicionTimeoutTicks(final int value)
    {
        suspicionTimeoutTicks = value;
        return this;
    }

    /** @return updates per message. */
    public int maxPiggybackUpdates()
    {
        return maxPiggybackUpdates;
    }

    /**
     * @param value updates piggybacked per message.
     * @return this.
     */
    public MembershipConfig maxPiggybackUpdates(final int value)
    {
        maxPiggybackUpdates = value;
        return this;
    }

    /** @return dissemination buffer capacity. */
    public int disseminationCapacity()
    {
        return disseminationCapacity;
    }

    /**
     * @param value dissemination buffer capacity.
     * @return this.
     */
    public MembershipConfig disseminationCapacity(final int value)
    {
        disseminationCapacity = value;
        return this;
    }

    /** @return λ. */
    public int retransmitMultiplier()
    {
        return retransmitMultiplier;
    }

    /**
     * @param value λ.
     * @return this.
     */
    public MembershipConfig retransmitMultiplier(final int value)
    {
        retransmitMultiplier = value;
        return this;
    }

    /** @return the leader lease. */
    public int leaderLeaseTicks()
    {
        return leaderLeaseTicks;
    }

    /**
     * @param value ticks a leader claim stays fresh.
     * @return this.
     */
    public MembershipConfig leaderLeaseTicks(final int value)
    {
        leaderLeaseTicks = value;
        return this;
    }

    /** @return the candidate stagger. */
    public int candidateStaggerTicks()
    {
        return candidateStaggerTicks;
    }

    /**
     * @param value extra candidate wait per rank.
     * @return this.
     */
    public MembershipConfig candidateStaggerTicks(final int value)
    {
        candidateStaggerTicks = value;
        return this;
    }

    /** @return the rank cap. */
    public int maxCandidateRank()
    {
        return maxCandidateRank;
    }

    /**
     * @param value cap on the rank used for the candidate wait.
     * @return this.
     */
    public MembershipConfig maxCandidateRank(final int value)
    {
        maxCandidateRank = value;
        return this;
    }

    /** @return the heartbeat interval. */
    public int heartbeatIntervalTicks()
    {
        return heartbeatIntervalTicks;
    }

    /**
     * @param value ticks between memory heartbeats.
     * @return this.
     */
    public MembershipConfig heartbeatIntervalTicks(final int value)
    {
        heartbeatIntervalTicks = value;
        return this;
    }

    /** @return the neighbour stale threshold. */
    public int neighbourStaleTicks()
    {
        return neighbourStaleTicks;
    }

    /**
     * @param value ticks a neighbour heartbeat may stand still.
     * @return this.
     */
    public MembershipConfig neighbourStaleTicks(final int value)
    {
        neighbourStaleTicks = value;
        return this;
    }

    /** @return ticks the leader's heartbeat may stand still before a neighbour declares it stopped. */
    public int leaderStaleTicks()
    {
        return leaderStaleTicks;
    }

    /**
     * @param value ticks the leader's heartbeat may stand still before a neighbour declares it stopped.
     * @return this.
     */
    public MembershipConfig leaderStaleTicks(final int value)
    {
        leaderStaleTicks = value;
        return this;
    }

    /** @return reads that must see the leader's heartbeat stand still before it is declared stopped. */
    public int leaderStaleReads()
    {
        return leaderStaleReads;
    }

    /**
     * @param value reads (one per tick) that must see the leader's heartbeat stand still: the reader's own
     *              scheduling delays count as one read, not as many ticks of silence.
     * @return this.
     */
    public MembershipConfig leaderStaleReads(final int value)
    {
        leaderStaleReads = value;
        return this;
    }

    /** @return ticks of standing still before a host that can tell is asked whether the leader's process died. */
    public int leaderConfirmedStaleTicks()
    {
        return leaderConfirmedStaleTicks;
    }

    /**
     * @param value ticks the leader's heartbeat may stand still before a neighbour asks its host whether the
     *              leader's process is dead ({@code HostLiveness.surelyDead}); a confirmed death is declared
     *              then, without waiting for {@link #leaderStaleTicks()}. At most leaderStaleTicks.
     * @return this.
     */
    public MembershipConfig leaderConfirmedStaleTicks(final int value)
    {
        leaderConfirmedStaleTicks = value;
        return this;
    }

    /** @return still reads before that question (asked again every as many reads while the word stands). */
    public int leaderConfirmedStaleReads()
    {
        return leaderConfirmedStaleReads;
    }

    /**
     * @param value still reads (one per tick) before a neighbour asks its host; 1..leaderConfirmedStaleTicks.
     * @return this.
     */
    public MembershipConfig leaderConfirmedStaleReads(final int value)
    {
        leaderConfirmedStaleReads = value;
        return this;
    }
}
