package io.mmx.runtime.node;

import io.aeron.Aeron;
import io.aeron.Counter;
import org.agrona.CloseHelper;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One hosted process's main counters, kept where two readers find them: {@code /metrics} reads
 * them here, and the node's Aeron client registers each as an Aeron counter in the media driver's
 * counters file, so {@code AeronStat} (and anything reading that file) shows them beside the
 * driver's own. The agent thread writes both copies at each status update; the values are those of
 * the last update (at least every 50 ticks).
 */
final class ProcessCounters implements AutoCloseable
{
    /** What is counted; each has its own Aeron counter type id. */
    enum Kind
    {
        /** Log index through which the process knows every slot committed (a gauge; in /metrics elsewhere). */
        COMMIT_INDEX(5101, "commit-index", null, null),
        PROPOSALS(5102, "proposals", "mmx_proposals_total", "Proposals this process queued while it led."),
        RETRANSMISSIONS(5103, "retransmissions", "mmx_retransmissions_total",
            "Prepares and accepts sent again because no quorum answered in time."),
        TAKEOVERS(5104, "acceptor-takeovers", "mmx_acceptor_takeovers_total",
            "Times this process took over a suspected neighbour's acceptor."),
        /** Milliseconds spent BLOCKED since the node started (in /metrics as seconds, elsewhere). */
        BLOCKED_MS(5105, "blocked-ms", null, null),
        LEADER_CHANGES(5106, "leader-changes", "mmx_leader_changes_total",
            "Times membership named another leader for this process, or none (1 after a quiet start)."),
        LEADER_STOPS_VETOED(5107, "leader-stops-vetoed", "mmx_leader_stops_vetoed_total",
            "Times the leader's heartbeat stood still past the bound while its JVM surely ran, so it was not declared stopped."),
        LEADER_STOPS_DECLARED(5108, "leader-stops-declared", "mmx_leader_stops_declared_total",
            "Times this process declared the leader it followed stopped and told every member."),
        NEIGHBOUR_SUSPICIONS_VETOED(5109, "neighbour-suspicions-vetoed", "mmx_neighbour_suspicions_vetoed_total",
            "Times a neighbour's heartbeat stood still past the bound while its JVM surely ran, so it was not suspected yet."),
        LEADER_CLAIMS_KEPT(5110, "leader-claims-kept", "mmx_leader_claims_kept_total",
            "Times the followed leader's claim was kept past its lease because its JVM surely ran (a slow leader, not a gone one)."),
        HOSTS_HELD_DEAD(5111, "hosts-held-dead", "mmx_hosts_held_dead_total",
            "Hosts below this process that a LEADER_DOWN found gone by their liveness locks, their processes held dead at once."),
        SILENT_LEADERS_GONE(5112, "silent-leaders-gone", "mmx_silent_leaders_gone_total",
            "Times the followed leader's claim went silent and its liveness lock said its JVM was gone, so this process acted at once.");

        /** The Aeron counter type id. */
        final int typeId;
        final String label;
        /** Its {@code /metrics} counter, or null when exported otherwise. */
        final String metric;
        final String help;

        Kind(final int typeId, final String label, final String metric, final String help)
        {
            this.typeId = typeId;
            this.label = label;
            this.metric = metric;
            this.help = help;
        }

        /** The Aeron counter label of process {@code id}'s counter. */
        String label(final int id)
        {
            return "mmx-" + label + ": process=" + id;
        }

        String metricName()
        {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private static final Kind[] KINDS = Kind.values();

    private final AtomicLongArray values = new AtomicLongArray(KINDS.length);
    private final Counter[] aeronCounters = new Counter[KINDS.length];

    /**
     * @param id    the hosted process.
     * @param aeron the node's Aeron client, which allocates the counters in its driver's file; null for none.
     */
    ProcessCounters(final int id, final Aeron aeron)
    {
        if (aeron != null)
        {
            for (final Kind k : KINDS)
            {
                aeronCounters[k.ordinal()] = aeron.addCounter(k.typeId, k.label(id));
            }
        }
    }

    /** Agent thread: the values now. */
    void update(final long commitIndex, final long proposals, final long retransmissions, final long takeovers,
        final long blockedNs, final long leaderChanges, final long leaderStopsVetoed,
        final long leaderStopsDeclared, final long neighbourSuspicionsVetoed, final long leaderClaimsKept,
        final long hostsHeldDead, final long silentLeadersGone)
    {
        set(Kind.COMMIT_INDEX, commitIndex);
        set(Kind.PROPOSALS, proposals);
        set(Kind.RETRANSMISSIONS, retransmissions);
        set(Kind.TAKEOVERS, takeovers);
        set(Kind.BLOCKED_MS, blockedNs / 1_000_000);
        set(Kind.LEADER_CHANGES, leaderChanges);
        set(Kind.LEADER_STOPS_VETOED, leaderStopsVetoed);
        set(Kind.LEADER_STOPS_DECLARED, leaderStopsDeclared);
        set(Kind.NEIGHBOUR_SUSPICIONS_VETOED, neighbourSuspicionsVetoed);
        set(Kind.LEADER_CLAIMS_KEPT, leaderClaimsKept);
        set(Kind.HOSTS_HELD_DEAD, hostsHeldDead);
        set(Kind.SILENT_LEADERS_GONE, silentLeadersGone);
    }

    private void set(final Kind kind, final long value)
    {
        values.lazySet(kind.ordinal(), value);
        final Counter c = aeronCounters[kind.ordinal()];
        if (c != null && !c.isClosed())
        {
            c.setOrdered(value);
        }
    }

    /** The value of the last update. */
    long get(final Kind kind)
    {
        return values.get(kind.ordinal());
    }

    /** The Aeron counter id of {@code kind}, or -1 without Aeron counters. */
    int aeronCounterId(final Kind kind)
    {
        final Counter c = aeronCounters[kind.ordinal()];
        return c == null ? -1 : c.id();
    }

    /** Frees the Aeron counters (before the Aeron client closes). */
    @Override
    public void close()
    {
        for (final Counter c : aeronCounters)
        {
            CloseHelper.quietClose(c);
        }
    }
}
