package io.mmx.runtime.node;

import io.mmx.membership.MembershipNode;
import io.mmx.membership.Role;
import io.mmx.membership.plan.PlanActivation;
import io.mmx.runtime.core.Status;

import java.util.concurrent.TimeUnit;

/**
 * The event lines of one hosted process, derived from what its replica already sees change: the
 * leader membership names, a neighbour's memory heartbeat stopping and resuming, the core taking
 * over that neighbour's acceptor and handing it back (read from the core after the suspicion, not
 * assumed), the published role entering and leaving BLOCKED, the core's first ready status after
 * a start, the applied log falling behind the decided one and catching up, and membership
 * refusing another plan. Conditions that can flap are limited ({@link EventLimiter}).
 *
 * <p>It also keeps the process's takeover count and blocked time for {@code /metrics} and the
 * Aeron counters; those are written on the agent thread and read by a scrape.
 */
final class ReplicaEvents
{
    /** A lag of more than this many slots between decided and applied is catching up. */
    static final int CATCH_UP_START_SLOTS = 64;
    /** Caught up again once the lag is this many slots or fewer. */
    static final int CATCH_UP_END_SLOTS = 4;
    /**
     * BLOCKED must hold this long before it is an event: every process that names itself leader at
     * start-up is blocked until its first acceptors answer, for a few milliseconds.
     */
    static final long BLOCKED_REPORT_NS = TimeUnit.MILLISECONDS.toNanos(500);
    private static final long WINDOW_NS = TimeUnit.SECONDS.toNanos(10);

    private final int id;
    private final int[] neighbours;
    private final long tickNs;
    private final ProcessCounters counters;
    private final boolean restart;
    private final long blockedReportTicks;
    private String blockedMessage;
    private final EventLimiter leaderLimiter;
    private final EventLimiter leadsLimiter;
    private final EventLimiter foreignPlanLimiter;
    private final ConditionEvents[] suspicion;
    private final ConditionEvents[] takeover;
    private final ConditionEvents blocked;
    private final ConditionEvents catchUp;
    private volatile long takeovers;
    private long leaderChanges;
    private long leaderStopsVetoed;
    private long neighbourSuspicionsVetoed;
    private long hostsHeldDead;
    private long silentLeadersGone;
    private long leaderClaimsKept;
    private long leaderStopsDeclared;
    private long blockedTicks;
    private long blockedSinceTick = -1;
    /** Blocked ticks through the last tick, the current spell included: one word, so a scrape never sees it fall. */
    private volatile long blockedTicksSeen;
    private long catchUpStartTick;
    private long catchUpFromSlot;
    private long foreignPlanLogged;
    private boolean planRefusedLogged;
    private boolean recovered;
    /** The core's role at the last status, and the tick its current phase 1 began (-1: not preparing). */
    private Role coreRole = Role.FOLLOWER;
    private long preparingSinceTick = -1;

    /**
     * @param restart true if the process's region existed at start (a restart), false if it was formatted now.
     */
    ReplicaEvents(final int id, final int[] neighbours, final long tickNs, final ProcessCounters counters,
        final boolean restart)
    {
        this.counters = counters;
        this.restart = restart;
        this.blockedReportTicks = Math.max(1, BLOCKED_REPORT_NS / tickNs);
        this.id = id;
        this.neighbours = neighbours.clone();
        this.tickNs = tickNs;
        this.leaderLimiter = EventLimiter.of(WINDOW_NS, tickNs, 5);
        this.leadsLimiter = EventLimiter.of(WINDOW_NS, tickNs, 5);
        this.foreignPlanLimiter = EventLimiter.of(WINDOW_NS, tickNs, 1);
        this.suspicion = new ConditionEvents[neighbours.length];
        this.takeover = new ConditionEvents[neighbours.length];
        for (int i = 0; i < neighbours.length; i++)
        {
            suspicion[i] = new ConditionEvents("neighbour_suspected", EventLog.Level.WARN, "neighbour_recovered",
                EventLog.Level.INFO, id, EventLimiter.of(WINDOW_NS, tickNs, 4));
            takeover[i] = new ConditionEvents("acceptor_takeover", EventLog.Level.WARN, "acceptor_released",
                EventLog.Level.INFO, id, EventLimiter.of(WINDOW_NS, tickNs, 4));
        }
        this.blocked = new ConditionEvents("blocked", EventLog.Level.WARN, "unblocked", EventLog.Level.INFO, id,
            EventLimiter.of(WINDOW_NS, tickNs, 4));
        this.catchUp = new ConditionEvents("catching_up", EventLog.Level.INFO, "caught_up", EventLog.Level.INFO, id,
            EventLimiter.of(6 * WINDOW_NS, tickNs, 4));
    }

