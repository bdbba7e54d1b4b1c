package io.mmx.runtime.node;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.DirectRegionLink;
import io.mmx.rdma.region.RegionHeader;
import io.mmx.rdma.region.RegionResolver;
import io.mmx.rdma.shm.ShmRegionStore;
import io.mmx.runtime.core.CoreConfig;
import io.mmx.runtime.core.Effects;
import io.mmx.runtime.core.MemoryOpKind;
import io.mmx.runtime.core.MemoryStatus;
import io.mmx.runtime.core.Message;
import io.mmx.runtime.core.MmPaxosCore;
import io.mmx.runtime.core.RegionLayout;
import io.mmx.runtime.core.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A region file keeps its bytes across changes of the code: what a node writes when it formats a
 * region is compared with the bytes recorded for this layout version ({@link #GOLDEN_HEADER}: the
 * store's 128-byte header, then the protocol's header words), and a file with those bytes opens
 * and passes the checks a recovering process makes. A change of the layout changes the version word
 * and this golden string on purpose; a region of the version before is then refused with the fix.
 * (Version 3, acceptor records as chains of deltas, replaced version 2 before any release.)
 */
class RegionFormatCompatibilityTest
{
    private static final int OWNER = 1;
    private static final long DATA_BYTES = 8 * 64;
    private static final Graph RING = Graph.fromEdges(4, new int[]{0, 1, 2, 3}, new int[]{1, 2, 3, 0});
    private static final PlanDigest PLAN = PlanDigest.ofGraph(RING);
    private static final long PLAN_ID = 0x58d17096f5c3e240L;
    private static final ClusterKey KEY = ClusterKey.ofPassphrase("region-format-golden-key-0123456789");

    /** The first 128 + 8 x 9 bytes of the file written for these inputs (the rest is zero). */
    private static final String GOLDEN_HEADER =
        // store header: magic "MMXREGN1", version 1, header bytes 128, owner 1, 0, data bytes 512
        "4d4d585245474e31010000008000000001000000000000000002000000000000" +
        // plan digest (graph), key check, reserved
        "2b63e2e23ac6847235f858931578af92388dc543b6c72f99120e85bb04afe9d5" +
        "8718b6eb6a4492964ed38c5e7ec32deb00000000000000000000000000000000" +
        "0000000000000000000000000000000000000000000000000000000000000000" +
        // protocol words: magic, version 3, owner 1, plan id, head 0, heartbeat 0, decided through -1,
        // proposer round 0, incarnation 0
        "314e474552584d4d03000000000000000100000000000000" +
        "40e2c3f59670d15800000000000000000000000000000000" +
        "ffffffffffffffff00000000000000000000000000000000";

    private static byte[] formatted(final Path dir) throws IOException
    {
        final ShmRegionStore store = new ShmRegionStore(dir);
        try (ShmRegionStore.MappedRegion region = store.createOrOpen(OWNER, DATA_BYTES, PLAN, KEY))
        {
            final RegionResolver resolver = owner -> RegionResolver.Resolution.found(region.memory());
            try (PlanMemoryFabric fabric = new PlanMemoryFabric(ConnectionManager.open(RING, OWNER,
                (self, owner) -> new DirectRegionLink(owner, resolver, () -> { })), System::nanoTime))
            {
                assertTrue(RegionSetup.formatIfNew(fabric, OWNER, PLAN_ID, false));
            }
        }
        return Files.readAllBytes(store.regionFile(OWNER));
    }

    @Test
    void aRegionIsFormattedWithTheBytesAnEarlierReleaseWrote(@TempDir final Path dir) throws IOException
    {
        final byte[] file = formatted(dir);
        assertEquals(RegionHeader.HEADER_BYTES + DATA_BYTES, file.length);
        final int headerLength = RegionHeader.HEADER_BYTES + 8 * RegionLayout.HEADER_WORDS;
        assertEquals(GOLDEN_HEADER, HexFormat.of().formatHex(file, 0, headerLength));
        for (int i = headerLength; i < file.length; i++)
        {
            assertEquals(0, file[i], "byte " + i + " of a fresh region");
        }
    }

    @Test
    void aRegionAnEarlierReleaseWroteOpensAndRecovers(@TempDir final Path dir) throws IOException
    {
        final long[] words = headerWords(dir, GOLDEN_HEADER);
        assertDoesNotThrow(() -> recover(words, PLAN_ID), "a process of that plan recovers from the region");
        final IllegalStateException otherPlan = assertThrows(IllegalStateException.class,
            () -> recover(words, PLAN_ID + 1));
        assertTrue(otherPlan.getMessage().contains("plan"), otherPlan.getMessage());
        final long[] otherOwner = words.clone();
        otherOwner[RegionHeader.OWNER_WORD] = OWNER + 1;
        assertThrows(IllegalStateException.class, () -> recover(otherOwner, PLAN_ID));
    }

    @Test
    void aRegionOfTheLayoutBeforeIsRefusedWithTheFix(@TempDir final Path dir) throws IOException
    {
        // The same bytes with version word 2: lanes of two whole records, no delta slots.
        final String before = GOLDEN_HEADER.replace("314e474552584d4d03", "314e474552584d4d02");
        assertNotEquals(GOLDEN_HEADER, before);
        final long[] words = headerWords(dir, before);
        final IllegalStateException refused = assertThrows(IllegalStateException.class, () -> recover(words, PLAN_ID));
        assertTrue(refused.getMessage().contains("not an mmx v3 region") && refused.getMessage().contains("re-create it"),
            refused.getMessage());
    }

    /** Writes a region file holding {@code hexHeader} (zeros after it), opens it, and returns its protocol header words. */
    private static long[] headerWords(final Path dir, final String hexHeader) throws IOException
    {
        final ShmRegionStore store = new ShmRegionStore(dir);
        final byte[] file = new byte[RegionHeader.HEADER_BYTES + (int)DATA_BYTES];
        final byte[] golden = HexFormat.of().parseHex(hexHeader);
        System.arraycopy(golden, 0, file, 0, golden.length);
        Files.write(store.regionFile(OWNER), file);
        final long[] words = new long[RegionLayout.HEADER_WORDS];
        try (ShmRegionStore.MappedRegion region = store.createOrOpen(OWNER, DATA_BYTES, PLAN, KEY))
        {
            region.memory().buffer().getLong(0); // mapped and validated: the store header is accepted
            for (int w = 0; w < words.length; w++)
            {
                words[w] = region.memory().buffer().getLong(RegionHeader.HEADER_BYTES + 8 * w);
            }
        }
        return words;
    }

    /** Boots a core of process {@link #OWNER} running plan {@code planId} on a region holding {@code header}. */
    private static void recover(final long[] header, final long planId)
    {
        final CoreConfig config = new CoreConfig().graph(RING).planHash(planId).conclude();
        final List<long[]> reads = new ArrayList<>();
        final MmPaxosCore core = new MmPaxosCore(OWNER, config, new Effects()
        {
            public void send(final int to, final Message message)
            {
            }

            public void broadcast(final Message message)
            {
            }

            public void memory(final long opId, final MemoryOpKind kind, final int region, final int offsetWords,
                final int lengthWords, final long expected, final long value, final long[] payload)
            {
                reads.add(new long[]{opId, kind.ordinal(), offsetWords, lengthWords});
            }

            public void decided(final long slot, final long[] value)
            {
            }

            public void skipped(final long fromSlot, final long toSlot)
            {
            }

            public void status(final Status status)
            {
            }
        }, 1);
        core.start(0);
        final long[] first = reads.get(0);
        assertEquals(MemoryOpKind.READ_BULK.ordinal(), first[1], "recovery reads the header first");
        assertEquals(RegionLayout.HEADER_WORDS, first[3]);
        core.onMemoryCompletion(first[0], MemoryStatus.OK, 0, header.clone(), 0);
    }
}
