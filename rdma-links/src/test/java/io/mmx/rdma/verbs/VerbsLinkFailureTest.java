package io.mmx.rdma.verbs;

import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.OpType;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An error completion on a verbs link: the RC queue pair is in the error state, so the link goes
 * to reconnect and every operation it held completes at once (none is left to its timeout), and
 * the next operation runs on a new queue pair.
 */
class VerbsLinkFailureTest
{
    /** A queue pair that holds what is posted and completes it when told. */
    private static final class HeldQueuePair implements VerbsQueuePair
    {
        final List<Long> postedWrIds = new ArrayList<>();
        final ArrayDeque<long[]> completions = new ArrayDeque<>();
        final UnsafeBuffer scratch;
        boolean closed;

        HeldQueuePair(final UnsafeBuffer scratch)
        {
            this.scratch = scratch;
        }

        @Override
        public boolean post(final long wrAddress)
        {
            // the link posts the native address of a request it encoded in its scratch memory
            postedWrIds.add(scratch.getLong((int)(wrAddress - scratch.addressOffset()) + VerbsAbi.WR_ID_OFFSET));
            return true;
        }

        @Override
        public int poll(final WorkCompletionHandler handler, final int max)
        {
            int n = 0;
            while (n < max && !completions.isEmpty())
            {
                final long[] c = completions.poll();
                handler.onCompletion(c[0], (int)c[1]);
                n++;
            }
            return n;
        }

        @Override
        public void close()
        {
            closed = true;
        }
    }

    private final List<HeldQueuePair> queuePairs = new ArrayList<>();
    private final Map<Long, OpStatus> outcomes = new HashMap<>();

    private VerbsRegionLink link()
    {
        return new VerbsRegionLink(1, 0, (self, owner) ->
        {
            final UnsafeBuffer scratch = new UnsafeBuffer(BufferUtil.allocateDirectAligned(VerbsRegionLink.SCRATCH_BYTES, 64));
            final HeldQueuePair qp = new HeldQueuePair(scratch);
            queuePairs.add(qp);
            return new VerbsConnector.Connection(OpStatus.OK, "connected", qp, 0x10000, 0x77, 4096, scratch, 0x11);
        });
    }

    private void submit(final VerbsRegionLink link, final long id, final OpType type)
    {
        link.submit(id, type, 8 * id, 1, 2, null, null, 0, 0, this::record);
    }

    private void record(final long id, final OpStatus status, final long value, final org.agrona.DirectBuffer p,
        final int o)
    {
        final OpStatus previous = outcomes.put(id, status);
        assertEquals(null, previous, "operation " + id + " completed twice");
    }

    @Test
    void aFlushOrRetryErrorCompletesEveryHeldOperationAndReconnects()
    {
        final VerbsRegionLink link = link();
        for (long id = 1; id <= 5; id++)
        {
            submit(link, id, id % 2 == 0 ? OpType.COMPARE_AND_SWAP : OpType.READ);
        }
        final HeldQueuePair first = queuePairs.get(0);
        assertEquals(5, first.postedWrIds.size());
        // The first op completes; the third fails with retry exceeded (12); the rest are flushed.
        first.completions.add(new long[]{first.postedWrIds.get(0), VerbsAbi.IBV_WC_SUCCESS});
        first.completions.add(new long[]{first.postedWrIds.get(2), 12});
        first.completions.add(new long[]{first.postedWrIds.get(1), 5});
        link.doWork(this::record);

        assertEquals(OpStatus.OK, outcomes.get(1L));
        for (long id = 2; id <= 5; id++)
        {
            assertEquals(OpStatus.TIMEOUT, outcomes.get(id), "operation " + id + ": outcome unknown, reported now");
        }
        assertTrue(first.closed, "the failed queue pair is destroyed");
        assertEquals(OpStatus.NOT_CONNECTED, link.state());
        assertTrue(link.stateMessage().contains("work completion status 12"), link.stateMessage());

        submit(link, 6, OpType.FETCH_AND_ADD);
        assertEquals(2, queuePairs.size(), "the next operation reconnects");
        assertEquals(1, queuePairs.get(1).postedWrIds.size());
        assertEquals(OpStatus.OK, link.state());
        assertEquals(null, outcomes.get(6L), "in flight on the new queue pair");
    }

    @Test
    void aRemoteAccessErrorIsRefusedAndTheOthersAreUnknown()
    {
        final VerbsRegionLink link = link();
        submit(link, 1, OpType.WRITE);
        submit(link, 2, OpType.READ);
        final HeldQueuePair qp = queuePairs.get(0);
        qp.completions.add(new long[]{qp.postedWrIds.get(0), VerbsAbi.IBV_WC_REM_ACCESS_ERR});
        link.doWork(this::record);
        assertEquals(OpStatus.REGION_MISMATCH, outcomes.get(1L), "refused by the NIC: not executed");
        assertEquals(OpStatus.TIMEOUT, outcomes.get(2L), "behind the error: flushed or unknown");
        assertEquals(OpStatus.NOT_CONNECTED, link.state());
        assertTrue(link.stateMessage().contains("remote access error"), link.stateMessage());
    }
}
