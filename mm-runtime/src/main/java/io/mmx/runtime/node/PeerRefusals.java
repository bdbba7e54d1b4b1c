package io.mmx.runtime.node;

import io.mmx.aeron.frame.DropReason;
import io.mmx.aeron.frame.FrameCounters;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The {@code peer_refused} event of the node as a whole: frames the transport refused since the
 * last line (another cluster's, a tag that does not verify, an unknown source, a replay, ...), by
 * reason, read from the transport's counters. At most one line per window, so a peer sending with
 * the wrong key every millisecond costs one line every ten seconds, with the count.
 */
final class PeerRefusals
{
    /** Drops of received frames that say something about the peer; the send-side reasons are not refusals. */
    private static final DropReason[] REFUSALS = {DropReason.FOREIGN_CLUSTER, DropReason.BAD_TAG,
        DropReason.UNKNOWN_SOURCE, DropReason.UNKNOWN_DESTINATION, DropReason.REPLAYED, DropReason.BAD_VERSION,
        DropReason.TRUNCATED, DropReason.OVERSIZED, DropReason.MALFORMED};

    private final FrameCounters counters;
    private final EventLimiter limiter;
    private final long[] logged = new long[REFUSALS.length];

    PeerRefusals(final FrameCounters counters, final long tickNs)
    {
        this.counters = counters;
        this.limiter = EventLimiter.of(TimeUnit.SECONDS.toNanos(10), tickNs, 1);
    }

    /** Writes a line if frames were refused since the last one and the window allows it. */
    void onTick(final long tick)
    {
        long total = 0;
        for (int i = 0; i < REFUSALS.length; i++)
        {
            total += counters.dropped(REFUSALS[i]) - logged[i];
        }
        if (total == 0 || !limiter.allows(tick))
        {
            return;
        }
        final StringBuilder msg = new StringBuilder("refused ").append(total).append(" frames from peers:");
        for (int i = 0; i < REFUSALS.length; i++)
        {
            final long now = counters.dropped(REFUSALS[i]);
            if (now > logged[i])
            {
                msg.append(' ').append(REFUSALS[i].name().toLowerCase(Locale.ROOT)).append(' ').append(now - logged[i])
                    .append(',');
                logged[i] = now;
            }
        }
        msg.setLength(msg.length() - 1);
        msg.append(" (").append(hint()).append(')');
        limiter.log(tick, EventLog.Level.WARN, "peer_refused", -1, msg.toString());
    }

    private static String hint()
    {
        return "foreign_cluster and bad_tag: a host with another plan or key file; unknown_source: a process " +
            "missing from --directory; replayed: an old frame sent again; the others: not mmx frames";
    }
}
