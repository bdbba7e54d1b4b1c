package io.mmx.runtime.node;

import io.mmx.aeron.frame.DropReason;
import io.mmx.aeron.frame.FrameCounters;
import io.mmx.planner.cli.ReleaseVersion;
import io.mmx.rdma.fabric.FabricCounters;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.runtime.core.MemoryOpKind;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What a node counts for operators, written as Prometheus text ({@code GET /metrics} on the status
 * port): each hosted process's status as gauges, transport frames by outcome and drop reason, memory
 * fabric operations by outcome and a latency histogram per operation kind, each process's
 * proposals, retransmissions, takeovers of neighbours' acceptors and blocked time, submissions by
 * outcome, a commit-latency histogram, and the frames and requests of outside clients.
 *
 * <p>Recording is thread-safe and allocation-free (an HdrHistogram {@link Recorder}); a scrape
 * folds what was recorded since the last one into the running total, so buckets are cumulative
 * since the node started, as Prometheus expects.
 */
public final class NodeMetrics
{
    /** How a submission ended. */
    public enum Outcome
    {
        /** Committed and applied: the future completed with a reply. */
        COMMITTED,
        /** Refused at once (node closed or failed, pending bound reached, command too long). */
        REFUSED,
        /** Not known to have committed within the submit timeout: the outcome is unknown. */
        TIMEOUT,
        /** Failed otherwise (the node failed or closed while it was pending). */
        FAILED
    }

