package io.mmx.membership.election;

import io.mmx.membership.MembershipConfig;
import io.mmx.membership.OwnStalls;
import io.mmx.membership.Role;
import io.mmx.membership.neighbour.HostLiveness;

/**
 * Ω at one process, an explicit state machine over {@link Role} driven by ticks.
 * <p>
 * A leader puts the claim (id, epoch, age 0) on every message it sends; every process forwards the
 * freshest claim it holds with its age, so claims spread by gossip without any O(n) broadcast. A claim
 * older than the lease is not followed. The lowest id with a fresh claim wins: a leader that hears a
 * fresh claim from a lower id steps down, and a leader that hears nobody for a lease steps down too
 * (no membership message and no protocol message, {@link #onHeard}), so a deposed leader learns within
 * one message exchange or one lease. A process with no fresh claim
 * becomes CANDIDATE and claims after {@code rank × stagger} ticks, rank being the number of lower ids
 * it does not know dead, so the lowest live process claims first. Epochs grow by one at each new claim
 * and order leaderships for the consensus layer.
 * <p>
 * With a {@link HostLiveness} that knows (shm: every process on one machine), a claim past its lease
 * whose leader's JVM surely runs is kept, asked again every eighth of a lease, for up to
 * {@link #RUNNING_LEASES} leases: that leader is slow (its JVM waited for a core, or paused), not gone,
 * and moving leadership away and back costs two phase 1s. A crashed JVM's lock is free at once.
 */
public final class LeaderElection
{
    /** Told when the followed leader changes. */
    public interface Listener
    {
        /**
         * @param leaderId new leader or -1.
         * @param epoch    its epoch.
         * @param role     this process's election role.
         * @param nowTick  when.
         */
        void onLeaderChanged(int leaderId, long epoch, Role role, long nowTick);
    }

    /** Leases a claim is kept for while its leader's JVM surely runs; then it lapses (a hung JVM). */
    public static final int RUNNING_LEASES = 4;

    private final MembershipConfig config;
    private final HostLiveness liveness;
    private final int self;
    private final Listener listener;
    private Role role = Role.CANDIDATE;
    private long epoch;
    private long maxEpochSeen;
    private int claimId = -1;
    private long claimEpoch;
    private int claimIncarnation;
    private long claimBornTick = Long.MIN_VALUE / 2;
    /** The freshest claim of a higher id than the followed one: followed at once if the followed one dies. */
    private int altId = -1;
    private long altEpoch;
    private int altIncarnation;
    private long altBornTick = Long.MIN_VALUE / 2;
    private long candidateSinceTick;
    private long lastHeardTick;
    private final OwnStalls stalls;
    private int reportedLeader = -2;
    private int lastLeaderId = -1;
    private long reportedEpoch = -1;
    /** A claim past its lease stays followed until this tick: its leader's JVM surely ran when asked. */
    private long claimKeptUntilTick = Long.MIN_VALUE / 2;
    private long claimsKept;

    /**
     * @param config   concluded configuration.
     * @param self     this process.
     * @param listener told of leader changes.
     */
    public LeaderElection(final MembershipConfig config, final int self, final Listener listener)
    {
        this(config, self, listener, HostLiveness.NONE);
    }

    /**
     * As {@link #LeaderElection(MembershipConfig, int, Listener)}, keeping the claim of a leader whose
     * JVM {@code liveness} says surely runs for up to {@link #RUNNING_LEASES} leases.
     */
    public LeaderElection(final MembershipConfig config, final int self, final Listener listener,
        final HostLiveness liveness)
    {
        this.config = config;
        this.liveness = liveness;
        // Longer than a protocol period and an eighth of the lease: a parked idle host is not stalled.
        this.stalls = new OwnStalls(Math.max(config.protocolPeriodTicks(), config.leaderLeaseTicks() / 8) + 1);
        this.self = self;
        this.listener = listener;
    }

    /**
     * Advance the state machine.
     *
     * @param nowTick current tick.
     * @param rank    lower ids not known dead ({@code FailureDetector.rank()}).
     */
    public void tick(final long nowTick, final int rank)
    {
        tick(nowTick, rank, 0);
    }

