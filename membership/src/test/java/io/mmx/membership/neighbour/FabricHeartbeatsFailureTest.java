package io.mmx.membership.neighbour;

import io.mmx.rdma.fabric.CompletionHandler;
import io.mmx.rdma.fabric.FabricCounters;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.OpType;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What the local and shm backends cannot produce on demand: reads and bumps that time out or are
 * back-pressured. A scripted fabric completes each operation with the status the test chooses.
 */
class FabricHeartbeatsFailureTest
{
    @Test
    void oneReadInFlightPerNeighbourAndAFailedReadIsNotReadable()
    {
        final ScriptedFabric fabric = new ScriptedFabric();
        final FabricHeartbeats hb = new FabricHeartbeats(fabric, new int[]{1, 2}, 8, 1_000);

        assertEquals(HeartbeatReader.NOT_READABLE, hb.readHeartbeat(1), "nothing completed yet");
        assertEquals(HeartbeatReader.NOT_READABLE, hb.readHeartbeat(1));
        assertEquals(1, fabric.submitted, "at most one read of a neighbour in flight");

        fabric.complete(hb, OpStatus.OK, 7);
        assertEquals(7, hb.readHeartbeat(1));
        fabric.complete(hb, OpStatus.TIMEOUT, 0);
        assertEquals(HeartbeatReader.NOT_READABLE, hb.readHeartbeat(1), "a timed-out read says nothing");
        fabric.complete(hb, OpStatus.OK, 9);
        assertEquals(9, hb.readHeartbeat(1));
        fabric.complete(hb, OpStatus.OK, 9);

        fabric.reject = OpStatus.BACK_PRESSURED;
        assertEquals(9, hb.readHeartbeat(1), "the last completed read is still served once");
        assertEquals(HeartbeatReader.NOT_READABLE, hb.readHeartbeat(1), "no fresh value can come");
        assertEquals(3, hb.completedReads());
        assertEquals(3, hb.failedReads());
        assertEquals(HeartbeatReader.NOT_READABLE, hb.readHeartbeat(5), "not a neighbour given at construction");
    }

    @Test
    void aBumpStillInFlightSkipsTheNextAndAFailedOneIsCounted()
    {
        final ScriptedFabric fabric = new ScriptedFabric();
        final FabricHeartbeats hb = new FabricHeartbeats(fabric, new int[]{1}, 0, 1_000);

        hb.writeHeartbeat(1);
        hb.writeHeartbeat(2);
        assertEquals(1, hb.skippedBumps());
        fabric.complete(hb, OpStatus.TIMEOUT, 0);
        hb.writeHeartbeat(3);
        fabric.complete(hb, OpStatus.OK, 41);
        fabric.reject = OpStatus.CLOSED;
        hb.writeHeartbeat(4);
        assertEquals(1, hb.bumps());
        assertEquals(2, hb.failedBumps());
        assertEquals(OpType.FETCH_AND_ADD, fabric.lastType);
    }

    /** Completes the last submitted operation when told to, with the status given. */
    private static final class ScriptedFabric implements MemoryFabric
    {
        private final FabricCounters counters = new FabricCounters();
        OpStatus reject;
        int submitted;
        long lastId;
        int lastOwner;
        OpType lastType;

        void complete(final CompletionHandler handler, final OpStatus status, final long value)
        {
            handler.onCompletion(lastId, lastType, lastOwner, status, value);
        }

        private long submit(final OpType type, final int owner)
        {
            if (reject != null)
            {
                return -reject.ordinal();
            }
            submitted++;
            lastType = type;
            lastOwner = owner;
            return lastId = submitted;
        }

        public int selfId()
        {
            return 0;
        }

        public long read(final int owner, final long offset, final long timeoutNs)
        {
            return submit(OpType.READ, owner);
        }

        public long write(final int owner, final long offset, final long value, final long timeoutNs)
        {
            throw new AssertionError("heartbeats never write");
        }

        public long compareAndSwap(
            final int owner, final long offset, final long expected, final long desired, final long timeoutNs)
        {
            throw new AssertionError("heartbeats never CAS");
        }

        public long fetchAndAdd(final int owner, final long offset, final long delta, final long timeoutNs)
        {
            assertEquals(0, owner, "the owner bumps its own word");
            return submit(OpType.FETCH_AND_ADD, owner);
        }

        public long readBulk(final int owner, final long offset, final MutableDirectBuffer dst, final int dstOffset,
            final int length, final long timeoutNs)
        {
            throw new AssertionError("heartbeats never read bulk");
        }

        public long writeBulk(final int owner, final long offset, final DirectBuffer src, final int srcOffset,
            final int length, final long timeoutNs)
        {
            throw new AssertionError("heartbeats never write bulk");
        }

        public int poll(final CompletionHandler handler, final int limit)
        {
            return 0;
        }

        public int outstanding()
        {
            return 0;
        }

        public FabricCounters counters()
        {
            return counters;
        }

        public void close()
        {
        }
    }
}
