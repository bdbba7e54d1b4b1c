package io.mmx.rdma.fabric;

import io.mmx.planner.graph.Graph;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link MemoryFabric#wordNow} and {@link MemoryFabric#bulkNow}: on a link that completes inline an
 * operation runs at once, with no slot, correlation id or completion to poll; on any other link nothing
 * happens and the caller submits.
 */
class WordNowTest
{
    /** Process 0's neighbours are 1 and 2; 3 is not one. */
    private static final Graph PLAN = Graph.builder(4).addEdge(0, 1).addEdge(0, 2).addEdge(2, 3).build();
    private static final CompletionHandler NOTHING_EXPECTED = (id, type, owner, status, value) ->
        fail("a word run at once has no completion to poll, got " + type + " " + status);

    /** A word in memory behind a link; {@code inline} links answer inside submit, the others hold operations. */
    private static final class WordLink extends StubLink
    {
        final boolean inline;
        final List<String> submitted = new ArrayList<>();
        final List<Long> held = new ArrayList<>();
        boolean answers = true;
        long word = 40;

        WordLink(final int owner, final boolean inline)
        {
            super(owner);
            this.inline = inline;
        }

        @Override
        public boolean completesInline()
        {
            return inline;
        }

        @Override
        public void submit(final long correlationId, final OpType type, final long offset, final long operand1,
            final long operand2, final MutableDirectBuffer dst, final DirectBuffer src, final int bufOffset,
            final int length, final CompletionSink sink)
        {
            submitted.add(type + "@" + offset + "(" + operand1 + ")");
            if (!inline || !answers)
            {
                held.add(correlationId);
                return;
            }
            final long before = word;
            if (type == OpType.FETCH_AND_ADD)
            {
                word += operand1;
            }
            if (type == OpType.WRITE_BULK)
            {
                word = src.getLong(bufOffset); // the first of the bytes written
            }
            if (type == OpType.READ_BULK)
            {
                dst.putLong(bufOffset, word);
            }
            sink.complete(correlationId, OpStatus.OK, type.isWordOp() ? before : length, null, 0);
        }
    }

    private final WordLink[] links = new WordLink[4];
    private final long[] now = {1_000_000};
    private final WordOutcome outcome = new WordOutcome();

    private PlanMemoryFabric fabric(final boolean inline)
    {
        return new PlanMemoryFabric(ConnectionManager.open(PLAN, 0,
            (self, owner) -> links[owner] = new WordLink(owner, inline)), () -> now[0], 8);
    }

    @Test
    void anInlineLinkRunsTheOperationAtOnceAndLeavesNothingToPoll()
    {
        final PlanMemoryFabric fabric = fabric(true);

        assertTrue(fabric.wordNow(OpType.FETCH_AND_ADD, 0, 64, 1, 0, outcome));
        assertEquals(OpStatus.OK, outcome.status());
        assertEquals(40, outcome.value(), "the word before the addition");
        assertTrue(fabric.wordNow(OpType.READ, 1, 64, 0, 0, outcome));
        assertEquals(40, outcome.value());

        assertEquals(List.of("FETCH_AND_ADD@64(1)"), links[0].submitted, "the operation reached the owner's link");
        assertEquals(41, links[0].word);
        assertEquals(0, fabric.outstanding(), "no slot was taken");
        assertEquals(0, fabric.poll(NOTHING_EXPECTED, 10));
        assertEquals(2, fabric.counters().get(OpStatus.OK), "counted as the asynchronous path counts");
    }

    @Test
    void aLinkWithIoOfItsOwnIsLeftToTheAsynchronousPath()
    {
        final PlanMemoryFabric fabric = fabric(false);

        assertFalse(fabric.wordNow(OpType.READ, 1, 64, 0, 0, outcome));
        assertEquals(List.of(), links[1].submitted, "nothing was sent");
        assertEquals(0, fabric.outstanding());
    }

    @Test
    void refusalsHoldAsForASubmission()
    {
        final PlanMemoryFabric fabric = fabric(true);

        assertTrue(fabric.wordNow(OpType.READ, 3, 64, 0, 0, outcome));
        assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, outcome.status(), "3 is not a plan neighbour of 0");
        assertTrue(fabric.wordNow(OpType.READ_BULK, 1, 64, 0, 0, outcome));
        assertEquals(OpStatus.BAD_LENGTH, outcome.status(), "only word operations run at once");
        assertEquals(1, fabric.counters().get(OpStatus.REFUSED_NOT_NEIGHBOUR));