    /**
     * Advance the state machine, knowing how many of the lower ids share this process's host.
     * <p>
     * A candidate waits {@code rank × stagger} ticks, the rank capped at {@code maxCandidateRank} so
     * that the lowest live process does not wait for the news of every death below it. Without more,
     * every process whose rank reaches the cap stands on the same tick: at n = 4096, after a JVM died
     * seconds before the leader's, some 2,500 candidates at once, each starting a phase 1 on a machine
     * with no core to spare. Lower ids on this process's own host surely run (they share its JVM), so
     * they are added after the cap: of a host's processes only its lowest stands at the capped wait,
     * the next one a stagger later, and by then it has heard the first's claim.
     *
     * @param nowTick    current tick.
     * @param rank       lower ids not known dead ({@code FailureDetector.rank()}).
     * @param hostLower  lower ids on this process's own host (0 when each process is its own host).
     */
    public void tick(final long nowTick, final int rank, final int hostLower)
    {
        discountOwnStall(nowTick);
        keepClaimOfRunningLeader(nowTick);
        final boolean fresh = isClaimFresh(nowTick);
        switch (role)
        {
            case FOLLOWER:
                if (!fresh)
                {
                    role = Role.CANDIDATE;
                    candidateSinceTick = nowTick;
                }
                else if (rank == 0 && claimId > self)
                {
                    becomeLeader(nowTick);
                }
                break;

            case CANDIDATE:
                if (fresh && (claimId < self || rank > 0))
                {
                    role = Role.FOLLOWER;
                }
                else if (nowTick - candidateSinceTick >= candidateWaitTicks(rank, hostLower))
                {
                    becomeLeader(nowTick);
                }
                break;

            case LEADER:
                if (fresh && claimId < self)
                {
                    role = Role.FOLLOWER;
                }
                else if (nowTick - lastHeardTick > config.leaderLeaseTicks())
                {
                    // Heard nobody for a lease: this leader may be cut off, and the others have moved on.
                    role = Role.CANDIDATE;
                    candidateSinceTick = nowTick;
                }
                break;
        }
        report(nowTick);
    }

    /** The capped rank of the other hosts' lower ids, then this host's lower ids: see {@link #tick(long, int, int)}. */
    long candidateWaitTicks(final int rank, final int hostLower)
    {
        final int onHost = Math.min(Math.max(hostLower, 0), rank);
        return ((long)Math.min(rank - onHost, config.maxCandidateRank()) + onHost) * config.candidateStaggerTicks();
    }

    /**
     * Ticks this process did not run (its JVM waited for a core, or paused, longer than a stall bound)
     * do not age the claim it holds nor its leader's contact: it could not hear anyone meanwhile, and
     * would otherwise drop a live leader on waking, before polling the news that came while it slept.
     * Gaps up to the bound (an idle host parks between ticks) count as time.
     */
    private void discountOwnStall(final long nowTick)
    {
        final long stalled = stalls.onTick(nowTick);
        claimBornTick += stalled;
        altBornTick += stalled;
        lastHeardTick += stalled;
    }

    /** Past its lease, the followed claim is kept while its leader's JVM surely runs (class comment). */
    private void keepClaimOfRunningLeader(final long nowTick)
    {
        final long lease = config.leaderLeaseTicks();
        if (claimId < 0 || claimId == self || claimBornTick + lease > nowTick || nowTick < claimKeptUntilTick)
        {
            return;
        }
        if (claimBornTick + (long)RUNNING_LEASES * lease > nowTick && liveness.surelyRuns(claimId))
        {
            claimsKept++;
            claimKeptUntilTick = nowTick + Math.max(1, lease / 8);
        }
        else
        {
            claimKeptUntilTick = Long.MIN_VALUE / 2;
        }
    }

    private void becomeLeader(final long nowTick)
    {
        role = Role.LEADER;
        epoch = maxEpochSeen + 1;
        maxEpochSeen = epoch;
        lastHeardTick = nowTick;
    }

    /**
     * A valid message arrived from another process: renews a leader's contact.
     *
     * @param nowTick now.
     */
    public void onHeard(final long nowTick)
    {
        lastHeardTick = nowTick;
    }

    /**
     * A claim record arrived on a message.
     *
     * @param nowTick      now.
     * @param leaderId     claimed leader, or -1.
     * @param leaderEpoch  its epoch.
     * @param ageTicks     age when sent.
     * @param incarnation  the leader's incarnation when it claimed.
     * @param leaderIsDead true if this view holds the claimant DEAD.
     */
    public void onClaim(
        final long nowTick,
        final int leaderId,
        final long leaderEpoch,
        final int ageTicks,
        final int incarnation,
        final boolean leaderIsDead)
    {
        if (leaderId < 0 || ageTicks < 0)
        {
            return;
        }
        maxEpochSeen = Math.max(maxEpochSeen, leaderEpoch);
        if (leaderId == self || leaderIsDead)
        {
            return;
        }
        // One tick per hop on top of the sender's age, so that a claim ages even over instant links.
        final long bornTick = nowTick - ageTicks - 1;
        if (bornTick + config.leaderLeaseTicks() <= nowTick)
        {
            return;
        }
        if (leaderId == claimId)
        {
            claimBornTick = Math.max(claimBornTick, bornTick);
            claimEpoch = Math.max(claimEpoch, leaderEpoch);
            claimIncarnation = Math.max(claimIncarnation, incarnation);
        }
        else if (!isClaimFresh(nowTick) || leaderId < claimId)
        {
            claimKeptUntilTick = Long.MIN_VALUE / 2;
            claimId = leaderId;
            claimEpoch = leaderEpoch;
            claimIncarnation = incarnation;
            claimBornTick = bornTick;
        }
        else if (leaderId == altId || altBornTick + config.leaderLeaseTicks() <= nowTick || leaderId < altId)
        {
            // A new leader's claim can overtake the news that the followed one died (they come from
            // different members): keep it, to follow it the moment that news arrives.
            altEpoch = leaderId == altId ? Math.max(altEpoch, leaderEpoch) : leaderEpoch;
            altIncarnation = leaderId == altId ? Math.max(altIncarnation, incarnation) : incarnation;
            altBornTick = leaderId == altId ? Math.max(altBornTick, bornTick) : bornTick;
            altId = leaderId;
        }
        if (leaderId < self && role != Role.FOLLOWER)
        {
            role = Role.FOLLOWER;
            report(nowTick);
        }
    }