    /** Upper bounds of the commit-latency buckets, in seconds. */
    static final double[] LATENCY_BUCKETS_S =
        {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

    /** Upper bounds of the fabric-op latency buckets, in seconds: memory operations take microseconds. */
    static final double[] FABRIC_BUCKETS_S = {0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
        0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1};

    private static final long MAX_TRACKED_NS = TimeUnit.MINUTES.toNanos(10);
    /** Fabric operations time out well below this; two significant digits keep each histogram small. */
    private static final long MAX_FABRIC_NS = TimeUnit.SECONDS.toNanos(10);
    private static final MemoryOpKind[] OP_KINDS = MemoryOpKind.values();

    private final Recorder commitLatency = new Recorder(MAX_TRACKED_NS, 3);
    private final Histogram commitLatencyTotal = new Histogram(MAX_TRACKED_NS, 3);
    private final AtomicLongArray submissions = new AtomicLongArray(Outcome.values().length);
    private Histogram interval;
    private final Recorder[] fabricLatency = new Recorder[OP_KINDS.length];
    private final Histogram[] fabricLatencyTotal = new Histogram[OP_KINDS.length];
    private final Histogram[] fabricInterval = new Histogram[OP_KINDS.length];

    /** Empty counters and histograms. */
    public NodeMetrics()
    {
        for (int i = 0; i < OP_KINDS.length; i++)
        {
            fabricLatency[i] = new Recorder(1000, MAX_FABRIC_NS, 2);
            fabricLatencyTotal[i] = new Histogram(1000, MAX_FABRIC_NS, 2);
        }
    }

    /** Counts one core memory operation of {@code kind} that completed (in any outcome) after {@code latencyNs}. */
    void onFabricOp(final MemoryOpKind kind, final long latencyNs)
    {
        fabricLatency[kind.ordinal()].recordValue(Math.min(Math.max(latencyNs, 1000), MAX_FABRIC_NS));
    }

    /** Fabric operations of {@code kind} recorded so far (folded in by the scrapes, or now). */
    synchronized long fabricOps(final MemoryOpKind kind)
    {
        foldFabric();
        return fabricLatencyTotal[kind.ordinal()].getTotalCount();
    }

    private void foldFabric()
    {
        for (int i = 0; i < OP_KINDS.length; i++)
        {
            fabricInterval[i] = fabricLatency[i].getIntervalHistogram(fabricInterval[i]);
            fabricLatencyTotal[i].add(fabricInterval[i]);
        }
    }

    /** Counts one submission that ended with {@code outcome}; {@code latencyNs} counts only when committed. */
    public void onSubmission(final Outcome outcome, final long latencyNs)
    {
        submissions.incrementAndGet(outcome.ordinal());
        if (outcome == Outcome.COMMITTED)
        {
            commitLatency.recordValue(Math.min(Math.max(latencyNs, 0), MAX_TRACKED_NS));
        }
    }

    /** Submissions that ended with {@code outcome} so far. */
    public long submissions(final Outcome outcome)
    {
        return submissions.get(outcome.ordinal());
    }

    /**
     * The Prometheus text exposition (version 0.0.4) of everything this node counts.
     *
     * @param processes the hosted processes' status, in the order of {@code fabrics}.
     * @param fabrics   each hosted process's memory fabric counters.
     * @param counters  each hosted process's proposals, retransmissions, takeovers and blocked time.
     * @param frames    the JVM's transport frame counters.
     * @param pending   submissions queued or awaiting commit.
     * @param clients   the members' endpoint for outside clients, or null when the node takes none.
     */
    synchronized String prometheus(final List<ProcessStatus> processes, final List<FabricCounters> fabrics,
        final List<ProcessCounters> counters, final FrameCounters frames, final int pending,
        final ClientEndpoint clients)
    {
        interval = commitLatency.getIntervalHistogram(interval);
        commitLatencyTotal.add(interval);
        foldFabric();
        final StringBuilder out = new StringBuilder(4096);
        help(out, "mmx_build_info", "gauge", "The mmx version this node runs (always 1).");
        out.append("mmx_build_info{version=\"").append(ReleaseVersion.get()).append("\"} 1\n");

        gauge(out, processes, "mmx_process_commit_index", "Highest log index this process knows committed.",
            s -> s.commitIndex());
        gauge(out, processes, "mmx_process_known_decided", "Highest slot this process knows decided.",
            s -> s.knownDecided());
        gauge(out, processes, "mmx_process_applied_index", "Log index through which the state machine holds every command.",
            s -> s.appliedIndex());
        gauge(out, processes, "mmx_process_ballot", "The process's current ballot.", s -> s.ballot());
        gauge(out, processes, "mmx_process_leader", "The leader this process follows (-1 when none).", s -> s.leader());
        gauge(out, processes, "mmx_process_blocked", "1 when too few acceptors are reachable to commit.",
            s -> s.blocked() ? 1 : 0);
        gauge(out, processes, "mmx_process_reachable_acceptors", "Acceptors this process reaches (own and run for crashed neighbours).",
            s -> s.reachableAcceptors());
        gauge(out, processes, "mmx_process_needed_acceptors", "Acceptors a quorum needs.", s -> s.neededAcceptors());
        gauge(out, processes, "mmx_process_suspected_neighbours", "Plan neighbours this process suspects crashed.",
            s -> s.suspectedNeighbours());
        gauge(out, processes, "mmx_process_dead_members", "Members membership declares dead.", s -> s.deadMembers());
        gauge(out, processes, "mmx_process_region_served", "1 when the process's own region answered its heartbeat write lately.",
            s -> s.regionServed() ? 1 : 0);
        help(out, "mmx_process_role", "gauge", "1 for the role the process is in.");
        for (final ProcessStatus s : processes)
        {
            out.append("mmx_process_role{process=\"").append(s.id()).append("\",role=\"").append(s.shownRole())
                .append("\"} 1\n");
        }

        help(out, "mmx_fabric_ops_total", "counter", "Memory operations by outcome, per hosted process.");
        for (int i = 0; i < fabrics.size(); i++)
        {
            for (final OpStatus status : OpStatus.values())
            {
                final long count = fabrics.get(i).get(status);
                if (count > 0 || status == OpStatus.OK)
                {
                    out.append("mmx_fabric_ops_total{process=\"").append(processes.get(i).id()).append("\",outcome=\"")
                        .append(lower(status.name())).append("\"} ").append(count).append('\n');
                }
            }
        }
        help(out, "mmx_fabric_events_total", "counter", "Memory fabric events that are not one operation's outcome.");
        for (int i = 0; i < fabrics.size(); i++)
        {
            for (final FabricCounters.Other event : FabricCounters.Other.values())
            {
                out.append("mmx_fabric_events_total{process=\"").append(processes.get(i).id()).append("\",event=\"")
                    .append(lower(event.name())).append("\"} ").append(fabrics.get(i).get(event)).append('\n');
            }
        }

        for (final ProcessCounters.Kind kind : ProcessCounters.Kind.values())
        {
            if (kind.metric != null)
            {
                processCounter(out, processes, counters, kind.metric, kind.help, kind);
            }
        }
        help(out, "mmx_blocked_seconds_total", "counter", "Time this process spent BLOCKED since the node started.");
        for (int i = 0; i < counters.size(); i++)
        {
            out.append("mmx_blocked_seconds_total{process=\"").append(processes.get(i).id()).append("\"} ")
                .append(counters.get(i).get(ProcessCounters.Kind.BLOCKED_MS) / 1000.0).append('\n');
        }
        help(out, "mmx_fabric_op_latency_seconds", "histogram",
            "Memory operations of the protocol core from submission to completion (any outcome), by kind.");
        for (int i = 0; i < OP_KINDS.length; i++)
        {
            histogram(out, "mmx_fabric_op_latency_seconds", "op=\"" + lower(OP_KINDS[i].name()) + "\",",
                fabricLatencyTotal[i], FABRIC_BUCKETS_S);
        }

        sample(out, "mmx_frames_sent_total", "counter", "Transport frames sent by this JVM.", frames.sent());
        sample(out, "mmx_messages_sent_total", "counter",
            "Transport messages sent by this JVM: a duty cycle's frames for one endpoint travel as one.", frames.messages());
        sample(out, "mmx_frames_send_retries_total", "counter", "Frame sends retried after back pressure.",
            frames.sendRetries());
        sample(out, "mmx_frames_accepted_total", "counter", "Transport frames received and verified.", frames.accepted());
        droppedByReason(out, "mmx_frames_dropped_total", "Transport frames dropped, by reason.", frames);

        sample(out, "mmx_pending_submissions", "gauge", "Submissions queued or awaiting commit.", pending);
        help(out, "mmx_submissions_total", "counter", "Submissions through this node, by outcome.");
        for (final Outcome outcome : Outcome.values())
        {
            out.append("mmx_submissions_total{outcome=\"").append(lower(outcome.name())).append("\"} ")
                .append(submissions(outcome)).append('\n');
        }
        latencyHistogram(out);
        if (clients != null)
        {
            clientCounters(out, clients);
        }
        return out.toString();
    }

    private static void clientCounters(final StringBuilder out, final ClientEndpoint clients)
    {
        final FrameCounters frames = clients.frameCounters();
        sample(out, "mmx_client_frames_accepted_total", "counter", "Frames from outside clients received and verified.",
            frames.accepted());
        sample(out, "mmx_client_replies_total", "counter", "Replies sent to outside clients.", frames.sent());
        sample(out, "mmx_client_bad_requests_total", "counter", "Client requests that did not parse.",
            clients.malformedRequests());
        sample(out, "mmx_client_refused_total", "counter", "Client requests answered REFUSED.", clients.refusedRequests());
        droppedByReason(out, "mmx_client_frames_dropped_total", "Client frames dropped, by reason (bad_tag: another key).",
            frames);
    }

    private static void droppedByReason(final StringBuilder out, final String name, final String help,
        final FrameCounters frames)
    {
        help(out, name, "counter", help);
        for (final DropReason reason : DropReason.values())
        {
            out.append(name).append("{reason=\"").append(lower(reason.name())).append("\"} ")
                .append(frames.dropped(reason)).append('\n');
        }
    }

    private static void sample(final StringBuilder out, final String name, final String type, final String help,
        final long value)
    {
        help(out, name, type, help);
        out.append(name).append(' ').append(value).append('\n');
    }

    private void latencyHistogram(final StringBuilder out)
    {
        help(out, "mmx_commit_latency_seconds", "histogram",
            "From submit to the reply of the node's first replica, for committed submissions.");
        histogram(out, "mmx_commit_latency_seconds", "", commitLatencyTotal, LATENCY_BUCKETS_S);
    }

    /** One histogram's samples; {@code labels} is empty or ends with a comma. */
    private static void histogram(final StringBuilder out, final String name, final String labels,
        final Histogram h, final double[] bucketsS)
    {
        final long count = h.getTotalCount();
        for (final double bound : bucketsS)
        {
            final long boundNs = (long)(bound * 1e9);
            final long below = count == 0 ? 0 : h.getCountBetweenValues(0, boundNs);
            out.append(name).append("_bucket{").append(labels).append("le=\"").append(bound).append("\"} ")
                .append(below).append('\n');
        }
        out.append(name).append("_bucket{").append(labels).append("le=\"+Inf\"} ").append(count).append('\n');
        // HdrHistogram keeps no exact sum: the mean times the count, within its significant digits.
        final double sumS = count == 0 ? 0 : h.getMean() * count / 1e9;
        final String braces = labels.isEmpty() ? "" : "{" + labels.substring(0, labels.length() - 1) + "}";
        out.append(name).append("_sum").append(braces).append(' ').append(sumS).append('\n');
        out.append(name).append("_count").append(braces).append(' ').append(count).append('\n');
    }

    private static void processCounter(final StringBuilder out, final List<ProcessStatus> processes,
        final List<ProcessCounters> counters, final String name, final String help, final ProcessCounters.Kind kind)
    {
        help(out, name, "counter", help);
        for (int i = 0; i < counters.size(); i++)
        {
            out.append(name).append("{process=\"").append(processes.get(i).id()).append("\"} ")
                .append(counters.get(i).get(kind)).append('\n');
        }
    }

    private static void gauge(final StringBuilder out, final List<ProcessStatus> processes, final String name,
        final String help, final java.util.function.ToLongFunction<ProcessStatus> value)
    {
        help(out, name, "gauge", help);
        for (final ProcessStatus s : processes)
        {
            out.append(name).append("{process=\"").append(s.id()).append("\"} ").append(value.applyAsLong(s))
                .append('\n');
        }
    }

    private static void help(final StringBuilder out, final String name, final String type, final String help)
    {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private static String lower(final String name)
    {
        return name.toLowerCase(Locale.ROOT);
    }
}
