package io.mmx.runtime.node;

import org.agrona.DirectBuffer;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Outside clients' sessions as the log defines them, the same on every replica: per client id, the
 * last sequence applied and its reply, and the command being reassembled from its fragments.
 *
 * <p>A fragment is taken if its session has not applied its sequence (or a later one) and the
 * reassembly does not hold it yet, so a fragment or a whole command logged twice (a client's retry,
 * a leader change) is applied once, and a retry of the last command gets its reply again. A command
 * is applied when its last missing fragment is decided, in that fragment's log position.
 *
 * <p>Bounds, all decided by the log alone so every replica evicts alike: at most
 * {@link #MAX_SESSIONS} sessions (the least recently applied goes first; a retry from an evicted
 * session would apply again, so a session idle that long must not retry), at most
 * {@link #MAX_PENDING_BYTES} bytes in reassemblies (the oldest reassembly goes first; its client
 * sends the command again). Snapshots hold all of it, partial reassemblies included.
 */
final class ClientSessions
{
    /** Sessions remembered. */
    static final int MAX_SESSIONS = 65_536;
    /** Bytes held by commands not yet whole, over all sessions. */
    static final long MAX_PENDING_BYTES = 64L << 20;

    /** A session's state. */
    static final class Session
    {
        long lastSeq;
        byte[] lastReply;
        Assembly assembly;
    }

    /** A command being reassembled. */
    static final class Assembly
    {
        final long clientId;
        final long seq;
        final byte[] bytes;
        final long[] held;
        int missing;

        Assembly(final long clientId, final long seq, final int total, final int fragments)
        {
            this.clientId = clientId;
            this.seq = seq;
            this.bytes = new byte[total];
            this.held = new long[(fragments + 63) / 64];
            this.missing = fragments;
        }

        boolean holds(final int fragment)
        {
            return (held[fragment >>> 6] & (1L << fragment)) != 0;
        }
    }

    private final int fragmentBytes;
    private final Map<Long, Session> sessions = new LinkedHashMap<>();
    /** Assemblies in the order they began, for eviction. */
    private final Map<Long, Assembly> assemblies = new LinkedHashMap<>();
    private long pendingBytes;
    /** Fragments dropped as copies of what the session already holds or applied (this replica's count, not saved). */
    private volatile long duplicates;

    ClientSessions(final int fragmentBytes)
    {
        this.fragmentBytes = fragmentBytes;
    }

    /**
     * Takes one decided fragment. Returns the whole command when this fragment completes it (the
     * caller applies it and then calls {@link #applied}), else null: a duplicate, a stale or
     * malformed fragment, or one more piece of a command still missing others.
     *
     * @param payload the fragment's payload: total length (u32 LE) and its share of the command.
     */
    byte[] onFragment(final long clientId, final long seq, final int fragment, final DirectBuffer payload,
        final int length)
    {
        if (length < Commands.FRAGMENT_HEADER_BYTES)
        {
            return null;
        }
        final int total = payload.getInt(0, java.nio.ByteOrder.LITTLE_ENDIAN);
        final int fragments = total < 0 ? -1 : Commands.fragments(total, fragmentBytes);
        if (total < 0 || (long)total > MAX_PENDING_BYTES || fragments > Commands.MAX_FRAGMENTS || fragment >= fragments ||
            length - Commands.FRAGMENT_HEADER_BYTES != Math.min(fragmentBytes, total - fragment * fragmentBytes) &&
            !(total == 0 && length == Commands.FRAGMENT_HEADER_BYTES))
        {
            return null; // a client's frame the member should have refused: ignored alike everywhere
        }
        final Session session = sessions.get(clientId);
        if (session != null && seq <= session.lastSeq)
        {
            duplicates++;
            return null;
        }
        Assembly a = session == null ? null : session.assembly;
        if (a != null && (a.seq != seq || a.bytes.length != total))
        {
            if (a.seq > seq)
            {
                return null; // a fragment of a command the client gave up before its current one
            }
            drop(a);
            a = null;
        }
        if (a == null)
        {
            if (fragments == 1)
            {
                final byte[] whole = new byte[total];
                payload.getBytes(Commands.FRAGMENT_HEADER_BYTES, whole, 0, total);
                return whole;
            }
            while (pendingBytes + total > MAX_PENDING_BYTES && !assemblies.isEmpty())
            {
                drop(assemblies.values().iterator().next());
            }
            a = new Assembly(clientId, seq, total, fragments);
            session(clientId).assembly = a;
            assemblies.put(clientId, a);
            pendingBytes += total;
        }
        if (a.holds(fragment))
        {
            duplicates++;
            return null;
        }
        a.held[fragment >>> 6] |= 1L << fragment;
        payload.getBytes(Commands.FRAGMENT_HEADER_BYTES, a.bytes, fragment * fragmentBytes,
            length - Commands.FRAGMENT_HEADER_BYTES);
        if (--a.missing > 0)
        {
            return null;
        }
        drop(a);
        return a.bytes;
    }

