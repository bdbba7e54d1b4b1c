package io.mmx.runtime.snapshot;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The journal collects records in the JVM and writes them at a flush, whole and in order. */
class SlotJournalTest
{
    @TempDir
    Path dir;

    @Test
    void recordsReachTheFileAtAFlushNotBefore() throws IOException
    {
        try (SlotJournal journal = new SlotJournal(dir))
        {
            journal.startSegment(0, 0);
            journal.appendSlot(0, new long[]{7, 8});
            journal.appendSlot(1, new long[]{9});
            assertEquals(0, segmentBytes(), "nothing written before the flush");
            assertEquals(0, replayFromAnotherJournal().size(), "a reader of the files sees no slot yet");

            journal.flush();
            final List<long[]> slots = replayFromAnotherJournal();
            assertEquals(2, slots.size());
            assertArrayEquals(new long[]{7, 8}, slots.get(0));
            assertArrayEquals(new long[]{9}, slots.get(1));
        }
    }

    @Test
    void aBufferFullIsWrittenWithoutAFlushAndNothingIsLostOrReordered() throws IOException
    {
        final int words = 100;
        final int slots = 3 * SlotJournal.FLUSH_BYTES / (8 * words);
        try (SlotJournal journal = new SlotJournal(dir))
        {
            journal.startSegment(0, 0);
            for (int s = 0; s < slots; s++)
            {
                journal.appendSlot(s, value(s, words));
            }
            assertTrue(segmentBytes() >= 2L * SlotJournal.FLUSH_BYTES - 8 * words,
                "full buffers were written on their own: " + segmentBytes() + " bytes");
            journal.appendGap(slots, slots + 4);
            journal.appendSlot(slots + 5, value(slots + 5, words));
        }
        // close() wrote the rest.
        final List<Long> seen = new ArrayList<>();
        final List<long[]> gaps = new ArrayList<>();
        try (SlotJournal reader = new SlotJournal(dir))
        {
            reader.replay(-1, new SlotJournal.Replay()
            {
                @Override
                public void slot(final long slot, final long[] value)
                {
                    assertArrayEquals(value(slot, words), value, "slot " + slot);
                    seen.add(slot);
                }

                @Override
                public void gap(final long from, final long to)
                {
                    gaps.add(new long[]{from, to});
                }
            });
        }
        assertEquals(slots + 1, seen.size());
        for (int s = 0; s < slots; s++)
        {
            assertEquals(s, seen.get(s));
        }
        assertEquals(slots + 5, seen.get(slots));
        assertEquals(1, gaps.size());
        assertArrayEquals(new long[]{slots, slots + 4}, gaps.get(0));
    }

    @Test
    void aNewSegmentTakesWhatWasCollectedIntoTheOldOne() throws IOException
    {
        try (SlotJournal journal = new SlotJournal(dir))
        {
            journal.startSegment(0, 0);
            journal.appendSlot(0, new long[]{1});
            journal.startSegment(1, 0);
            journal.appendSlot(1, new long[]{2});
            journal.flush();
            final List<long[]> slots = replayFromAnotherJournal();
            assertEquals(2, slots.size());
            assertArrayEquals(new long[]{1}, slots.get(0));
            assertArrayEquals(new long[]{2}, slots.get(1));
            assertTrue(Files.size(dir.resolve(String.format("journal-%020d.log", 0))) > 0, "slot 0 in the first segment");
        }
    }

    private static long[] value(final long slot, final int words)
    {
        final long[] v = new long[words];
        for (int i = 0; i < words; i++)
        {
            v[i] = slot * 1_000 + i;
        }
        return v;
    }

    private long segmentBytes() throws IOException
    {
        long bytes = 0;
        try (var files = Files.list(dir))
        {
            for (final Path f : files.toList())
            {
                bytes += Files.size(f);
            }
        }
        return bytes;
    }

    private List<long[]> replayFromAnotherJournal() throws IOException
    {
        final List<long[]> slots = new ArrayList<>();
        try (SlotJournal reader = new SlotJournal(dir))
        {
            reader.replay(-1, new SlotJournal.Replay()
            {
                @Override
                public void slot(final long slot, final long[] value)
                {
                    slots.add(value);
                }

                @Override
                public void gap(final long from, final long to)
                {
                    throw new AssertionError("no gap was journaled: " + from + ".." + to);
                }
            });
        }
        return slots;
    }
}
