package io.mmx.runtime.sim;

import io.mmx.runtime.core.MemoryOpKind;

/**
 * A memory operation between its issue and the moment all of its words took effect (or were
 * dropped). A multi-word op is cut into chunks at random word boundaries; each chunk takes effect
 * at its own random moment, so concurrent ops interleave word by word.
 */
final class PendingOp
{
    final int executor;
    final int inc;
    final long opId;
    final MemoryOpKind kind;
    final int region;
    final int offset;
    final int length;
    final long expected;
    final long value;
    /** WRITE_BULK words; the caller's array while the op applies at issue, a copy once it is deferred. */
    long[] payload;
    /** Chunk i covers words [chunkStart[i], chunkStart[i + 1]) of the op. */
    final int[] chunkStart;
    /** The region object the op was issued on: one re-created after a loss is another object. */
    SimRegion target;
    final boolean[] resolved;
    int unresolved;
    /** Whose completion reported TIMEOUT: it may still land until fenced. */
    boolean timedOut;
    /** Some words were dropped because the region was lost: the completion reports TIMEOUT. */
    boolean lostWords;
    long result;
    long[] data;

    PendingOp(final int executor, final int inc, final long opId, final MemoryOpKind kind, final int region,
        final int offset, final int length, final long expected, final long value, final long[] payload,
        final int[] chunkStart)
    {
        this.executor = executor;
        this.inc = inc;
        this.opId = opId;
        this.kind = kind;
        this.region = region;
        this.offset = offset;
        this.length = length;
        this.expected = expected;
        this.value = value;
        this.payload = payload;
        this.chunkStart = chunkStart;
        this.resolved = new boolean[chunkStart.length - 1];
        this.unresolved = resolved.length;
        if (kind == MemoryOpKind.READ_BULK)
        {
            data = new long[length];
        }
    }

    int chunks()
    {
        return resolved.length;
    }

    /** Applies chunk {@code i} to {@code r} now. */
    void apply(final int i, final SimRegion r)
    {
        result = applyWords(kind, r, offset, chunkStart[i], chunkStart[i + 1], expected, value, payload, data);
        resolve(i);
    }

    /**
     * Applies words [from, to) of an op of {@code kind} at {@code offset} to {@code r} (a bulk
     * read into {@code data}); returns the word a READ, CAS or FETCH_ADD read, 0 for the others.
     */
    static long applyWords(final MemoryOpKind kind, final SimRegion r, final int offset, final int from, final int to,
        final long expected, final long value, final long[] payload, final long[] data)
    {
        switch (kind)
        {
            case READ:
                return r.get(offset);
            case WRITE:
                r.set(offset, value);
                return 0;
            case CAS:
            {
                final long was = r.get(offset);
                if (was == expected)
                {
                    r.set(offset, value);
                }
                return was;
            }
            case FETCH_ADD:
            {
                final long was = r.get(offset);
                r.set(offset, was + value);
                return was;
            }
            case READ_BULK:
                r.read(offset + from, data, from, to - from);
                return 0;
            case WRITE_BULK:
                r.write(offset + from, payload, from, to - from);
                return 0;
            default:
                throw new IllegalStateException("unknown memory op " + kind);
        }
    }

    /** Marks chunk {@code i} done, applied or dropped. */
    void resolve(final int i)
    {
        if (!resolved[i])
        {
            resolved[i] = true;
            unresolved--;
        }
    }
}