    /** Each tick, first: writes conditions whose last change a limit left out. */
    void onTick(final long tick)
    {
        blockedTicksSeen = blockedTicks + (blockedSinceTick >= 0 ? tick - blockedSinceTick : 0);
        for (int i = 0; i < neighbours.length; i++)
        {
            suspicion[i].onTick(tick);
            takeover[i].onTick(tick);
        }
        if (blockedSinceTick >= 0 && !blocked.on() && tick - blockedSinceTick >= blockedReportTicks)
        {
            blocked.change(true, tick, blockedMessage);
        }
        blocked.onTick(tick);
        catchUp.onTick(tick);
    }

    /** Membership names another leader ({@code -1}: none known). */
    void onLeaderChange(final int was, final int now, final long tick)
    {
        leaderChanges++;
        leaderLimiter.log(tick, EventLog.Level.INFO, "leader_changed", id, now < 0 ?
            "no leader known (was " + was + ")" : "follows leader " + now + (now == id ? ", itself" : "") +
            " (was " + (was < 0 ? "none" : String.valueOf(was)) + ")");
    }

    /**
     * Membership's view of neighbour {@code neighbours[index]} changed, and the core then does
     * ({@code executes}) or does not execute that neighbour's acceptor transitions.
     */
    void onSuspicion(final int index, final boolean suspected, final boolean executes, final long tick)
    {
        final int q = neighbours[index];
        suspicion[index].change(suspected, tick, suspected ? "suspects neighbour " + q +
            " crashed: its memory heartbeat stopped" : "neighbour " + q + "'s memory heartbeat resumed");
        if (executes && !takeover[index].on())
        {
            takeovers++;
        }
        takeover[index].change(executes, tick, executes ? "runs neighbour " + q + "'s acceptor on " + q +
            "'s region until " + q + " is back" : "hands neighbour " + q + "'s acceptor back to it");
    }

    /**
     * The core is ready after a start: it read its region and resumes after slot
     * {@code resumesAfterSlot} (-1: the region's log was empty); the state machine holds slots
     * through {@code stateThroughSlot} (-1: nothing).
     */
    void onRecovered(final long resumesAfterSlot, final long stateThroughSlot, final long tick)
    {
        if (recovered)
        {
            return;
        }
        recovered = true;
        EventLog.log(EventLog.Level.INFO, "process_recovered", id, !restart ?
            "started on a fresh region: no decided slots yet" : resumesAfterSlot < 0 ?
            "restarted: read its region, which holds no decided slots; learns the log from its peers" :
            "restarted: read its region, resumes after slot " + resumesAfterSlot +
            (stateThroughSlot >= resumesAfterSlot ? ", its state holds them" : ", its state holds " +
            (stateThroughSlot < 0 ? "none of them" : "slots through " + stateThroughSlot) +
            ": a gap, which a peer's snapshot fills where the node keeps state (--state-dir)"));
    }

    /**
     * The published status, the core's status it was made from, and the core's counts of proposals
     * and retransmissions: events, then the counters.
     */
    void onStatus(final ProcessStatus published, final Status s, final long proposals, final long retransmissions,
        final long tick)
    {
        statusEvents(published, s, tick);
        counters.update(s.appliedThrough, proposals, retransmissions, takeovers, blockedNs(), leaderChanges,
            leaderStopsVetoed, leaderStopsDeclared, neighbourSuspicionsVetoed, leaderClaimsKept, hostsHeldDead,
            silentLeadersGone);
    }

