package io.mmx.runtime.node;

import io.mmx.planner.graph.Graph;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.MemoryFabric;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.region.DirectRegionLink;
import io.mmx.rdma.region.RegionHeader;
import io.mmx.rdma.region.RegionMemory;
import io.mmx.rdma.region.RegionResolver;
import io.mmx.runtime.core.MemoryOpKind;
import io.mmx.runtime.core.MemoryStatus;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link FabricMemory} over links that complete inline (shm, in-process regions): every core operation,
 * bulk ones of several fabric pieces included, runs inside {@code submit} without taking a fabric slot,
 * and its one completion still arrives on the next {@link FabricMemory#poll}, never inside the submit.
 */
class FabricMemoryTest
{
    /** Process 0's neighbour is 1; 2 is not one. */
    private static final Graph PLAN = Graph.builder(3).addEdge(0, 1).addEdge(1, 2).build();
    private static final int DATA_BYTES = 256 * 1024;

    private final RegionMemory[] regions = new RegionMemory[3];
    private final List<String> completions = new ArrayList<>();
    private final List<long[]> data = new ArrayList<>();

    private FabricMemory memory()
    {
        for (int p = 0; p < regions.length; p++)
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[RegionHeader.HEADER_BYTES + DATA_BYTES]);
            buffer.putLong(RegionHeader.DATA_BYTES_OFFSET, DATA_BYTES);
            regions[p] = new RegionMemory(buffer, p);
        }
        final PlanMemoryFabric fabric = new PlanMemoryFabric(ConnectionManager.open(PLAN, 0,
            (self, owner) -> new DirectRegionLink(owner, o -> RegionResolver.Resolution.found(regions[o]), () -> { })),
            System::nanoTime, 4);
        this.fabric = fabric;
        return new FabricMemory(fabric, null, 1_000_000_000L, (kind, ns) -> { }, System::nanoTime);
    }

    private PlanMemoryFabric fabric;

    private int poll(final FabricMemory memory)
    {
        return memory.poll((opId, status, value, words) ->
        {
            completions.add(opId + " " + status + " " + value);
            data.add(words);
        });
    }

    @Test
    void aBulkWriteOfSeveralPiecesLandsInsideSubmitAndCompletesOnceOnTheNextPoll()
    {
        final FabricMemory memory = memory();
        // Two fabric pieces: more than MAX_BULK_BYTES.
        final long[] words = new long[MemoryFabric.MAX_BULK_BYTES / 8 + 100];
        for (int i = 0; i < words.length; i++)
        {
            words[i] = 1000 + i;
        }

        memory.submit(7, MemoryOpKind.WRITE_BULK, 1, 4, words.length, 0, 0, words);

        assertEquals(1000, regions[1].executeWord(io.mmx.rdma.fabric.OpType.READ, 32, 0, 0), "first word landed");
        assertEquals(1000 + words.length - 1,
            regions[1].executeWord(io.mmx.rdma.fabric.OpType.READ, 8L * (4 + words.length - 1), 0, 0),
            "the second piece landed too");
        assertEquals(0, fabric.outstanding(), "no fabric slot was taken: the slots number 4, the pieces 2");
        assertEquals(List.of(), completions, "never completed inside submit");
        assertTrue(memory.pending(), "the completion waits for the poll");

        assertEquals(1, poll(memory));
        assertEquals(List.of("7 OK " + (words.length * 8 - MemoryFabric.MAX_BULK_BYTES)), completions,
            "one completion for the core operation (its value: the last piece's length)");
        assertEquals(false, memory.pending());
        assertEquals(0, poll(memory));

        // Read back in two pieces, at once too; each read gets words of its own.
        memory.submit(8, MemoryOpKind.READ_BULK, 1, 4, words.length, 0, 0, null);
        memory.submit(9, MemoryOpKind.READ_BULK, 1, 5, 2, 0, 0, null);
        assertEquals(0, fabric.outstanding());
        assertEquals(2, poll(memory));
        assertArrayEquals(words, data.get(1), "both pieces read back");
        assertArrayEquals(new long[] {1001, 1002}, data.get(2), "a later read does not overwrite an earlier one's words");
    }

    /** Two processes' memories on one node thread: they share its stages. */
    private FabricMemory[] twoProcessesOfOneThread()
    {
        memory();
        final FabricMemory.Stages shared = new FabricMemory.Stages();
        return new FabricMemory[] {
            new FabricMemory(fabric, null, 1_000_000_000L, (kind, ns) -> { }, System::nanoTime, shared),
            new FabricMemory(fabric, null, 1_000_000_000L, (kind, ns) -> { }, System::nanoTime, shared)};
    }

    @Test
    void processesOfOneThreadShareTheStagesWithoutSeeingEachOthersWords()
    {
        final FabricMemory[] pair = twoProcessesOfOneThread();
        final FabricMemory a = pair[0];
        final FabricMemory b = pair[1];
        a.submit(1, MemoryOpKind.WRITE_BULK, 1, 0, 3, 0, 0, new long[] {1, 2, 3});
        b.submit(2, MemoryOpKind.WRITE_BULK, 0, 0, 2, 0, 0, new long[] {7, 8});
        a.submit(3, MemoryOpKind.READ_BULK, 1, 0, 3, 0, 0, null);
        b.submit(4, MemoryOpKind.READ_BULK, 0, 0, 2, 0, 0, null);
        assertEquals(2, poll(a));
        assertEquals(2, poll(b));
        assertArrayEquals(new long[] {1, 2, 3}, data.get(1));
        assertArrayEquals(new long[] {7, 8}, data.get(3));
    }

    /** An acceptor driver's op id (OpIds: purpose 1 in the top byte): the core only borrows its read's words. */
    private static long driverOp(final long seq)
    {
        return (1L << 56) | seq;
    }

    /** A learner's catch-up read (purpose 3): the core keeps its words. */
    private static long catchupOp(final long seq)
    {
        return (3L << 56) | seq;
    }

    @Test
    void borrowedReadsWaitingTogetherGetArraysOfTheirOwnWhichTheNextReadsReuse()
    {
        final FabricMemory[] pair = twoProcessesOfOneThread();
        final FabricMemory a = pair[0];
        final FabricMemory b = pair[1];
        a.submit(1, MemoryOpKind.WRITE_BULK, 1, 0, 3, 0, 0, new long[] {1, 2, 3});
        b.submit(2, MemoryOpKind.WRITE_BULK, 0, 0, 3, 0, 0, new long[] {7, 8, 9});
        assertEquals(1, poll(a));
        assertEquals(1, poll(b));
        completions.clear();
        final List<long[]> seen = new ArrayList<>();
        final List<long[]> copies = new ArrayList<>();
        final FabricMemory.Sink keep = (opId, status, value, words) ->
        {
            seen.add(words);
            copies.add(words == null ? null : words.clone()); // what the core reads during the call
        };
        // Two reads of one length wait together for the poll: the same array for both would give
        // the first the second's words.
        a.submit(driverOp(10), MemoryOpKind.READ_BULK, 1, 0, 3, 0, 0, null);
        b.submit(driverOp(11), MemoryOpKind.READ_BULK, 0, 0, 3, 0, 0, null);
        a.poll(keep);
        b.poll(keep);
        assertArrayEquals(new long[] {1, 2, 3}, copies.get(0));
        assertArrayEquals(new long[] {7, 8, 9}, copies.get(1));
        assertTrue(seen.get(0) != seen.get(1), "reads waiting together never share an array");
        // Delivered, the arrays are lent again: the next reads of that length allocate none.
        a.submit(driverOp(12), MemoryOpKind.READ_BULK, 0, 0, 3, 0, 0, null);
        a.poll(keep);
        assertArrayEquals(new long[] {7, 8, 9}, copies.get(2));
        assertTrue(seen.get(2) == seen.get(0) || seen.get(2) == seen.get(1), "a delivered array is reused");
        // A catch-up read keeps its words: never a lent array, and never lent afterwards.
        a.submit(catchupOp(13), MemoryOpKind.READ_BULK, 1, 0, 3, 0, 0, null);
        a.poll(keep);
        final long[] kept = seen.get(3);
        assertTrue(kept != seen.get(0) && kept != seen.get(1), "a kept read gets an array of its own");
        a.submit(driverOp(14), MemoryOpKind.READ_BULK, 0, 0, 3, 0, 0, null);
        a.submit(driverOp(15), MemoryOpKind.READ_BULK, 0, 0, 3, 0, 0, null);
        a.submit(driverOp(16), MemoryOpKind.READ_BULK, 0, 0, 3, 0, 0, null);
        a.poll(keep);
        for (int i = 4; i < 7; i++)
        {
            assertTrue(seen.get(i) != kept, "the kept array is never lent to a later read");
        }
        assertArrayEquals(new long[] {1, 2, 3}, kept, "and its words stay as read");
    }

    @Test
    void wordAndReadOperationsRunAtOnceAndRefusalsStillCompleteOnThePoll()
    {
        final FabricMemory memory = memory();
        memory.submit(1, MemoryOpKind.WRITE, 1, 10, 1, 0, 41, null);
        memory.submit(2, MemoryOpKind.FETCH_ADD, 1, 10, 1, 0, 1, null);
        memory.submit(3, MemoryOpKind.CAS, 1, 10, 1, 42, 50, null);
        memory.submit(4, MemoryOpKind.READ_BULK, 1, 9, 3, 0, 0, null);
        memory.submit(5, MemoryOpKind.READ, 2, 10, 1, 0, 0, null);
        for (int i = 0; i < 300; i++)
        {
            memory.submit(100 + i, MemoryOpKind.READ, 0, 10, 1, 0, 0, null); // more than the fabric has slots
        }
        assertEquals(List.of(), completions);
        assertEquals(0, fabric.outstanding());

        assertEquals(305, poll(memory));
        assertEquals(List.of("1 OK 0", "2 OK 41", "3 OK 42", "4 OK 24", "5 REFUSED 0"), completions.subList(0, 5),
            "in submission order; process 2 is not a neighbour of 0");
        assertArrayEquals(new long[] {0, 50, 0}, data.get(3), "the bulk read saw the CAS");
        assertEquals(300, completions.subList(5, 305).stream().filter(c -> c.endsWith(" OK 0")).count(),
            "inline operations take no slot, so none is back-pressured");
    }
}
