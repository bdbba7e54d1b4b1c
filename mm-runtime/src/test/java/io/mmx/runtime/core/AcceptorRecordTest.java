package io.mmx.runtime.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class AcceptorRecordTest
{
    @Test
    void encodeDecodeRoundTrip()
    {
        final AcceptorRecord r = new AcceptorRecord(8, 4);
        assertTrue(AcceptorTransition.prepare(r, 17));
        assertEquals(AcceptorTransition.AcceptOutcome.ACCEPTED,
            AcceptorTransition.accept(r, 17, 3, new long[][] {{1, 2}, {}, {3, 4, 5, 6}}));
        r.seq(5);
        r.prevHead(RegionLayout.headWord(4, 1, 0));
        final long[] words = new long[AcceptorRecord.capacityWords(8, 4)];
        final int len = r.encode(words, 0);

        final AcceptorRecord d = new AcceptorRecord(8, 4);
        assertTrue(d.decode(words, 0, words.length, 5));
        assertTrue(d.sameStateAs(r));
        assertEquals(17, d.promised());
        assertArrayEquals(new long[] {3, 4, 5, 6}, d.value(d.find(5)));
        assertEquals(r.prevHead(), d.prevHead());
        assertEquals(len, words[AcceptorRecord.LENGTH]);
    }

    @Test
    void decodeRejectsWrongSequenceAndTornRecords()
    {
        final AcceptorRecord r = new AcceptorRecord(8, 4);
        AcceptorTransition.accept(r, 9, 0, new long[][] {{1}});
        r.seq(2);
        final long[] words = new long[AcceptorRecord.capacityWords(8, 4)];
        final int len = r.encode(words, 0);
        final AcceptorRecord d = new AcceptorRecord(8, 4);
        assertFalse(d.decode(words, 0, words.length, 3), "a record published with another sequence");
        words[len - 1] = 99; // trailing echo from a newer record: torn
        assertFalse(d.decode(words, 0, words.length, 2));
        assertEquals(0, d.count());
    }

    @Test
    void raisingTheFloorReclaimsDecidedEntries()
    {
        final AcceptorRecord r = new AcceptorRecord(4, 1);
        AcceptorTransition.accept(r, 5, 0, new long[][] {{0}, {1}, {2}, {3}});
        assertEquals(AcceptorTransition.AcceptOutcome.WINDOW_FULL, AcceptorTransition.accept(r, 5, 4, new long[][] {{4}}));
        r.raiseFloor(3);
        assertEquals(1, r.count());
        assertEquals(AcceptorTransition.AcceptOutcome.ACCEPTED, AcceptorTransition.accept(r, 5, 4, new long[][] {{4}}));
        assertEquals(AcceptorTransition.AcceptOutcome.BELOW_FLOOR, AcceptorTransition.accept(r, 6, 2, new long[][] {{9}, {8}}),
            "a reclaimed slot is never claimed as accepted");
        assertEquals(-1, r.find(2));
        assertEquals(5, r.promised(), "a refused group changes nothing");
    }

    @Test
    void aChainOfDeltasReadsBackAsTheStateItWasWrittenFrom()
    {
        final long seed = Long.getLong("mmx.record.seed", System.nanoTime());
        System.out.println("AcceptorRecordTest seed " + seed + " (replay: -Dmmx.record.seed=" + seed + ")");
        final java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        final AcceptorRecord writer = new AcceptorRecord(16, 3);
        final AcceptorRecord reader = new AcceptorRecord(16, 3);
        final long[] words = new long[AcceptorRecord.capacityWords(16, 3)];
        long head = 0;
        long ballot = 1;
        int deltas = 0;
        for (int t = 1; t <= 400; t++)
        {
            writer.beginTransition(writer.floor() + random.nextInt(3));
            ballot += random.nextInt(4) == 0 ? 1 : 0;
            AcceptorTransition.prepare(writer, ballot);
            final int groups = 1 + random.nextInt(2);
            for (int g = 0; g < groups; g++)
            {
                final long first = writer.floor() + random.nextInt(8);
                final long[][] values = new long[1 + random.nextInt(4)][];
                for (int v = 0; v < values.length; v++)
                {
                    values[v] = new long[random.nextInt(4)];
                    java.util.Arrays.fill(values[v], first + v + 1000 * ballot);
                }
                AcceptorTransition.accept(writer, ballot, first, values, false);
            }
            if (!writer.changed())
            {
                continue;
            }
            writer.seq(t);
            writer.prevHead(head);
            final boolean delta = head != 0 && random.nextInt(4) != 0;
            if (delta)
            {
                writer.deltaWords();
                writer.depth(writer.depth() + 1);
                final int length = writer.encodeDelta(words, 0);
                assertTrue(reader.applyDelta(words, 0, length, t), "transition " + t + ": the delta applies");
                deltas++;
            }
            else
            {
                writer.depth(0);
                final int length = writer.encode(words, 0);
                assertTrue(reader.decode(words, 0, length, t), "transition " + t + ": the whole record decodes");
            }
            head = RegionLayout.headWord(t, 0, 0);
            assertTrue(reader.sameStateAs(writer), "seed " + seed + ", transition " + t + ": " + reader + " vs " + writer);
            assertEquals(writer.depth(), reader.depth());
        }
        assertTrue(deltas > 100, "most transitions were deltas: " + deltas);
    }

    @Test
    void aGroupPutAtOnceEqualsItsSlotsPutOneByOne()
    {
        final long seed = Long.getLong("mmx.record.seed", System.nanoTime());
        System.out.println("AcceptorRecordTest groups seed " + seed + " (replay: -Dmmx.record.seed=" + seed + ")");
        final java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        for (int run = 0; run < 200; run++)
        {
            final AcceptorRecord grouped = new AcceptorRecord(32, 2);
            final AcceptorRecord single = new AcceptorRecord(32, 2);
            long ballot = 1;
            for (int g = 0; g < 12; g++)
            {
                ballot += random.nextInt(3) == 0 ? 1 : 0;
                final long first = random.nextInt(28);
                final long[][] values = new long[1 + random.nextInt(Math.min(4, 32 - (int)first))][];
                for (int v = 0; v < values.length; v++)
                {
                    values[v] = new long[] {first + v, ballot};
                }
                int changes = 0;
                for (int v = 0; v < values.length; v++)
                {
                    final int at = single.find(first + v);
                    changes += at < 0 || single.ballot(at) != Math.max(ballot, single.promised()) ? 1 : 0;
                }
                grouped.beginTransition(0);
                grouped.promised(Math.max(grouped.promised(), ballot));
                grouped.putGroup(first, Math.max(ballot, grouped.promised()), values);
                single.promised(Math.max(single.promised(), ballot));
                for (int v = 0; v < values.length; v++)
                {
                    single.put(first + v, Math.max(ballot, single.promised()), values[v]);
                }
                assertTrue(grouped.sameStateAs(single), "seed " + seed + " run " + run + " group " + g + ": " + grouped +
                    " vs " + single);
                grouped.deltaWords();
                assertEquals(changes, deltaEntries(grouped), "seed " + seed + ": every slot the group changed is in the delta");
            }
        }
    }

    /** The entries the delta {@link AcceptorRecord#deltaWords} prepared holds, read back from its words. */
    private static int deltaEntries(final AcceptorRecord record)
    {
        final long[] words = new long[AcceptorRecord.capacityWords(record.maxEntries(), 2)];
        record.depth(1);
        record.encodeDelta(words, 0);
        record.depth(0);
        return (int)words[AcceptorRecord.COUNT];
    }

    @Test
    void aDeltaIsRefusedOnAStateItWasNotWrittenFor()
    {
        final AcceptorRecord writer = new AcceptorRecord(8, 2);
        AcceptorTransition.prepare(writer, 3);
        writer.seq(1);
        final long[] whole = new long[AcceptorRecord.capacityWords(8, 2)];
        final int wholeLength = writer.encode(whole, 0);
        writer.beginTransition(0);
        AcceptorTransition.accept(writer, 3, 0, new long[][] {{7}}, false);
        writer.seq(2);
        writer.prevHead(RegionLayout.headWord(1, 0, 0));
        writer.deltaWords();
        writer.depth(1);
        final long[] delta = new long[AcceptorRecord.capacityWords(8, 2)];
        final int deltaLength = writer.encodeDelta(delta, 0);
        final AcceptorRecord reader = new AcceptorRecord(8, 2);
        assertFalse(reader.applyDelta(delta, 0, deltaLength, 2), "a delta on the empty state of seq 0, not seq 1");
        assertTrue(reader.decode(whole, 0, wholeLength, 1));
        assertFalse(reader.decode(delta, 0, deltaLength, 2), "decode reads whole records only");
        assertTrue(reader.decode(whole, 0, wholeLength, 1));
        assertFalse(reader.applyDelta(delta, 0, deltaLength, 3), "the delta's own sequence is checked");
        assertTrue(reader.decode(whole, 0, wholeLength, 1));
        assertTrue(reader.applyDelta(delta, 0, deltaLength, 2));
        assertTrue(reader.sameStateAs(writer), reader + " vs " + writer);
        assertEquals(1, reader.count());
    }

    /**
     * A reader's copy interleaved with a rewrite of the slot whose words land in any order: words
     * 0-1 and the trailing echo still of {@code before}, the words in between already of {@code after}.
     */
    static long[] torn(final AcceptorRecord before, final AcceptorRecord after, final int words)
    {
        final long[] old = new long[words];
        before.encode(old, 0);
        final long[] torn = new long[words];
        after.encode(torn, 0);
        // Past the new record's end, the slot still holds the old record's words.
        final int newLength = (int)torn[AcceptorRecord.LENGTH];
        final int oldLength = (int)old[AcceptorRecord.LENGTH];
        torn[AcceptorRecord.SEQ] = old[AcceptorRecord.SEQ];
        torn[AcceptorRecord.LENGTH] = old[AcceptorRecord.LENGTH];
        System.arraycopy(old, newLength, torn, newLength, Math.max(0, oldLength - newLength));
        torn[oldLength - 1] = old[oldLength - 1];
        return torn;
    }

    @Test
    void tornReadWithAShorterRewriteIsRejected()
    {
        // Reader sees seq 5 (promised 10, accepted slot 3 at 15), copies words 0-1; the lane's
        // executor rewrites the slot with a shorter record (promised 20, nothing accepted, seq 7).
        final AcceptorRecord five = new AcceptorRecord(8, 4);
        AcceptorTransition.accept(five, 15, 3, new long[][] {{42, 43}});
        five.seq(5);
        final AcceptorRecord seven = new AcceptorRecord(8, 4);
        AcceptorTransition.prepare(seven, 20);
        seven.seq(7);
        final long[] torn = torn(five, seven, AcceptorRecord.capacityWords(8, 4));
        final AcceptorRecord d = new AcceptorRecord(8, 4);
        assertFalse(d.decode(torn, 0, torn.length, 5), "a torn record that was never published: " + d);
    }

    @Test
    void decodeAloneCannotTellATornReadOfTheSameShape()
    {
        // The rewrite has the same length and its echo has not landed yet: both checked words
        // still say 5, and nothing in the words tells the tear. This is why AcceptorDriver re-reads the head after the record.
        final AcceptorRecord five = new AcceptorRecord(8, 4);
        AcceptorTransition.accept(five, 15, 3, new long[][] {{42}});
        five.seq(5);
        final AcceptorRecord seven = new AcceptorRecord(8, 4);
        AcceptorTransition.accept(seven, 20, 4, new long[][] {{44}});
        seven.seq(7);
        final long[] torn = torn(five, seven, AcceptorRecord.capacityWords(8, 4));
        final AcceptorRecord d = new AcceptorRecord(8, 4);
        assertTrue(d.decode(torn, 0, torn.length, 5));
        assertEquals(20, d.promised());
        assertEquals(-1, d.find(3), "the accepted entry of slot 3 is missing from the torn view");
    }
}
