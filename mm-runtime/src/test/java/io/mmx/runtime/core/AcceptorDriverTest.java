package io.mmx.runtime.core;

import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** One acceptor driver against scripted memory completions. */
class AcceptorDriverTest
{
    /** Records the driver's memory ops and replies; completions are fed by the test. */
    static class Script extends IgnoringEffects implements AcceptorReplies
    {
        long opId;
        MemoryOpKind kind;
        int offsetWords;
        int lengthWords;
        long[] payload;
        final List<String> replies = new ArrayList<>();

        @Override
        public void memory(final long opId, final MemoryOpKind kind, final int region, final int offsetWords,
            final int lengthWords, final long expected, final long value, final long[] payload)
        {
            this.opId = opId;
            this.kind = kind;
            this.offsetWords = offsetWords;
            this.lengthWords = lengthWords;
            this.payload = payload == null ? null : java.util.Arrays.copyOf(payload, lengthWords);
        }

        @Override
        public void promised(final int acceptor, final long ballot, final AcceptorRecord record)
        {
            replies.add("promise " + ballot + " " + record);
        }

        @Override
        public void refused(final int acceptor, final long ballot, final long promised)
        {
            replies.add("nack " + ballot);
        }

        @Override
        public void acceptResolved(final int acceptor, final Message.Accept accept,
            final AcceptorTransition.AcceptOutcome outcome, final long floor)
        {
        }
    }

    static AcceptorDriver driver(final CoreConfig config, final Script script)
    {
        return new AcceptorDriver(0, 0, 0, 0, config, script, script, new Learner(0, config, script),
            new PayloadScratch());
    }

    /**
     * A reader sees head seq 5 and copies the record while its lane's executor rewrites the slot
     * (the head has moved on to seq 7 meanwhile). Prepare(20) finds promised 20 in the torn view,
     * "nothing to publish", and used to answer Promise(20) without slot 3's accepted entry.
     */
    static List<String> prepareOverATornRead(final Flaw flaw)
    {
        final CoreConfig config = new CoreConfig().graph(Graph.empty(3)).flaw(flaw).conclude();
        final Script script = new Script();
        final AcceptorDriver d = driver(config, script);
        d.activate();
        d.enqueuePrepare(20);
        assertEquals(MemoryOpKind.READ, script.kind);
        final long five = RegionLayout.headWord(5, 0, 0);
        d.onCompletion(script.opId, MemoryStatus.OK, five, null);
        assertEquals(MemoryOpKind.READ_BULK, script.kind);

        final AcceptorRecord before = new AcceptorRecord(config.recordMaxEntries(), config.valueWords());
        AcceptorTransition.accept(before, 15, 3, new long[][] {{42}});
        before.seq(5);
        final AcceptorRecord after = new AcceptorRecord(config.recordMaxEntries(), config.valueWords());
        AcceptorTransition.accept(after, 20, 4, new long[][] {{44}});
        after.seq(7);
        final long[] torn = AcceptorRecordTest.torn(before, after, config.layout().recordCapacityWords());
        d.onCompletion(script.opId, MemoryStatus.OK, 0, torn);
        if (script.kind == MemoryOpKind.READ)
        {
            // The validating head read: the head has moved on to seq 7.
            d.onCompletion(script.opId, MemoryStatus.OK, RegionLayout.headWord(7, 0, 1), null);
        }
        return script.replies;
    }

    @Test
    void aTornRecordReadIsNeverTheSourceOfAReply()
    {
        final List<String> replies = prepareOverATornRead(Flaw.NONE);
        assertEquals(List.of(), replies, "no reply may come from a record the head no longer publishes");
    }

    @Test
    void aRecordLongerThanTheFirstReadIsReadAgainWholeBeforeItIsTrusted()
    {
        final CoreConfig config = new CoreConfig().graph(Graph.empty(3)).maxBatch(8).recordMaxEntries(64).conclude();
        final Script script = new Script();
        final AcceptorDriver d = driver(config, script);
        d.activate();
        d.enqueuePrepare(20);
        final long head = RegionLayout.headWord(5, 0, 0);
        d.onCompletion(script.opId, MemoryStatus.OK, head, null);
        assertEquals(MemoryOpKind.READ_BULK, script.kind);
        final int first = script.lengthWords;
        assertTrue(first < config.layout().recordCapacityWords(), "the first read is not the whole capacity: " + first);

        // Published: 20 entries of 8 words, longer than the first read.
        final AcceptorRecord published = new AcceptorRecord(config.recordMaxEntries(), config.valueWords());
        for (int slot = 0; slot < 20; slot++)
        {
            AcceptorTransition.accept(published, 15, slot, new long[][] {{slot, 1, 2, 3, 4, 5, 6, 7}});
        }
        published.seq(5);
        final long[] words = new long[config.layout().recordCapacityWords()];
        final int length = published.encode(words, 0);
        assertTrue(length > first, length + " words against a first read of " + first);

        d.onCompletion(script.opId, MemoryStatus.OK, 0, java.util.Arrays.copyOf(words, first));
        assertEquals(MemoryOpKind.READ_BULK, script.kind, "the record again, not the head: it was not read whole");
        assertTrue(script.lengthWords >= length, script.lengthWords + " words asked for a record of " + length);
        d.onCompletion(script.opId, MemoryStatus.OK, 0, java.util.Arrays.copyOf(words, script.lengthWords));
        assertEquals(MemoryOpKind.READ, script.kind, "now the validating head read");
        d.onCompletion(script.opId, MemoryStatus.OK, head, null);
        // The prepare's transition: a record write follows, then the publishing CAS; the promise comes after.
        assertEquals(MemoryOpKind.WRITE_BULK, script.kind);
        d.onCompletion(script.opId, MemoryStatus.OK, 0, null);
        assertEquals(MemoryOpKind.CAS, script.kind);
        d.onCompletion(script.opId, MemoryStatus.OK, head, null);
        assertEquals(1, script.replies.size(), script.replies.toString());
        assertTrue(script.replies.get(0).contains("19@15"), "the promise carries the last entry: " + script.replies);
    }

