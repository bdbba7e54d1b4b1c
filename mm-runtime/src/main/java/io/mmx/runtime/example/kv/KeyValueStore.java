package io.mmx.runtime.example.kv;

import io.mmx.runtime.node.StateMachine;
import org.agrona.DirectBuffer;

import java.util.HashMap;
import java.util.Map;

/**
 * A replicated key-value store of 64-bit values: the example service on the embedding API. Each
 * replica applies PUT, GET, CAS and DELETE in log order; a GET goes through the log too, so its
 * reply is linearizable. Malformed commands are applied as no-ops with reply {@link KeyValueCommand#ABSENT}
 * on every replica alike.
 */
public final class KeyValueStore implements StateMachine
{
    private final Map<String, Long> values = new HashMap<>();
    private final AppliedLog log;
    private long applied;
    private long malformed;
    /** Sum of the entries' hashes: order-free, updated with each change (see {@link #stateDigest()}). */
    private long digest;

    /** A store that keeps no record of what it applied. */
    public KeyValueStore()
    {
        this(null);
    }

    /** A store that appends every applied command to {@code log} (tests compare replicas' logs). */
    public KeyValueStore(final AppliedLog log)
    {
        this.log = log;
    }

    @Override
    public long apply(final long logIndex, final int origin, final DirectBuffer buffer, final int offset,
        final int length)
    {
        applied++;
        if (log != null)
        {
            log.append(logIndex, origin, buffer, offset, length);
        }
        final String key = length >= 18 ? KeyValueCommand.key(buffer, offset, length) : null;
        if (key == null)
        {
            malformed++;
            return KeyValueCommand.ABSENT;
        }
        switch (KeyValueCommand.op(buffer, offset))
        {
            case KeyValueCommand.PUT:
            {
                final long value = KeyValueCommand.value(buffer, offset);
                return orAbsent(changed(key, values.put(key, value), value));
            }
            case KeyValueCommand.GET:
                return orAbsent(values.get(key));
            case KeyValueCommand.CAS:
            {
                final long expected = KeyValueCommand.expected(buffer, offset);
                final Long current = values.get(key);
                final boolean matches = expected == KeyValueCommand.ABSENT ? current == null :
                    current != null && current == expected;
                if (matches)
                {
                    final long value = KeyValueCommand.value(buffer, offset);
                    changed(key, values.put(key, value), value);
                    return KeyValueCommand.CAS_OK;
                }
                return KeyValueCommand.CAS_FAILED;
            }
            case KeyValueCommand.DELETE:
            {
                final Long removed = values.remove(key);
                if (removed != null)
                {
                    digest -= entryHash(key, removed);
                }
                return orAbsent(removed);
            }
            default:
                malformed++;
                return KeyValueCommand.ABSENT;
        }
    }

    private Long changed(final String key, final Long before, final long after)
    {
        if (before != null)
        {
            digest -= entryHash(key, before);
        }
        digest += entryHash(key, after);
        return before;
    }

    // FNV-1a over the key's UTF-8 bytes, mixed with the value by SplitMix64's finalizer.
    private static long entryHash(final String key, final long value)
    {
        long h = 0xcbf29ce484222325L;
        for (final byte b : key.getBytes(java.nio.charset.StandardCharsets.UTF_8))
        {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        long z = h ^ (value * 0x9E3779B97F4A7C15L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The sum of a hash of every (key, value): equal on replicas holding the same entries; O(1). */
    @Override
    public java.util.OptionalLong stateDigest()
    {
        return java.util.OptionalLong.of(digest);
    }

    @Override
    public boolean snapshots()
    {
        return true;
    }

    /**
     * Entries in key order: u32 count, then per entry u16 key length, the key in UTF-8, i64 value;
     * then i64 commands applied and i64 malformed (so counters survive a restart too). Big-endian.
     */
    @Override
    public void takeSnapshot(final java.io.OutputStream out) throws java.io.IOException
    {
        final java.io.DataOutputStream data = new java.io.DataOutputStream(new java.io.BufferedOutputStream(out));
        final java.util.TreeMap<String, Long> sorted = new java.util.TreeMap<>(values);
        data.writeInt(sorted.size());
        for (final Map.Entry<String, Long> e : sorted.entrySet())
        {
            final byte[] key = e.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            data.writeShort(key.length);
            data.write(key);
            data.writeLong(e.getValue());
        }
        data.writeLong(applied);
        data.writeLong(malformed);
        data.flush();
    }

    @Override
    public void loadSnapshot(final java.io.InputStream in) throws java.io.IOException
    {
        final java.io.DataInputStream data = new java.io.DataInputStream(new java.io.BufferedInputStream(in));
        final int count = data.readInt();
        if (count < 0)
        {
            throw new java.io.IOException("a key-value snapshot with " + count + " entries");
        }
        final Map<String, Long> loaded = new HashMap<>();
        for (int i = 0; i < count; i++)
        {
            final byte[] key = new byte[data.readUnsignedShort()];
            data.readFully(key);
            loaded.put(new String(key, java.nio.charset.StandardCharsets.UTF_8), data.readLong());
        }
        final long loadedApplied = data.readLong();
        final long loadedMalformed = data.readLong();
        if (data.read() != -1)
        {
            throw new java.io.IOException("a key-value snapshot with bytes after its end");
        }
        values.clear();
        values.putAll(loaded);
        digest = 0;
        for (final Map.Entry<String, Long> e : values.entrySet())
        {
            digest += entryHash(e.getKey(), e.getValue());
        }
        applied = loadedApplied;
        malformed = loadedMalformed;
    }

    /** {@link #stateDigest()} as 16 hex digits. */
    public String digest()
    {
        return String.format("%016x", digest);
    }

    @Override
    public void onGap(final long fromLogIndex, final long toLogIndex)
    {
        if (log != null)
        {
            log.gap(fromLogIndex, toLogIndex);
        }
    }

    @Override
    public void onSnapshotLoaded(final long logIndex)
    {
        if (log != null)
        {
            log.snapshot(logIndex);
        }
    }

    private static long orAbsent(final Long v)
    {
        return v == null ? KeyValueCommand.ABSENT : v;
    }

    /** Commands applied so far. */
    public long applied()
    {
        return applied;
    }

    /** Malformed commands seen. */
    public long malformed()
    {
        return malformed;
    }

    /** Value of {@code key} at this replica now, or null (for tests on the agent thread or after close). */
    public Long valueOf(final String key)
    {
        return values.get(key);
    }
}
