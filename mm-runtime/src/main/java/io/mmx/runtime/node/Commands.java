package io.mmx.runtime.node;

import org.agrona.DirectBuffer;

import java.nio.LongBuffer;

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
 *
 * <p>A <em>client fragment</em> carries part of an outside client's command: its origin is at
 * least {@link #CLIENT_ORIGIN}, and the origin's low 19 bits with the incarnation field hold the
 * client id (51 bits); its counter is sequence (28 bits) | fragment (16 bits); its payload is
 * the command's total length (u32) and then the fragment's bytes. Every replica reassembles a
 * command from its fragments alike and applies it once ({@link ClientSessions}).
 */
public final class Commands
{
    /** Words before the payload. */
    public static final int HEADER_WORDS = 2;
    static final int ORIGIN_BITS = 20;
    static final int COUNTER_BITS = 64 - ORIGIN_BITS;
    /** Largest counter of one incarnation. */
    public static final long MAX_COUNTER = (1L << COUNTER_BITS) - 1;

    /** Origins from here on name clients, not processes: process ids stay below it. */
    public static final int CLIENT_ORIGIN = 1 << 19;
    /** Counter bits naming a fragment of a client command. */
    public static final int FRAGMENT_BITS = 16;
    /** Most fragments of one client command. */
    public static final int MAX_FRAGMENTS = 1 << FRAGMENT_BITS;
    /** Bytes of a fragment's payload before its share of the command: the command's total length. */
    public static final int FRAGMENT_HEADER_BYTES = 4;

    private Commands()
    {
    }

    /** Command bytes one fragment carries when commands are {@code proposalWords} words. */
    public static int fragmentBytes(final int proposalWords)
    {
        return 8 * (proposalWords - HEADER_WORDS) - FRAGMENT_HEADER_BYTES;
    }

    /** Fragments a client command of {@code totalLength} bytes travels in (at least one). */
    public static int fragments(final int totalLength, final int fragmentBytes)
    {
        return Math.max(1, (totalLength + fragmentBytes - 1) / fragmentBytes);
    }

    /** Largest client command at this width: {@link #MAX_FRAGMENTS} fragments. */
    public static int maxClientCommandBytes(final int proposalWords)
    {
        return (int)Math.min(Integer.MAX_VALUE - 8, (long)MAX_FRAGMENTS * fragmentBytes(proposalWords));
    }

    /**
     * Writes fragment {@code fragment} of a client's command into {@code words[offset..offset + proposalWords)}.
     */
    public static void encodeClientFragment(final long[] words, final int offset, final int proposalWords,
        final long clientId, final long seq, final int fragment, final byte[] command)
    {
        final int d = fragmentBytes(proposalWords);
        if (fragment < 0 || fragment >= fragments(command.length, d) || fragments(command.length, d) > MAX_FRAGMENTS)
        {
            throw new IllegalArgumentException("fragment " + fragment + " of a command of " + command.length +
                " bytes in fragments of " + d + " (at most " + MAX_FRAGMENTS + " fragments)");
        }
        final int from = fragment * d;
        final int length = Math.min(d, command.length - from);
        final byte[] payload = new byte[FRAGMENT_HEADER_BYTES + Math.max(0, length)];
        payload[0] = (byte)command.length;
        payload[1] = (byte)(command.length >>> 8);
        payload[2] = (byte)(command.length >>> 16);
        payload[3] = (byte)(command.length >>> 24);
        if (length > 0)
        {
            System.arraycopy(command, from, payload, FRAGMENT_HEADER_BYTES, length);
        }
        final int origin = CLIENT_ORIGIN | (int)(clientId >>> 32);
        encode(words, offset, proposalWords, origin, (int)clientId, (seq << FRAGMENT_BITS) | fragment,
            new org.agrona.concurrent.UnsafeBuffer(payload), 0, payload.length);
    }

    /** True if the command at {@code offset} is a fragment of a client's command. */
    public static boolean isClientFragment(final long[] words, final int offset)
    {
        return origin(words, offset) >= CLIENT_ORIGIN;
    }

    /** The client id of the fragment at {@code offset}. */
    public static long clientId(final long[] words, final int offset)
    {
        return ((long)(origin(words, offset) & (CLIENT_ORIGIN - 1)) << 32) | (incarnation(words, offset) & 0xFFFF_FFFFL);
    }

    /** The client's sequence number of the fragment at {@code offset}. */
    public static long clientSeq(final long[] words, final int offset)
    {
        return counter(words, offset) >>> FRAGMENT_BITS;
    }

    /** The fragment's index within its command. */
    public static int fragment(final long[] words, final int offset)
    {
        return (int)(counter(words, offset) & (MAX_FRAGMENTS - 1));
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

    /**
     * The length field of an era report (a cold start's preamble, {@link LogEra}): origin = the
     * reporting process, incarnation = the era, counter = the attempt, payload word = the last
     * slot the process's state holds (-1: none), with bit 62 set if the era may start on a majority.
     */
    public static final long ERA_REPORT_LENGTH = 0xFFFF_FFFEL;
    private static final long MAJORITY_BIT = 1L << 62;

    /** Writes one era report into {@code words[offset..offset + proposalWords)}. */
    static void encodeEraReport(final long[] words, final int offset, final int proposalWords, final int process,
        final int era, final long attempt, final long position, final boolean majority)
    {
        header(words, offset, process, era, attempt, ERA_REPORT_LENGTH);
        java.util.Arrays.fill(words, offset + HEADER_WORDS, offset + proposalWords, 0L);
        words[offset + HEADER_WORDS] = (position + 1) | (majority ? MAJORITY_BIT : 0);
    }

    /** True if the command at {@code offset} is an era report. */
    static boolean isEraReport(final long[] words, final int offset)
    {
        return (words[offset + 1] & 0xFFFF_FFFFL) == ERA_REPORT_LENGTH;
    }

    /** The position an era report carries. */
    static long reportPosition(final long[] words, final int offset)
    {
        return (words[offset + HEADER_WORDS] & ~MAJORITY_BIT) - 1;
    }

    /** True if an era report allows the era to start on a majority. */
    static boolean reportAllowsMajority(final long[] words, final int offset)
    {
        return (words[offset + HEADER_WORDS] & MAJORITY_BIT) != 0;
    }

    /**
     * The length field of a plan change ({@code CHANGE(H')}, docs/protocol.md §8b): origin,
     * incarnation and counter are its submitter's, as for any command; payload word 0 is the new
     * plan's 64-bit id ({@link io.mmx.planner.plan.PlanDigest#id64()}, the id region headers carry),
     * word 1 the era it ends (bits 0-15) and the new plan's number of processes (bits 16 and up, 0 when
     * not given). The first one decided in that era ends it at its slot; every replica
     * checks that it holds the plan with that id before it begins the next era on it. A change
     * decided in any other era (a retry that outlived its era) ends nothing.
     */
    public static final long PLAN_CHANGE_LENGTH = 0xFFFF_FFFDL;

    /** Writes one plan change into {@code words[offset..offset + proposalWords)}. */
    public static void encodePlanChange(final long[] words, final int offset, final int proposalWords,
        final int origin, final int incarnation, final long counter, final long planId, final int era,
        final int processes)
    {
        if (proposalWords < HEADER_WORDS + 2)
        {
            throw new IllegalArgumentException("a plan change needs commands of at least " + (HEADER_WORDS + 2) +
                " words (maxCommandBytes >= 16 on every node); these have " + proposalWords);
        }
        header(words, offset, origin, incarnation, counter, PLAN_CHANGE_LENGTH);
        java.util.Arrays.fill(words, offset + HEADER_WORDS, offset + proposalWords, 0L);
        words[offset + HEADER_WORDS] = planId;
        words[offset + HEADER_WORDS + 1] = (era & 0xFFFFL) | ((long)processes << 16);
    }

    /** The era a plan change ends. */
    public static long changedEra(final long[] words, final int offset)
    {
        return words[offset + HEADER_WORDS + 1] & 0xFFFFL;
    }

    /** The number of processes of the plan a plan change names, or 0 when its proposer did not say. */
    public static int changedPlanProcesses(final long[] words, final int offset)
    {
        return (int)(words[offset + HEADER_WORDS + 1] >>> 16);
    }

    /** True if the command at {@code offset} is a plan change. */
    public static boolean isPlanChange(final long[] words, final int offset)
    {
        return (words[offset + 1] & 0xFFFF_FFFFL) == PLAN_CHANGE_LENGTH;
    }

    /** The id of the plan a plan change names. */
    public static long changedPlanId(final long[] words, final int offset)
    {
        return words[offset + HEADER_WORDS];
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

    /**
     * Copies the payload of the command at {@code offset} into {@code dst}, a little-endian view of the
     * bytes the state machine reads (position ignored); returns its length. One bulk copy: a replica
     * copies every command it applies, and word by word through a buffer interface that was a
     * tenth of a replica's time at n = 256.
     */
    public static int payload(final long[] words, final int offset, final int proposalWords, final LongBuffer dst)
    {
        final int length = length(words, offset, proposalWords);
        dst.put(0, words, offset + HEADER_WORDS, proposalWords - HEADER_WORDS);
        return length;
    }
}