        // A submission to 2 that times out raises the fence: a word run at once must not overtake it.
        links[2].answers = false;
        fabric.read(2, 64, 1_000);
        now[0] += 1_000;
        final List<OpStatus> statuses = new ArrayList<>();
        fabric.poll((id, type, owner, status, value) -> statuses.add(status), 10);
        assertEquals(List.of(OpStatus.TIMEOUT), statuses);
        assertTrue(fabric.wordNow(OpType.READ, 2, 64, 0, 0, outcome));
        assertEquals(OpStatus.FENCED, outcome.status());
        assertEquals(1, links[2].submitted.size(), "the fenced read never reached the link");
        assertTrue(fabric.wordNow(OpType.READ, 1, 64, 0, 0, outcome));
        assertEquals(OpStatus.OK, outcome.status(), "the fence is per owner");

        fabric.close();
        assertTrue(fabric.wordNow(OpType.READ, 1, 64, 0, 0, outcome));
        assertEquals(OpStatus.CLOSED, outcome.status());
    }

    @Test
    void aBulkOperationOnAnInlineLinkRunsAtOnceWithTheSubmissionsChecks()
    {
        final PlanMemoryFabric fabric = fabric(true);
        final org.agrona.concurrent.UnsafeBuffer buffer = new org.agrona.concurrent.UnsafeBuffer(new byte[64]);
        buffer.putLong(16, 77);

        assertTrue(fabric.bulkNow(OpType.WRITE_BULK, 1, 128, null, buffer, 16, 32, outcome));
        assertEquals(OpStatus.OK, outcome.status());
        assertEquals(32, outcome.value(), "a bulk operation's value is its length");
        assertEquals(77, links[1].word, "the bytes reached the link before bulkNow returned");
        assertTrue(fabric.bulkNow(OpType.READ_BULK, 1, 128, buffer, null, 40, 8, outcome));
        assertEquals(77, buffer.getLong(40), "read into the buffer before bulkNow returned");
        assertEquals(0, fabric.outstanding());
        assertEquals(0, fabric.poll(NOTHING_EXPECTED, 10));

        assertTrue(fabric.bulkNow(OpType.WRITE_BULK, 1, 128, null, buffer, 40, 32, outcome));
        assertEquals(OpStatus.BAD_LENGTH, outcome.status(), "32 bytes from offset 40 overrun a 64-byte buffer");
        assertTrue(fabric.bulkNow(OpType.WRITE_BULK, 1, 128, null, buffer, 0, MemoryFabric.MAX_BULK_BYTES + 8, outcome));
        assertEquals(OpStatus.BAD_LENGTH, outcome.status(), "longer than one fabric operation");
        assertTrue(fabric.bulkNow(OpType.WRITE_BULK, 3, 128, null, buffer, 0, 8, outcome));
        assertEquals(OpStatus.REFUSED_NOT_NEIGHBOUR, outcome.status());
        assertEquals(2, links[1].submitted.size(), "refused operations never reached the link");
        assertThrows(IllegalArgumentException.class, () -> fabric.bulkNow(OpType.READ, 1, 128, buffer, null, 0, 8,
            outcome), "a word operation goes through wordNow");

        // The fence holds for bulk operations as for words.
        links[2].answers = false;
        fabric.read(2, 64, 1_000);
        now[0] += 1_000;
        fabric.poll((id, type, owner, status, value) -> { }, 10);
        assertTrue(fabric.bulkNow(OpType.WRITE_BULK, 2, 128, null, buffer, 0, 8, outcome));
        assertEquals(OpStatus.FENCED, outcome.status());

        assertFalse(fabric(false).bulkNow(OpType.WRITE_BULK, 1, 128, null, buffer, 0, 8, outcome),
            "a link with I/O of its own is left to writeBulk");
    }

    @Test
    void aLinkThatSaysInlineButDoesNotCompleteIsABug()
    {
        final PlanMemoryFabric fabric = fabric(true);
        links[1].answers = false;

        final IllegalStateException bug = assertThrows(IllegalStateException.class,
            () -> fabric.wordNow(OpType.READ, 1, 64, 0, 0, outcome));
        assertTrue(bug.getMessage().contains("completes inline"), bug.getMessage());
    }
}