    /** Words of {@code record} published at {@code seq} on {@code prev}: whole (depth 0) or as its delta. */
    private static long[] encoded(final AcceptorRecord record, final long seq, final long prev, final int depth,
        final CoreConfig config)
    {
        record.seq(seq);
        record.prevHead(prev);
        record.depth(depth);
        final long[] words = new long[config.layout().recordCapacityWords()];
        if (depth == 0)
        {
            return java.util.Arrays.copyOf(words, record.encode(words, 0));
        }
        record.deltaWords();
        return java.util.Arrays.copyOf(words, record.encodeDelta(words, 0));
    }

    @Test
    void aChainIsReadBackToItsWholeRecordAndTheNextRecordAvoidsItsSlots()
    {
        final Graph pair = Graph.builder(2).addEdge(0, 1).build();
        final CoreConfig config = new CoreConfig().graph(pair).recordChainDepth(3).conclude();
        final RegionLayout layout = config.layout();
        final Script script = new Script();
        final AcceptorDriver d = driver(config, script);
        d.activate();
        d.enqueuePrepare(20);
        // Published: a whole record in lane 1 slot 0 (seq 4), a delta in our lane's slot 2 (seq 5,
        // depth 1), a delta in lane 1 slot 2 (seq 6, depth 2), which the head names.
        final long whole = RegionLayout.headWord(4, 1, 0);
        final long first = RegionLayout.headWord(5, 0, 2);
        final long head = RegionLayout.headWord(6, 1, 2);
        final AcceptorRecord state = new AcceptorRecord(config.recordMaxEntries(), config.valueWords());
        AcceptorTransition.accept(state, 15, 0, new long[][] {{40}});
        final long[] wholeWords = encoded(state, 4, 0, 0, config);
        state.beginTransition(0);
        AcceptorTransition.accept(state, 15, 1, new long[][] {{41}});
        final long[] firstWords = encoded(state, 5, whole, 1, config);
        state.beginTransition(0);
        AcceptorTransition.accept(state, 16, 0, new long[][] {{50}, {51}});
        final long[] headWords = encoded(state, 6, first, 2, config);
        assertEquals(2, headWords[AcceptorRecord.COUNT], "the second delta holds its two entries only");

        d.onCompletion(script.opId, MemoryStatus.OK, head, null);
        assertEquals(layout.recordOffsetWords(1, 2), script.offsetWords, "the head's record first");
        assertTrue(script.lengthWords <= layout.deltaCapacityWords(), "a delta slot's read stays in the slot");
        d.onCompletion(script.opId, MemoryStatus.OK, 0, headWords);
        assertEquals(layout.recordOffsetWords(0, 2), script.offsetWords, "then the record it builds on");
        d.onCompletion(script.opId, MemoryStatus.OK, 0, firstWords);
        assertEquals(layout.recordOffsetWords(1, 0), script.offsetWords, "then the whole record");
        d.onCompletion(script.opId, MemoryStatus.OK, 0, wholeWords);
        assertEquals(MemoryOpKind.READ, script.kind, "then the validating head read");
        d.onCompletion(script.opId, MemoryStatus.OK, head, null);

        // The prepare's transition: the third delta, in our lane, not in slot 2, which the chain holds.
        assertEquals(MemoryOpKind.WRITE_BULK, script.kind);
        assertEquals(layout.recordOffsetWords(0, 3), script.offsetWords, "the first delta slot not in the chain");
        assertEquals(3, script.payload[AcceptorRecord.DEPTH]);
        assertEquals(head, script.payload[AcceptorRecord.PREV]);
        assertEquals(0, script.payload[AcceptorRecord.COUNT], "a promise alone changes no entry");
        d.onCompletion(script.opId, MemoryStatus.OK, 0, null);
        assertEquals(MemoryOpKind.CAS, script.kind);
        d.onCompletion(script.opId, MemoryStatus.OK, head, null);
        assertEquals(1, script.replies.size(), script.replies.toString());
        assertTrue(script.replies.get(0).contains("0@16=[50]") && script.replies.get(0).contains("1@16=[51]"),
            "the promise carries the chain's state: " + script.replies);

        // A fourth link would pass the depth: the next record is whole, in a whole-record slot.
        final Message.Accept accept = new Message.Accept(1, 20, 2, new long[][] {{52}}, 0, 0);
        d.enqueueAccept(accept);
        assertEquals(MemoryOpKind.WRITE_BULK, script.kind);
        assertEquals(layout.recordOffsetWords(0, 0), script.offsetWords);
        assertEquals(0, script.payload[AcceptorRecord.DEPTH]);
        assertEquals(3, script.payload[AcceptorRecord.COUNT], "the whole window");
    }

    @Test
    void trustingTheTornReadAnswersFromAStateNeverPublished()
    {
        final List<String> replies = prepareOverATornRead(Flaw.TRUST_TORN_READ);
        assertEquals(1, replies.size(), replies.toString());
        assertTrue(replies.get(0).startsWith("promise 20"), replies.toString());
        assertFalse(replies.get(0).contains("3@15"), "the accepted entry is missing: " + replies);
    }
}