    /** Records that the session applied {@code seq} with {@code reply} (kept to answer retries). */
    void applied(final long clientId, final long seq, final byte[] reply)
    {
        Session s = sessions.remove(clientId);
        if (s == null)
        {
            s = new Session();
        }
        sessions.put(clientId, s); // most recently applied last
        s.lastSeq = seq;
        s.lastReply = reply;
        evictSessions();
    }

    /** The last sequence the session applied, 0 if none (or forgotten). */
    long lastSeq(final long clientId)
    {
        final Session s = sessions.get(clientId);
        return s == null ? 0 : s.lastSeq;
    }

    /** The reply of the session's last applied command, or null. */
    byte[] lastReply(final long clientId)
    {
        final Session s = sessions.get(clientId);
        return s == null ? null : s.lastReply;
    }

    /** True if this replica holds fragment {@code fragment} of (client, seq), or applied that command. */
    boolean holds(final long clientId, final long seq, final int fragment)
    {
        final Session s = sessions.get(clientId);
        if (s == null)
        {
            return false;
        }
        if (seq <= s.lastSeq)
        {
            return true;
        }
        final Assembly a = s.assembly;
        return a != null && a.seq == seq && a.holds(fragment);
    }

    /** Fragments this replica dropped as copies (a client's retry, a command two members proposed). */
    long duplicates()
    {
        return duplicates;
    }

    /** Bytes held by commands not yet whole. */
    long pendingBytes()
    {
        return pendingBytes;
    }

    int sessionCount()
    {
        return sessions.size();
    }

    private Session session(final long clientId)
    {
        Session s = sessions.get(clientId);
        if (s == null)
        {
            s = new Session();
            sessions.put(clientId, s);
            evictSessions();
        }
        return s;
    }

    private void evictSessions()
    {
        final Iterator<Session> it = sessions.values().iterator();
        while (sessions.size() > MAX_SESSIONS)
        {
            final Session oldest = it.next();
            if (oldest.assembly != null)
            {
                assemblies.remove(oldest.assembly.clientId);
                pendingBytes -= oldest.assembly.bytes.length;
            }
            it.remove();
        }
    }

    private void drop(final Assembly a)
    {
        assemblies.remove(a.clientId);
        pendingBytes -= a.bytes.length;
        final Session s = sessions.get(a.clientId);
        if (s != null && s.assembly == a)
        {
            s.assembly = null;
        }
    }

    /** Writes every session in order, and each reassembly with the fragments it holds. */
    void writeTo(final DataOutputStream out) throws IOException
    {
        out.writeInt(sessions.size());
        for (final Map.Entry<Long, Session> e : sessions.entrySet())
        {
            final Session s = e.getValue();
            out.writeLong(e.getKey());
            out.writeLong(s.lastSeq);
            out.writeInt(s.lastReply == null ? -1 : s.lastReply.length);
            if (s.lastReply != null)
            {
                out.write(s.lastReply);
            }
        }
        out.writeInt(assemblies.size());
        for (final Assembly a : assemblies.values())
        {
            out.writeLong(a.clientId);
            out.writeLong(a.seq);
            out.writeInt(a.bytes.length);
            out.writeInt(a.missing);
            for (final long word : a.held)
            {
                out.writeLong(word);
            }
            out.write(a.bytes);
        }
    }

    /** Replaces the sessions with what {@link #writeTo} wrote. */
    void readFrom(final DataInputStream in) throws IOException
    {
        sessions.clear();
        assemblies.clear();
        pendingBytes = 0;
        final int count = in.readInt();
        if (count < 0 || count > MAX_SESSIONS)
        {
            throw new IOException("a snapshot with " + count + " client sessions, at most " + MAX_SESSIONS);
        }
        for (int i = 0; i < count; i++)
        {
            final long clientId = in.readLong();
            final Session s = new Session();
            s.lastSeq = in.readLong();
            final int replyLength = in.readInt();
            if (replyLength < -1 || replyLength > io.mmx.runtime.client.ClientWire.MAX_REPLY_BYTES)
            {
                throw new IOException("a client reply of " + replyLength + " bytes in a snapshot");
            }
            if (replyLength >= 0)
            {
                s.lastReply = in.readNBytes(replyLength);
            }
            sessions.put(clientId, s);
        }
        final int pending = in.readInt();
        if (pending < 0 || pending > count)
        {
            throw new IOException("a snapshot with " + pending + " reassemblies for " + count + " sessions");
        }
        for (int i = 0; i < pending; i++)
        {
            final long clientId = in.readLong();
            final long seq = in.readLong();
            final int total = in.readInt();
            final int missing = in.readInt();
            final Session s = sessions.get(clientId);
            if (s == null || total < 0 || pendingBytes + total > MAX_PENDING_BYTES)
            {
                throw new IOException("a reassembly of " + total + " bytes for an unknown session or over the bound");
            }
            final Assembly a = new Assembly(clientId, seq, total, Commands.fragments(total, fragmentBytes));
            a.missing = missing;
            for (int w = 0; w < a.held.length; w++)
            {
                a.held[w] = in.readLong();
            }
            in.readFully(a.bytes);
            s.assembly = a;
            assemblies.put(clientId, a);
            pendingBytes += total;
        }
    }
}