    /**
     * The failure detector declared a member dead (or a LEADER_DOWN holds its host down): drop its claim
     * at once, and follow the freshest claim of a higher id held, if there is one.
     *
     * @param member  id.
     * @param nowTick now.
     */
    public void onMemberDead(final int member, final long nowTick)
    {
        if (member == altId)
        {
            altId = -1;
            altBornTick = Long.MIN_VALUE / 2;
        }
        if (member == claimId)
        {
            claimKeptUntilTick = Long.MIN_VALUE / 2;
            claimId = altId;
            claimEpoch = altEpoch;
            claimIncarnation = altIncarnation;
            claimBornTick = altBornTick;
            altId = -1;
            altBornTick = Long.MIN_VALUE / 2;
        }
    }

    /**
     * @param nowTick now.
     * @return true if this process should seek news of the leader: it has no fresh claim, or the one it
     * follows has used half its lease (this process has had few exchanges lately).
     */
    public boolean wantsLeaderNews(final long nowTick)
    {
        if (role == Role.LEADER)
        {
            return false;
        }
        return !isClaimFresh(nowTick) || nowTick - claimBornTick > config.leaderLeaseTicks() / 2;
    }

    private boolean isClaimFresh(final long nowTick)
    {
        return claimId >= 0 && (claimBornTick + config.leaderLeaseTicks() > nowTick ||
            nowTick < claimKeptUntilTick && claimBornTick + (long)RUNNING_LEASES * config.leaderLeaseTicks() > nowTick);
    }

    /** @return times a claim past its lease was kept because its leader's JVM surely ran (each asking). */
    public long claimsKept()
    {
        return claimsKept;
    }

    private void report(final long nowTick)
    {
        final int leader = leaderId(nowTick);
        final long leaderEpoch = leaderEpoch(nowTick);
        if (leader != reportedLeader || leaderEpoch != reportedEpoch)
        {
            reportedLeader = leader;
            reportedEpoch = leaderEpoch;
            if (leader >= 0)
            {
                lastLeaderId = leader;
            }
            listener.onLeaderChanged(leader, leaderEpoch, role, nowTick);
        }
    }

    /**
     * @param nowTick now.
     * @return the leader this process follows (itself when LEADER), or -1.
     */
    public int leaderId(final long nowTick)
    {
        if (role == Role.LEADER)
        {
            return self;
        }
        return role == Role.FOLLOWER && isClaimFresh(nowTick) ? claimId : -1;
    }

    /**
     * @param nowTick now.
     * @return epoch of {@link #leaderId(long)}, 0 if none.
     */
    public long leaderEpoch(final long nowTick)
    {
        if (role == Role.LEADER)
        {
            return epoch;
        }
        return role == Role.FOLLOWER && isClaimFresh(nowTick) ? claimEpoch : 0;
    }

    /**
     * @param nowTick now.
     * @return age to put on the outgoing claim record, or -1 if there is no record to send.
     */
    public int recordAgeTicks(final long nowTick)
    {
        if (role == Role.LEADER)
        {
            return 0;
        }
        return isClaimFresh(nowTick) ? (int)Math.min(Integer.MAX_VALUE, nowTick - claimBornTick) : -1;
    }

    /**
     * @param nowTick now.
     * @return id to put on the outgoing claim record, or -1.
     */
    public int recordLeaderId(final long nowTick)
    {
        if (role == Role.LEADER)
        {
            return self;
        }
        return isClaimFresh(nowTick) ? claimId : -1;
    }

    /**
     * @param nowTick now.
     * @return epoch to put on the outgoing claim record.
     */
    public long recordEpoch(final long nowTick)
    {
        return role == Role.LEADER ? epoch : isClaimFresh(nowTick) ? claimEpoch : maxEpochSeen;
    }

    /**
     * @param selfIncarnation this process's incarnation, used when it leads.
     * @return the incarnation to put on the outgoing claim record.
     */
    public int recordIncarnation(final int selfIncarnation)
    {
        return role == Role.LEADER ? selfIncarnation : claimIncarnation;
    }

    /** @return the leader followed now or most recently, or -1: news about it is gossiped first. */
    public int lastLeaderId()
    {
        return lastLeaderId;
    }

    /** @return this process's election role. */
    public Role role()
    {
        return role;
    }

    /** @return the highest epoch seen or held. */
    public long maxEpochSeen()
    {
        return maxEpochSeen;
    }
}