    private void statusEvents(final ProcessStatus published, final Status s, final long tick)
    {
        roleEvents(s, tick);
        if (published.blocked())
        {
            if (blockedSinceTick < 0)
            {
                blockedSinceTick = tick;
            }
            // The line, written once it has held long enough (onTick), says how things are then.
            blockedMessage = s.barred ? "blocked: named leader, but its region came back empty, so it may not lead" :
                "blocked: reaches " + s.reachableAcceptors + " acceptors, a quorum needs " + s.neededAcceptors;
        }
        else if (blockedSinceTick >= 0)
        {
            final long spell = tick - blockedSinceTick;
            blockedTicks += spell;
            blockedSinceTick = -1;
            blockedTicksSeen = blockedTicks;
            blocked.change(false, tick, "no longer blocked after " + seconds(spell) + " s (" + published.shownRole() +
                ", reaches " + s.reachableAcceptors + " acceptors, a quorum needs " + s.neededAcceptors + ")");
        }
        // A restarted process may learn most of what it missed while it still reads its region
        // (RECOVERING): that is catching up too.
        final long lag = s.knownDecidedThrough - s.appliedThrough;
        if (!catchUp.on() && lag > CATCH_UP_START_SLOTS)
        {
            catchUpStartTick = tick;
            catchUpFromSlot = s.appliedThrough;
            catchUp.change(true, tick, "applied through slot " + s.appliedThrough + ", " + lag +
                " slots behind the decided log: catching up");
        }
        else if (catchUp.on() && lag <= CATCH_UP_END_SLOTS)
        {
            catchUp.change(false, tick, "caught up: applied " + (s.appliedThrough - catchUpFromSlot) +
                " slots in " + seconds(tick - catchUpStartTick) + " s, through slot " + s.appliedThrough);
        }
    }

    /** Membership's refusals: this process's plan refused by a peer, or messages of another plan dropped. */
    void onMembership(final MembershipNode membership, final long tick)
    {
        leaderStopsVetoed = membership.leaderDeclarationsVetoed();
        neighbourSuspicionsVetoed = membership.neighbourSuspicionsVetoed();
        leaderClaimsKept = membership.leaderClaimsKept();
        leaderStopsDeclared = membership.leaderDeclarations();
        hostsHeldDead = membership.hostsHeldDead();
        silentLeadersGone = membership.silentLeadersFoundGone();
        if (!planRefusedLogged && membership.planState() == PlanActivation.State.REFUSED)
        {
            planRefusedLogged = true;
            EventLog.log(EventLog.Level.ERROR, "plan_refused", id, String.valueOf(membership.planRefusal()));
        }
        final long foreign = membership.foreignPlanMessages();
        if (foreign > foreignPlanLogged && foreignPlanLimiter.allows(tick))
        {
            foreignPlanLimiter.log(tick, EventLog.Level.WARN, "peer_refused", id, "dropped " +
                (foreign - foreignPlanLogged) + " membership messages of another plan and answered PLAN_REFUSED: " +
                "a peer runs another plan file; restart it with this cluster's plan");
            foreignPlanLogged = foreign;
        }
    }

    /** The process's counters as {@code /metrics} and the Aeron counters file show them. */
    ProcessCounters counters()
    {
        return counters;
    }

    /** Times the core took over a neighbour's acceptor. */
    long takeovers()
    {
        return takeovers;
    }

    /** Time spent blocked since the node started, the current spell included. */
    long blockedNs()
    {
        return blockedTicksSeen * tickNs;
    }

    /** A line when the core starts to lead, with how long its phase 1 took: the part of a failover after the news. */
    private void roleEvents(final Status s, final long tick)
    {
        if (s.role == coreRole)
        {
            return;
        }
        if (s.role == Role.CANDIDATE)
        {
            preparingSinceTick = tick;
        }
        else if (s.role == Role.LEADER)
        {
            leadsLimiter.log(tick, EventLog.Level.INFO, "leads", id, "leads at ballot " + s.ballot +
                (preparingSinceTick >= 0 ? " after a phase 1 of " + millis(tick - preparingSinceTick) + " ms" : "") +
                ", reaching " + s.reachableAcceptors + " acceptors (a quorum is " + s.neededAcceptors + ")");
            preparingSinceTick = -1;
        }
        else
        {
            preparingSinceTick = -1;
        }
        coreRole = s.role;
    }

    private long millis(final long ticks)
    {
        return ticks * tickNs / 1_000_000;
    }

    private String seconds(final long ticks)
    {
        return String.format(java.util.Locale.ROOT, "%.1f", ticks * tickNs / 1e9);
    }
}
