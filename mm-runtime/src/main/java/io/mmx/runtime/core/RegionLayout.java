package io.mmx.runtime.core;

import io.mmx.rdma.region.RegionHeader;

/**
 * The memory layout of a region R_q, in 8-byte words. Every offset the protocol touches is
 * computed here, so the layout documented in {@code docs/protocol.md} has one source.
 *
 * <pre>
 * word 0-3 identity           magic, version, owner q, plan hash: see {@link RegionHeader}
 * word 4   HEAD               the acceptor head word: seq(43) | lane(16) | index(4); 0 = initial state
 * word 5   HEARTBEAT          incremented by q only (fetch-add); membership reads it
 * word 6   DECIDED_THROUGH    highest slot whose decided entry q has written to its decided log
 * word 7   PROPOSER_ROUND     the highest ballot round q may have used as a proposer
 * word 8   INCARNATION        0: formatted with the cluster; k &gt; 0: formatted again, empty, after
 *                             a loss (the acceptor forgot its promises and stays out of quorums)
 * lanes    laneCount lanes, each of FULL_SLOTS record slots of recordCapacityWords (whole records)
 *          then chainDepth slots of deltaCapacityWords (delta records, see {@link AcceptorRecord});
 *          lane 0 is written by q, lane 1 + i by q's i-th smallest neighbour
 * decided  decidedCapacity entries x decidedEntryWords, entry of slot s at s mod decidedCapacity
 * </pre>
 *
 * Records are written only into the executor's own lane and only into a record slot that is not
 * in the chain of the last head the executor knows (see {@link AcceptorDriver}), so two executors
 * never write the same words, and no record a reader may still follow is rewritten while the head
 * stays where it was.
 */
public final class RegionLayout
{
    /** Header word indexes, as in the table above (words 0-3 are {@link RegionHeader}'s identity words). */
    public static final int HEAD_WORD = 4;
    /** See the table above. */
    public static final int HEARTBEAT_WORD = 5;
    /** See the table above. */
    public static final int DECIDED_THROUGH_WORD = 6;
    /** See the table above. */
    public static final int PROPOSER_ROUND_WORD = 7;
    /** See the table above. */
    public static final int INCARNATION_WORD = 8;
    /** Words in the header; the lanes follow. */
    public static final int HEADER_WORDS = 9;

    /**
     * Whole-record slots per lane: a chain holds at most one whole record, so one of two is always
     * free to write. Delta slots (index {@code FULL_SLOTS ..}) follow them: {@code chainDepth} of them.
     */
    public static final int FULL_SLOTS = 2;

    static final int HEAD_INDEX_BITS = 4;
    static final int HEAD_LANE_BITS = 16;
    static final int HEAD_SEQ_SHIFT = HEAD_INDEX_BITS + HEAD_LANE_BITS;
    /** Largest head sequence: 2^43 - 1 transitions per acceptor before the head word overflows. */
    public static final long MAX_HEAD_SEQ = (1L << (63 - HEAD_SEQ_SHIFT)) - 1;

    /** Decided entry words: slot + 1, value length, value[maxValueWords], slot + 1 echo (0 = never written). */
    public static final int DECIDED_ENTRY_FIXED_WORDS = 3;

    private final int laneCount;
    private final int recordMaxEntries;
    private final int maxValueWords;
    private final int recordCapacityWords;
    private final int chainDepth;
    private final int deltaCapacityWords;
    private final int laneWords;
    private final int decidedCapacity;
    private final int decidedEntryWords;
    private final int lanesOffsetWords;
    private final int decidedOffsetWords;
    private final int regionWords;

