package io.mmx.runtime.node;

import io.mmx.runtime.client.ClientWire;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Outside clients' commands this member is getting committed: each is cut into fragments (ordinary
 * commands of the log, {@link Commands#encodeClientFragment}), proposed at a hosted leader or
 * forwarded to the remote one, a window of {@link #WINDOW} fragments at a time, the window moving as
 * this member's replica sees fragments decided ({@link ClientSessions#holds}). Fragments still
 * missing are sent again when the leader changes or nothing moved for the resubmit interval. The
 * client is answered when this member's first replica applies the command, or at once from the
 * session's last reply when the command was already applied (a retry).
 *
 * <p>Bounds: one command per client id, at most {@code maxPending} commands and
 * {@link #MAX_PENDING_BYTES} bytes; beyond, a command is refused (nothing proposed). A command not
 * applied within the submit timeout is dropped here; its client sends it again or reports the
 * outcome unknown. Agent thread only.
 */
final class ClientCommands
{
    /** Fragments of one command in flight at once (the leader's proposal queue holds 1024). */
    static final int WINDOW = 256;
    static final long MAX_PENDING_BYTES = 64L << 20;

    private static final class Pending
    {
        final long clientId;
        final long seq;
        final long[] words;
        final int fragments;
        final int bytes;
        final long deadlineTick;
        String replyTo;
        int low;
        int sentTo;
        long routedTick = Long.MIN_VALUE;
        int routedTo = -1;

        Pending(final long clientId, final long seq, final long[] words, final int fragments, final int bytes,
            final long deadlineTick, final String replyTo)
        {
            this.clientId = clientId;
            this.seq = seq;
            this.words = words;
            this.fragments = fragments;
            this.bytes = bytes;
            this.deadlineTick = deadlineTick;
            this.replyTo = replyTo;
        }
    }

    private final ProcessReplica[] replicaById;
    private final int origin;
    private final int proposalWords;
    private final int maxCommandBytes;
    private final int maxPending;
    private final long submitTimeoutTicks;
    private final long resubmitTicks;
    private final ClientEndpoint endpoint;
    private final Map<Long, Pending> pending = new HashMap<>();
    private final List<Pending> done = new ArrayList<>();
    private long pendingBytes;
    private long tick;

    ClientCommands(final ProcessReplica[] replicaById, final int origin, final int proposalWords,
        final int maxPending, final long submitTimeoutTicks, final long resubmitTicks, final ClientEndpoint endpoint)
    {
        this.replicaById = replicaById;
        this.origin = origin;
        this.proposalWords = proposalWords;
        this.maxCommandBytes = maxCommandBytes(proposalWords);
        this.maxPending = maxPending;
        this.submitTimeoutTicks = submitTimeoutTicks;
        this.resubmitTicks = resubmitTicks;
        this.endpoint = endpoint;
    }

    /** Largest client command a node of this command width takes. */
    static int maxCommandBytes(final int proposalWords)
    {
        return (int)Math.min(Commands.maxClientCommandBytes(proposalWords),
            Math.min(ClientSessions.MAX_PENDING_BYTES, MAX_PENDING_BYTES));
    }

    /** A whole command arrived from a client. */
    void onCommand(final long clientId, final long seq, final byte[] command, final String replyTo)
    {
        final ClientSessions sessions = replicaById[origin].clientSessions();
        final int leader = replicaById[origin].leader();
        final long last = sessions.lastSeq(clientId);
        if (seq <= last)
        {
            // A retry of a command already applied here: its reply again, or it is long past.
            final byte[] reply = sessions.lastReply(clientId);
            endpoint.reply(replyTo, clientId, seq, seq == last && reply != null ? ClientWire.APPLIED : ClientWire.STALE,
                leader, seq == last && reply != null ? reply : new byte[0]);
            return;
        }
        final Pending existing = pending.get(clientId);
        if (existing != null && existing.seq == seq)
        {
            existing.replyTo = replyTo;
            existing.routedTick = Long.MIN_VALUE; // the client asked again: send what is still missing
            endpoint.reply(replyTo, clientId, seq, ClientWire.ACCEPTED, leader, new byte[0]);
            return;
        }
        if (existing != null)
        {
            remove(existing); // the client moved on to a later command
        }
        if (command.length > maxCommandBytes)
        {
            refuse(replyTo, clientId, seq, leader, "a command of " + command.length + " bytes; this cluster takes " +
                "at most " + maxCommandBytes + " (raise maxCommandBytes on every node for more)");
            return;
        }
        if (pending.size() >= maxPending || pendingBytes + command.length > MAX_PENDING_BYTES)
        {
            refuse(replyTo, clientId, seq, leader, "this member has " + pending.size() + " client commands (" +
                pendingBytes + " bytes) pending: try again, or another member");
            return;
        }
        final int d = Commands.fragmentBytes(proposalWords);
        final int fragments = Commands.fragments(command.length, d);
        final long[] words = new long[fragments * proposalWords];
        for (int f = 0; f < fragments; f++)
        {
            Commands.encodeClientFragment(words, f * proposalWords, proposalWords, clientId, seq, f, command);
        }
        final Pending p = new Pending(clientId, seq, words, fragments, command.length, tick + submitTimeoutTicks,
            replyTo);
        pending.put(clientId, p);
        pendingBytes += command.length;
        endpoint.reply(replyTo, clientId, seq, ClientWire.ACCEPTED, leader, new byte[0]);
        route(p);
    }

    private void refuse(final String replyTo, final long clientId, final long seq, final int leader, final String why)
    {
        endpoint.reply(replyTo, clientId, seq, ClientWire.REFUSED, leader, why.getBytes(StandardCharsets.UTF_8));
    }

    /** This member's replica {@code replica} applied a client's command. */
    void onApplied(final int replica, final long clientId, final long seq, final byte[] reply)
    {
        final Pending p = pending.get(clientId);
        if (replica == origin && p != null && p.seq == seq)
        {
            remove(p);
            endpoint.reply(p.replyTo, clientId, seq, ClientWire.APPLIED, replicaById[origin].leader(), reply);
        }
    }

    /** Moves windows, resends what stalled, and drops what timed out. */
    void onTick(final long tick)
    {
        this.tick = tick;
        if (pending.isEmpty())
        {
            return;
        }
        final ClientSessions sessions = replicaById[origin].clientSessions();
        for (final Pending p : pending.values())
        {
            if (sessions.lastSeq(p.clientId) >= p.seq || tick >= p.deadlineTick)
            {
                done.add(p);
            }
            else
            {
                route(p);
            }
        }
        for (final Pending p : done)
        {
            remove(p);
            if (sessions.lastSeq(p.clientId) == p.seq && sessions.lastReply(p.clientId) != null)
            {
                // Applied while this replica restored state (no live completion): answer from the session.
                endpoint.reply(p.replyTo, p.clientId, p.seq, ClientWire.APPLIED, replicaById[origin].leader(),
                    sessions.lastReply(p.clientId));
            }
        }
        done.clear();
    }

    private void remove(final Pending p)
    {
        if (pending.remove(p.clientId) == p)
        {
            pendingBytes -= p.bytes;
        }
    }

    /** Sends the window's fragments that are not decided yet: new ones always, all again when stalled. */
    private void route(final Pending p)
    {
        final ClientSessions sessions = replicaById[origin].clientSessions();
        final int before = p.low;
        while (p.low < p.fragments && sessions.holds(p.clientId, p.seq, p.low))
        {
            p.low++;
        }
        final int leader = replicaById[origin].leader();
        if (leader < 0)
        {
            return;
        }
        if (p.low > before)
        {
            p.routedTick = Math.max(p.routedTick, tick); // progress: no need to resend what is in flight
        }
        final boolean resend = leader != p.routedTo || tick - p.routedTick >= resubmitTicks;
        final int to = Math.min(p.fragments, p.low + WINDOW);
        final int from = resend ? p.low : Math.max(p.low, p.sentTo);
        if (from >= to)
        {
            return;
        }
        if (resend)
        {
            p.routedTick = tick;
            p.routedTo = leader;
        }
        p.sentTo = Math.max(p.sentTo, send(p, leader, from, to, sessions));
    }

    /** Proposes or forwards fragments {@code [from, to)} not yet held; returns where it stopped. */
    private int send(final Pending p, final int leader, final int from, final int to, final ClientSessions sessions)
    {
        final ProcessReplica local = replicaById[leader];
        if (local != null)
        {
            for (int f = from; f < to; f++)
            {
                if (!sessions.holds(p.clientId, p.seq, f) && !local.core().propose(p.words, f * proposalWords))
                {
                    return f; // the leader's queue is full: the rest goes on a later tick
                }
            }
            return to;
        }
        final ProcessReplica self = replicaById[origin];
        final int capacity = self.forwardCapacity();
        int f = from;
        while (f < to)
        {
            // Runs of fragments not yet held, in frames of up to `capacity` commands.
            while (f < to && sessions.holds(p.clientId, p.seq, f))
            {
                f++;
            }
            int end = f;
            while (end < to && end - f < capacity && !sessions.holds(p.clientId, p.seq, end))
            {
                end++;
            }
            if (end > f && !self.forward(leader, p.words, f * proposalWords, end - f))
            {
                return f; // back-pressured or not connected: a later tick tries again
            }
            f = end;
        }
        return to;
    }
}
