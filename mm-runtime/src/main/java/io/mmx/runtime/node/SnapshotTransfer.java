package io.mmx.runtime.node;

import io.mmx.aeron.frame.FrameHeader;
import io.mmx.runtime.host.HostTransport;
import io.mmx.runtime.snapshot.CorruptSnapshotException;
import io.mmx.runtime.snapshot.SnapshotStore;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * State transfer between replicas: a replica that missed commands nobody can give it any more (it
 * was down longer than the decided logs reach) asks a peer for a snapshot, and the peer streams
 * one over the transport in checked chunks. Both sides run on the node's agent thread; nothing
 * here blocks but the sender's snapshot, which it takes when asked.
 *
 * <p>Frames (little-endian):
 * <pre>
 *   REQUEST  i64 transfer id, i64 the lowest slot the snapshot must reach
 *            [, i32 the chunk to resend from: a resume of that transfer, same snapshot]
 *   CHUNK    i64 transfer id, i32 sequence, i64 log index the state holds, u8 last,
 *            on the last: i64 total state bytes, u8[32] SHA-256 of them; then one chunk record
 *            (u32 length, u32 CRC32C, bytes), the format {@link SnapshotStore} receives
 *   REFUSE   i64 transfer id, i64 the last slot the peer holds (-1: it keeps no snapshots)
 * </pre>
 * A chunk that fails its CRC is refused and a chunk out of sequence ignored; either way the receiver
 * asks its peer to resend from the first chunk it lacks (at most every {@link #RESUME_TICKS}), and
 * the peer reads its snapshot again from there: a lost or damaged chunk costs the chunks after it,
 * not the whole transfer. A peer keeps a transfer's snapshot open for twice {@link #RETRY_TICKS} after
 * its last chunk, so a lost last chunk is resent too. After {@link #RETRY_TICKS} without progress
 * the receiver resumes once more, then asks the next peer from the start.
 */
final class SnapshotTransfer
{
    /** Ticks without a chunk before the receiver asks another peer. */
    static final int RETRY_TICKS = 500;
    /** Ticks a replica that wants a snapshot waits for a leader to ask before it asks other peers in turn. */
    static final int LEADER_WAIT_TICKS = 100;
    /** Ticks between two resume requests for the same chunk. */
    static final int RESUME_TICKS = 25;

    /** A test's faults on the chunks this replica sends. */
    interface Faults
    {
        int DELIVER = 0;
        int DROP = 1;
        int CORRUPT = 2;
        Faults NONE = (from, to, sequence) -> DELIVER;

        /** What happens to chunk {@code sequence} from {@code from} to {@code to}. */
        int chunk(int from, int to, int sequence);
    }

    private static final int CHUNKS_PER_TICK = 64;
    private static final int CHUNK_HEADER = 8 + 4 + 8 + 1 + 8 + 32;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    /** What the replica does with a received snapshot. */
    interface Installer
    {
        /** Loads {@code snapshot} as the state; returns false if it was not usable (the transfer is retried). */
        boolean install(SnapshotStore.Snapshot snapshot);
    }

    private final int self;
    private final int n;
    private final HostTransport transport;
    private final ReplicaDurability durability;
    private final int maxBatch;
    private final UnsafeBuffer frame;
    private final int chunkBytes;
    private final Int2ObjectHashMap<Outgoing> outgoing = new Int2ObjectHashMap<>();
    private final Faults faults;
    private volatile long chunksRefused;
    private volatile long resumesAsked;
    private int resumeAskedFor = -1;
    private long resumeTick;
    private int stalls;

    // The receiving side: one transfer at a time.
    private long minSlot = -1;
    private long transferId;
    private int peer = -1;
    private int attempts;
    private final long idSeed;
    private final java.util.function.IntPredicate alive;
    private long asked;
    private long lastProgressTick;
    private SnapshotStore.Receiver receiver;
    private volatile long transfersCompleted;

    /**
     * @param idSeed where this replica's transfer ids start: random per run (a node draws it), so a
     *               restarted replica's ids differ from those a peer may still hold open.
     * @param alive  whether membership holds a process alive: peers it holds suspected or dead are
     *               passed over while any other is left (each silent peer costs {@link #RETRY_TICKS}).
     */
    SnapshotTransfer(final int self, final int n, final HostTransport transport, final ReplicaDurability durability,
        final int maxBatch, final Faults faults, final long idSeed, final java.util.function.IntPredicate alive)
    {
        this.idSeed = idSeed;
        this.alive = alive;
        this.faults = faults;
        this.self = self;
        this.n = n;
        this.transport = transport;
        this.durability = durability;
        this.maxBatch = maxBatch;
        final int maxPayload = transport.maxFrameLengthBytes() - FrameHeader.OVERHEAD_LENGTH;
        this.frame = new UnsafeBuffer(new byte[maxPayload]);
        this.chunkBytes = maxPayload - CHUNK_HEADER - 8;
        if (chunkBytes < 64)
        {
            throw new IllegalStateException("frames of " + maxPayload + " bytes are too small to carry snapshots");
        }
    }

    /** True while this replica waits for a snapshot. */
    boolean receiving()
    {
        return minSlot >= 0;
    }

    long transfersCompleted()
    {
        return transfersCompleted;
    }

    /** Chunks received that failed their check (refused, then resent). */
    long chunksRefused()
    {
        return chunksRefused;
    }

    /** Requests to resend from a chunk instead of starting over. */
    long resumesAsked()
    {
        return resumesAsked;
    }

    /** Starts asking for a snapshot that reaches at least {@code slot} (again if one is under way). */
    void want(final long slot, final int leader, final long tick)
    {
        minSlot = Math.max(minSlot, slot);
        if (receiver == null && leader < 0 && attempts == 0)
        {
            // No leader known yet (a process just started): wait for one, up to LEADER_WAIT_TICKS. The
            // leader is alive and the furthest ahead; the next ids may be crashed, or be joiners like this one.
            lastProgressTick = tick - RETRY_TICKS + LEADER_WAIT_TICKS;
            return;
        }
        if (receiver == null)
        {
            ask(leader, tick);
        }
    }

    private void ask(final int leader, final long tick)
    {
        closeReceiver();
        // The leader first (it is the furthest ahead), then every other process in turn.
        peer = attempts == 0 && leader >= 0 && leader != self ? leader : (self + 1 + attempts % (n - 1)) % n;
        if (peer == self)
        {
            peer = (peer + 1) % n;
        }
        attempts++;
        for (int skipped = 0; !alive.test(peer) && skipped < n - 2; skipped++)
        {
            peer = (self + 1 + attempts++ % (n - 1)) % n;
        }
        stalls = 0;
        resumeAskedFor = -1;
        transferId = ((long)self << 40) ^ (idSeed + ++asked * 0x9E37_79B9_7F4A_7C15L);
        lastProgressTick = tick;
        frame.putLong(0, transferId, LE);
        frame.putLong(8, minSlot, LE);
        transport.send(self, peer, NodeFrames.SNAPSHOT_REQUEST, frame, 0, 16);
    }

    /** Per tick: the receiver's retry, the sender's chunks. */
    void onTick(final long tick, final int leader)
    {
        if (receiving() && receiver == null && attempts == 0 && leader >= 0)
        {
            ask(leader, tick); // the leader became known while waiting for one
        }
        else if (receiving() && tick - lastProgressTick > RETRY_TICKS)
        {
            if (receiver != null && stalls++ == 0)
            {
                lastProgressTick = tick;
                askResume(tick, true); // a lost last chunk shows only as silence
            }
            else
            {
                ask(leader, tick);
            }
        }
        if (!outgoing.isEmpty())
        {
            final Int2ObjectHashMap<Outgoing>.ValueIterator it = outgoing.values().iterator();
            while (it.hasNext())
            {
                final Outgoing o = it.next();
                if (o.doneTick < 0 && o.sendSome())
                {
                    o.doneTick = tick;
                }
                if (o.doneTick >= 0 && tick - o.doneTick > 2 * RETRY_TICKS)
                {
                    o.close();
                    it.remove();
                }
            }
        }
    }

    /** A REQUEST, CHUNK or REFUSE frame for this replica. */
    void onFrame(final int type, final int src, final DirectBuffer buffer, final int offset, final int length,
        final long tick, final StateMachine stateMachine, final DuplicateFilter duplicates, final long stateSlot,
        final boolean stateComplete, final Installer installer)
    {
        if (type == NodeFrames.SNAPSHOT_REQUEST && length == 20)
        {
            onResume(src, buffer.getLong(offset, LE), buffer.getInt(offset + 16, LE), buffer.getLong(offset + 8, LE));
        }
        else if (type == NodeFrames.SNAPSHOT_REQUEST && length == 16)
        {
            onRequest(src, buffer.getLong(offset, LE), buffer.getLong(offset + 8, LE), stateMachine, duplicates,
                stateSlot, stateComplete);
        }
        else if (type == NodeFrames.SNAPSHOT_REFUSE && length == 16 && buffer.getLong(offset, LE) == transferId &&
            receiving())
        {
            lastProgressTick = tick - RETRY_TICKS; // ask the next peer at the next tick
        }
        else if (type == NodeFrames.SNAPSHOT_CHUNK && length > CHUNK_HEADER && src == peer && receiving() &&
            buffer.getLong(offset, LE) == transferId)
        {
            onChunk(buffer, offset, length, tick, installer);
        }
    }

    /** Resends transfer {@code id} from chunk {@code from}, or refuses if that snapshot is gone. */
    private void onResume(final int requester, final long id, final int from, final long wantedSlot)
    {
        final Outgoing o = outgoing.get(requester);
        if (o != null && o.id == id && from >= 0 && o.rewind(from))
        {
            return;
        }
        frame.putLong(0, id, LE);
        frame.putLong(8, -1, LE);
        transport.send(self, requester, NodeFrames.SNAPSHOT_REFUSE, frame, 0, 16);
    }

    /** Asks the peer to resend from the first chunk missing, at most every RESUME_TICKS for one chunk. */
    private void askResume(final long tick, final boolean force)
    {
        final int from = receiver.nextSequence();
        if (!force && from == resumeAskedFor && tick - resumeTick < RESUME_TICKS)
        {
            return;
        }
        resumeAskedFor = from;
        resumeTick = tick;
        resumesAsked++;
        frame.putLong(0, transferId, LE);
        frame.putLong(8, minSlot, LE);
        frame.putInt(16, from, LE);
        transport.send(self, peer, NodeFrames.SNAPSHOT_REQUEST, frame, 0, 20);
    }

    private void onRequest(final int requester, final long id, final long wantedSlot, final StateMachine stateMachine,
        final DuplicateFilter duplicates, final long stateSlot, final boolean stateComplete)
    {
        final Outgoing previous = outgoing.remove(requester);
        if (previous != null)
        {
            previous.close();
        }
        if (durability == null || !stateComplete || stateSlot < wantedSlot || receiving())
        {
            frame.putLong(0, id, LE);
            frame.putLong(8, durability == null || !stateComplete ? -1 : stateSlot, LE);
            transport.send(self, requester, NodeFrames.SNAPSHOT_REFUSE, frame, 0, 16);
            return;
        }
        final SnapshotStore.Snapshot snapshot = durability.snapshotForTransfer(stateMachine, duplicates,
            stateSlot);
        if (snapshot == null)
        {
            return; // reported by the durability layer; the requester asks another peer
        }
        try
        {
            outgoing.put(requester, new Outgoing(requester, id, snapshot, durability.store().open(snapshot)));
        }
        catch (final IOException ex)
        {
            EventLog.log(EventLog.Level.WARN, "snapshot_send_failed", self, "cannot read its snapshot for process " + requester +
                ": " + ex.getMessage());
        }
    }

    private void onChunk(final DirectBuffer buffer, final int offset, final int length, final long tick,
        final Installer installer)
    {
        final int sequence = buffer.getInt(offset + 8, LE);
        final long logIndex = buffer.getLong(offset + 12, LE);
        final boolean last = buffer.getByte(offset + 20) != 0;
        final long total = buffer.getLong(offset + 21, LE);
        final byte[] sha = new byte[32];
        buffer.getBytes(offset + 29, sha);
        final byte[] record = new byte[length - CHUNK_HEADER];
        buffer.getBytes(offset + CHUNK_HEADER, record);
        try
        {
            if (receiver == null)
            {
                receiver = durability.store().receive(logIndex);
            }
            if (sequence < receiver.nextSequence())
            {
                return; // a copy of one already taken (a resend overlapping chunks in flight)
            }
            final boolean taken;
            try
            {
                taken = receiver.accept(sequence, record, 0, record.length);
            }
            catch (final CorruptSnapshotException ex)
            {
                chunksRefused++;
                askResume(tick, false);
                return;
            }
            if (!taken)
            {
                askResume(tick, false); // one before it was lost
                return;
            }
            lastProgressTick = tick;
            stalls = 0;
            if (last)
            {
                final SnapshotStore.Snapshot snapshot = receiver.publish(total, sha);
                receiver = null;
                if ((snapshot.logIndex() + 1) / maxBatch - 1 >= minSlot && installer.install(snapshot))
                {
                    minSlot = -1;
                    attempts = 0;
                    peer = -1;
                    transfersCompleted++;
                }
            }
        }
        catch (final CorruptSnapshotException ex)
        {
            EventLog.log(EventLog.Level.WARN, "snapshot_refused", self, "snapshot from process " + peer + " refused: " +
                ex.getMessage() + "; asking again");
            closeReceiver();
            lastProgressTick = tick - RETRY_TICKS;
        }
        catch (final IOException ex)
        {
            EventLog.log(EventLog.Level.ERROR, "snapshot_store_failed", self, "cannot store the snapshot from process " + peer + ": " +
                ex.getMessage());
            closeReceiver();
        }
    }

    private void closeReceiver()
    {
        if (receiver != null)
        {
            try
            {
                receiver.close();
            }
            catch (final IOException ex)
            {
                // a temporary file that could not be removed: nothing else to do
            }
            receiver = null;
        }
    }

    /** Closes every transfer in progress. */
    void close()
    {
        closeReceiver();
        outgoing.values().forEach(Outgoing::close);
        outgoing.clear();
    }

    /** One snapshot being streamed to one requester. */
    private final class Outgoing
    {
        private final int to;
        private final long id;
        private final SnapshotStore.Snapshot snapshot;
        private final byte[] bytes = new byte[chunkBytes];
        private int sequence;
        private long sent;
        private int pendingLength = -1;
        /** The tick its last chunk went out, -1 while sending. */
        long doneTick = -1;
        private InputStream source;

        Outgoing(final int to, final long id, final SnapshotStore.Snapshot snapshot, final InputStream in)
        {
            this.to = to;
            this.id = id;
            this.snapshot = snapshot;
            this.source = in;
        }

        /** Sends again from chunk {@code from}, reading the snapshot again; false if it cannot. */
        boolean rewind(final int from)
        {
            try
            {
                final long skip = (long)from * chunkBytes;
                if (skip > snapshot.bytes())
                {
                    return false;
                }
                final InputStream again = durability.store().open(snapshot);
                again.skipNBytes(skip);
                source.close();
                source = again;
                sequence = from;
                sent = skip;
                pendingLength = -1;
                doneTick = -1;
                return true;
            }
            catch (final IOException ex)
            {
                return false; // the snapshot was replaced meanwhile: the requester starts again
            }
        }

        /** Sends what the transport takes now; true when the last chunk went out (or the stream failed). */
        boolean sendSome()
        {
            try
            {
                for (int i = 0; i < CHUNKS_PER_TICK; i++)
                {
                    if (pendingLength < 0)
                    {
                        pendingLength = source.readNBytes(bytes, 0, bytes.length);
                    }
                    final boolean last = sent + pendingLength >= snapshot.bytes();
                    final int length = encode(last);
                    final int fault = faults.chunk(self, to, sequence);
                    if (fault == Faults.CORRUPT)
                    {
                        frame.putByte(length - 1, (byte)(frame.getByte(length - 1) ^ 0x5A));
                    }
                    if (fault != Faults.DROP && !transport.send(self, to, NodeFrames.SNAPSHOT_CHUNK, frame, 0, length))
                    {
                        return false; // back-pressure: the same chunk at the next tick
                    }
                    sent += pendingLength;
                    sequence++;
                    pendingLength = -1;
                    if (last)
                    {
                        return true;
                    }
                }
                return false;
            }
            catch (final IOException ex)
            {
                EventLog.log(EventLog.Level.WARN, "snapshot_send_stopped", self, "snapshot to process " + to + " stopped: " +
                    ex.getMessage());
                return true;
            }
        }

        private int encode(final boolean last)
        {
            frame.putLong(0, id, LE);
            frame.putInt(8, sequence, LE);
            frame.putLong(12, snapshot.logIndex(), LE);
            frame.putByte(20, (byte)(last ? 1 : 0));
            frame.putLong(21, last ? snapshot.bytes() : 0, LE);
            frame.putBytes(29, last ? snapshot.sha256() : new byte[32]);
            final CRC32C crc = new CRC32C();
            crc.update(bytes, 0, pendingLength);
            // An empty state still travels as one record; the receiver takes records of 1..MAX bytes.
            frame.putInt(CHUNK_HEADER, pendingLength, LE);
            frame.putInt(CHUNK_HEADER + 4, (int)crc.getValue(), LE);
            frame.putBytes(CHUNK_HEADER + 8, bytes, 0, pendingLength);
            return CHUNK_HEADER + 8 + pendingLength;
        }

        void close()
        {
            try
            {
                source.close();
            }
            catch (final IOException ex)
            {
                // nothing held but the file
            }
        }
    }
}