    /**
     * @param laneCount        1 + the largest degree in the plan.
     * @param recordMaxEntries accepted entries one acceptor record can hold (the acceptor window).
     * @param maxValueWords         words in one slot value (maxBatch x proposalWords).
     * @param decidedCapacity  entries in the decided-log ring.
     * @param chainDepth       delta records a chain may hold above its whole record (0: every record whole).
     * @param deltaMaxEntries  entries one delta record can hold.
     */
    public RegionLayout(final int laneCount, final int recordMaxEntries, final int maxValueWords, final int decidedCapacity,
        final int chainDepth, final int deltaMaxEntries)
    {
        if (laneCount < 1 || laneCount >= (1 << HEAD_LANE_BITS))
        {
            throw new IllegalArgumentException("lane count " + laneCount + " outside 1.." + ((1 << HEAD_LANE_BITS) - 1) +
                ": the plan's maximum degree is too large for the head word");
        }
        if (recordMaxEntries < 1 || maxValueWords < 1 || decidedCapacity < 1)
        {
            throw new IllegalArgumentException("record entries, batch and decided capacity must be >= 1");
        }
        if (chainDepth < 0 || FULL_SLOTS + chainDepth > (1 << HEAD_INDEX_BITS) || chainDepth > 0 && deltaMaxEntries < 1)
        {
            throw new IllegalArgumentException("record chain depth " + chainDepth + " outside 0.." +
                ((1 << HEAD_INDEX_BITS) - FULL_SLOTS) + ", or delta records of no entries: the head word names " +
                (1 << HEAD_INDEX_BITS) + " record slots per lane");
        }
        this.laneCount = laneCount;
        this.recordMaxEntries = recordMaxEntries;
        this.maxValueWords = maxValueWords;
        this.recordCapacityWords = AcceptorRecord.capacityWords(recordMaxEntries, maxValueWords);
        this.chainDepth = chainDepth;
        this.deltaCapacityWords = chainDepth == 0 ? 0 :
            AcceptorRecord.capacityWords(Math.min(recordMaxEntries, deltaMaxEntries), maxValueWords);
        this.laneWords = FULL_SLOTS * recordCapacityWords + chainDepth * deltaCapacityWords;
        this.decidedCapacity = decidedCapacity;
        this.decidedEntryWords = DECIDED_ENTRY_FIXED_WORDS + maxValueWords;
        this.lanesOffsetWords = HEADER_WORDS;
        final long decidedOffset = (long)lanesOffsetWords + (long)laneCount * laneWords;
        final long total = decidedOffset + (long)decidedCapacity * decidedEntryWords;
        if (total > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("region of " + total + " words is too large: reduce the record " +
                "window, the batch size or the decided-log capacity");
        }
        this.decidedOffsetWords = (int)decidedOffset;
        this.regionWords = (int)total;
    }

    /** Lanes: one for the owner and one per plan neighbour. */
    public int laneCount()
    {
        return laneCount;
    }

    /** Accepted entries one record holds. */
    public int recordMaxEntries()
    {
        return recordMaxEntries;
    }

    /** Longest slot value in words. */
    public int maxValueWords()
    {
        return maxValueWords;
    }

    /** Words a whole-record slot takes. */
    public int recordCapacityWords()
    {
        return recordCapacityWords;
    }

    /** Delta records a chain may hold above its whole record; 0 when every record is whole. */
    public int chainDepth()
    {
        return chainDepth;
    }

    /** Words a delta-record slot takes (0 without delta slots). */
    public int deltaCapacityWords()
    {
        return deltaCapacityWords;
    }

    /** Record slots per lane: {@link #FULL_SLOTS} whole ones, then {@link #chainDepth()} delta ones. */
    public int recordsPerLane()
    {
        return FULL_SLOTS + chainDepth;
    }

    /** Words record slot {@code index} of a lane takes. */
    public int recordSlotWords(final int index)
    {
        return index < FULL_SLOTS ? recordCapacityWords : deltaCapacityWords;
    }

    /** Entries in the decided-log ring. */
    public int decidedCapacity()
    {
        return decidedCapacity;
    }

    /** Words one decided-log entry takes. */
    public int decidedEntryWords()
    {
        return decidedEntryWords;
    }

    /** The whole region, in words. */
    public int regionWords()
    {
        return regionWords;
    }

