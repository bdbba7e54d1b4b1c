package io.mmx.runtime.node;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * How a command travels inside a slot value: a fixed number of 64-bit words, so the protocol core
 * orders whole commands and an acceptor record holds them inline (a command lives in memory that
 * outlives its submitter, which is what lets neighbours finish its slot).
 *
 * <pre>
 * word 0   origin process (20 bits) | counter (44 bits)      the submitter and its per-incarnation counter
 * word 1   incarnation (32 bits) | payload length (32 bits)   a random id of the submitter's run
 * word 2.. payload bytes, little-endian, zero padded
 * </pre>
 *
 * (origin, incarnation, counter) names a command uniquely: retries reuse it, and every replica
 * drops the copies after the first ({@link DuplicateFilter}).
 *
 * <p>A <em>probe</em> carries {@link #PROBE_LENGTH} in its length field and no payload: it is
 * ordered and decided like any command, so its commit proves the cluster serves, but no replica
 * hands it to the state machine (operators send probes: {@code POST /probe}, {@code ops/health --probe}).
 */
public final class Commands
{
    /** Words before the payload. */
    public static final int HEADER_WORDS = 2;
    static final int ORIGIN_BITS = 20;
    static final int COUNTER_BITS = 64 - ORIGIN_BITS;
    /** Largest counter of one incarnation. */
    public static final long MAX_COUNTER = (1L << COUNTER_BITS) - 1;

    private Commands()
    {
    }

    /** The length field of a probe: larger than any payload, so it can never be mistaken for one. */
    public static final long PROBE_LENGTH = 0xFFFF_FFFFL;

    /** Words per command for payloads of up to {@code maxCommandBytes}. */
    public static int proposalWords(final int maxCommandBytes)
    {
        return HEADER_WORDS + (maxCommandBytes + 7) / 8;
    }

    /** Writes one command into {@code words[offset..offset + proposalWords)}. */
    public static void encode(final long[] words, final int offset, final int proposalWords, final int origin,
        final int incarnation, final long counter, final DirectBuffer payload, final int payloadOffset,
        final int length)
    {
        if (length < 0 || length > 8 * (proposalWords - HEADER_WORDS))
        {
            throw new IllegalArgumentException("command of " + length + " bytes exceeds the configured " +
                8 * (proposalWords - HEADER_WORDS) + ": raise maxCommandBytes on every node or split the command");
        }
        header(words, offset, origin, incarnation, counter, length);
        for (int w = HEADER_WORDS; w < proposalWords; w++)
        {
            long v = 0;
            final int base = (w - HEADER_WORDS) * 8;
            for (int b = 7; b >= 0; b--)
            {
                final int i = base + b;
                v = (v << 8) | (i < length ? payload.getByte(payloadOffset + i) & 0xFF : 0);
            }
            words[offset + w] = v;
        }
    }

    /** Writes one probe (no payload) into {@code words[offset..offset + proposalWords)}. */
    public static void encodeProbe(final long[] words, final int offset, final int proposalWords, final int origin,
        final int incarnation, final long counter)
    {
        header(words, offset, origin, incarnation, counter, PROBE_LENGTH);
        java.util.Arrays.fill(words, offset + HEADER_WORDS, offset + proposalWords, 0L);
    }

    /** Words 0 and 1 of a command: who sent it, which run, which counter, and the length field. */
    private static void header(final long[] words, final int offset, final int origin, final int incarnation,
        final long counter, final long lengthField)
    {
        if (counter < 1 || counter > MAX_COUNTER)
        {
            throw new IllegalArgumentException("command counter " + counter + " outside 1.." + MAX_COUNTER);
        }
        words[offset] = ((long)origin << COUNTER_BITS) | counter;
        words[offset + 1] = ((long)incarnation << 32) | lengthField;
    }

    /** True if the command at {@code offset} is a probe. */
    public static boolean isProbe(final long[] words, final int offset)
    {
        return (words[offset + 1] & 0xFFFF_FFFFL) == PROBE_LENGTH;
    }

    /** The submitting process of the command at {@code offset}. */
    public static int origin(final long[] words, final int offset)
    {
        return (int)(words[offset] >>> COUNTER_BITS);
    }

    /** The submitter's counter of the command at {@code offset}. */
    public static long counter(final long[] words, final int offset)
    {
        return words[offset] & MAX_COUNTER;
    }

    /** The submitter's incarnation of the command at {@code offset}. */
    public static int incarnation(final long[] words, final int offset)
    {
        return (int)(words[offset + 1] >>> 32);
    }

    /** Payload bytes of the command at {@code offset}; -1 if the length word is impossible. */
    public static int length(final long[] words, final int offset, final int proposalWords)
    {
        final long length = words[offset + 1] & 0xFFFF_FFFFL;
        return length <= 8L * (proposalWords - HEADER_WORDS) ? (int)length : -1;
    }

    /** Copies the payload of the command at {@code offset} into {@code dst}; returns its length. */
    public static int payload(final long[] words, final int offset, final int proposalWords,
        final MutableDirectBuffer dst)
    {
        final int length = length(words, offset, proposalWords);
        for (int w = HEADER_WORDS; w < proposalWords; w++)
        {
            dst.putLong((w - HEADER_WORDS) * 8, words[offset + w], ByteOrder.LITTLE_ENDIAN);
        }
        return length;
    }
}