    /** Where record slot {@code index} of lane {@code lane} starts. */
    public int recordOffsetWords(final int lane, final int index)
    {
        assert lane >= 0 && lane < laneCount && index >= 0 && index < recordsPerLane();
        final int inLane = index < FULL_SLOTS ? index * recordCapacityWords :
            FULL_SLOTS * recordCapacityWords + (index - FULL_SLOTS) * deltaCapacityWords;
        return lanesOffsetWords + lane * laneWords + inLane;
    }

    /**
     * The record slot word {@code offset} lies in, as {@code lane * recordsPerLane() + index}, or -1
     * outside the lanes: for checkers that watch which records a write touches.
     */
    public int recordSlotAt(final int offset)
    {
        if (offset < lanesOffsetWords || offset >= decidedOffsetWords)
        {
            return -1;
        }
        final int lane = (offset - lanesOffsetWords) / laneWords;
        final int inLane = (offset - lanesOffsetWords) % laneWords;
        final int index = inLane < FULL_SLOTS * recordCapacityWords ? inLane / recordCapacityWords :
            FULL_SLOTS + (inLane - FULL_SLOTS * recordCapacityWords) / deltaCapacityWords;
        return lane * recordsPerLane() + index;
    }

    /** Where slot {@code slot}'s decided-log entry starts. */
    public int decidedEntryOffsetWords(final long slot)
    {
        assert slot >= 0;
        return decidedOffsetWords + (int)(slot % decidedCapacity) * decidedEntryWords;
    }

    /** Entries from {@code slot} to the end of the ring without wrapping. */
    public int decidedEntriesBeforeWrap(final long slot)
    {
        return decidedCapacity - (int)(slot % decidedCapacity);
    }

    /** Encodes a head word. Sequence 0 is the initial state and has no record. */
    public static long headWord(final long seq, final int lane, final int index)
    {
        if (seq < 1 || seq > MAX_HEAD_SEQ)
        {
            throw new ArithmeticException("head sequence " + seq + " outside 1.." + MAX_HEAD_SEQ);
        }
        return (seq << HEAD_SEQ_SHIFT) | ((long)lane << HEAD_INDEX_BITS) | index;
    }

    /** The sequence of a head word. */
    public static long headSeq(final long head)
    {
        return head >>> HEAD_SEQ_SHIFT;
    }

    /** The lane a head word points into. */
    public static int headLane(final long head)
    {
        return (int)((head >>> HEAD_INDEX_BITS) & ((1 << HEAD_LANE_BITS) - 1));
    }

    /** The record slot a head word points at. */
    public static int headIndex(final long head)
    {
        return (int)(head & ((1 << HEAD_INDEX_BITS) - 1));
    }

    /** The header words a region formatted with the cluster starts with; the rest of the region is zero. */
    public static void initHeader(final long[] header, final int owner, final long planHash)
    {
        initHeader(header, owner, planHash, 0);
    }

    /**
     * The header of a fresh region; {@code incarnation} &gt; 0 marks a region formatted again after
     * its contents were lost: its acceptor is amnesiac (see {@link #amnesiac}).
     */
    public static void initHeader(final long[] header, final int owner, final long planHash, final long incarnation)
    {
        header[INCARNATION_WORD] = incarnation;
        RegionHeader.putIdentityWords(header, owner, planHash);
        header[HEAD_WORD] = 0L;
        header[HEARTBEAT_WORD] = 0L;
        header[DECIDED_THROUGH_WORD] = -1L;
        header[PROPOSER_ROUND_WORD] = 0L;
    }

    /**
     * An acceptor is amnesiac when its region was formatted again after a loss and still holds the
     * initial state: it forgot what it promised and accepted, so no executor runs it and it is in
     * no quorum (docs/protocol.md, amnesia rule).
     */
    public static boolean amnesiac(final long incarnation, final long head)
    {
        return incarnation > 0 && head == 0;
    }
}
