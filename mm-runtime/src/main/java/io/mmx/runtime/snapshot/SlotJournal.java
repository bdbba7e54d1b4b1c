package io.mmx.runtime.snapshot;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * The decided slots applied since the last snapshot, appended before each is applied, so that a
 * restarted replica replays them after loading the snapshot (a node keeps one for all the replicas
 * it hosts: {@code HostJournal}). Records collect in the JVM and
 * reach the file in one write at {@link #flush()} (and when {@link #FLUSH_BYTES} have collected, at a
 * new segment, {@link #force()}, {@link #replay} and {@link #close()}): a system call per slot and
 * replica was a tenth of a replica's time at n = 256. The caller flushes before anything that
 * tells others what it applied (the node: before its decided log's mark moves past the slots), so
 * a process killed with records unwritten restarts at an earlier slot and learns the rest again,
 * exactly as if it had been killed before applying them. A host crash may lose the unsynced tail,
 * and that is reported as a gap.
 *
 * <p>Segments {@code journal-<firstSlot>.log} hold records (little-endian):
 * <pre>
 *   u8 kind (1 slot, 2 gap), u32 words, i64 slot, then
 *     kind 1: the slot's value, {@code words} i64
 *     kind 2: i64 the gap's last slot (words 0)
 *   u32 CRC32C of everything before it in the record
 * </pre>
 * Replay stops at the first record that is torn or fails its CRC and cuts the segment there.
 */
public final class SlotJournal implements AutoCloseable
{
    private static final byte SLOT = 1;
    private static final byte GAP = 2;
    private static final int HEAD = 1 + 4 + 8;
    private static final Pattern NAME = Pattern.compile("journal-(\\d{20})\\.log");

    /** Records collected beyond this many bytes are written at once. */
    public static final int FLUSH_BYTES = 64 * 1024;

    private final Path directory;
    private final CRC32C crc = new CRC32C();
    private FileChannel segment;
    /** Records not yet written, from 0 to its position. */
    private ByteBuffer pending = ByteBuffer.allocate(FLUSH_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    /** Where the record being appended starts in {@link #pending}. */
    private int recordStart;
    /** Bytes written to the open segment. */
    private long segmentBytes;

    /** A journal in {@code directory} (created if missing). */
    public SlotJournal(final Path directory) throws IOException
    {
        this.directory = Files.createDirectories(directory);
    }

    /** Receives replayed records. */
    public interface Replay
    {
        /** A slot and its decided value. */
        void slot(long slot, long[] value) throws IOException;

        /** Slots {@code from..to} the replica never saw. */
        void gap(long from, long to) throws IOException;
    }

    /**
     * Replays every record of slots after {@code afterSlot}, in order; cuts a torn or damaged tail.
     *
     * @return the last slot replayed (or {@code afterSlot} if none).
     */
    public long replay(final long afterSlot, final Replay replay) throws IOException
    {
        return replay(afterSlot, Long.MAX_VALUE, replay);
    }

    /**
     * As {@link #replay(long, Replay)}, but only records of slots up to {@code throughSlot}: a journal
     * shared by several replicas may run ahead of the one replaying.
     */
    public long replay(final long afterSlot, final long throughSlot, final Replay replay) throws IOException
    {
        flush();
        long last = afterSlot;
        for (final Path file : segments())
        {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                final ByteBuffer in = ByteBuffer.allocate((int)Math.min(Integer.MAX_VALUE - 8, ch.size()))
                    .order(ByteOrder.LITTLE_ENDIAN);
                while (in.hasRemaining() && ch.read(in) >= 0)
                {
                    // read the whole segment
                }
                in.flip();
                int good = 0;
                while (true)
                {
                    final int start = in.position();
                    if (in.remaining() < HEAD + 4)
                    {
                        break;
                    }
                    final byte kind = in.get();
                    final int words = in.getInt();
                    final long slot = in.getLong();
                    final int body = kind == SLOT ? 8 * words : kind == GAP ? 8 : -1;
                    if (body < 0 || words < 0 || in.remaining() < body + 4)
                    {
                        break;
                    }
                    final CRC32C crc = new CRC32C();
                    crc.update(in.array(), start, HEAD + body);
                    if ((int)crc.getValue() != in.getInt(start + HEAD + body))
                    {
                        break;
                    }
                    if (slot > throughSlot)
                    {
                        return last; // the rest is beyond what this replica asks for: read, never cut
                    }
                    if (kind == SLOT)
                    {
                        final long[] value = new long[words];
                        for (int i = 0; i < words; i++)
                        {
                            value[i] = in.getLong();
                        }
                        if (slot > last)
                        {
                            if (slot > last + 1)
                            {
                                // A lost segment (or one cut short by a host crash): say so, never skip silently.
                                replay.gap(last + 1, slot - 1);
                            }
                            replay.slot(slot, value);
                            last = slot;
                        }
                    }
                    else
                    {
                        final long to = Math.min(in.getLong(), throughSlot);
                        if (to > last)
                        {
                            replay.gap(Math.max(slot, last + 1), to);
                            last = to;
                        }
                    }
                    in.getInt(); // the CRC, checked above
                    good = in.position();
                }
                if (good < in.limit())
                {
                    ch.truncate(good); // a torn tail: the slot it held was never applied
                }
            }
        }
        return last;
    }

    /** Appends a slot's decided value; call before applying it. */
    public void appendSlot(final long slot, final long[] value) throws IOException
    {
        final int body = 8 * value.length;
        final ByteBuffer b = record(SLOT, value.length, slot, body);
        for (final long word : value)
        {
            b.putLong(word);
        }
        write(b, body);
    }

    /** Records that slots {@code from..to} were never seen by this replica. */
    public void appendGap(final long from, final long to) throws IOException
    {
        final ByteBuffer b = record(GAP, 0, from, 8);
        b.putLong(to);
        write(b, 8);
    }

    private ByteBuffer record(final byte kind, final int words, final long slot, final int body) throws IOException
    {
        if (segment == null)
        {
            throw new IOException("the journal has no open segment: start one with startSegment");
        }
        final int size = HEAD + body + 4;
        if (pending.remaining() < size)
        {
            flush();
            if (pending.capacity() < size)
            {
                pending = ByteBuffer.allocate(Integer.highestOneBit(size) << 1).order(ByteOrder.LITTLE_ENDIAN);
            }
        }
        recordStart = pending.position();
        pending.put(kind).putInt(words).putLong(slot);
        return pending;
    }

    private void write(final ByteBuffer b, final int body) throws IOException
    {
        crc.reset();
        crc.update(b.array(), recordStart, HEAD + body);
        b.putInt((int)crc.getValue());
        if (b.position() >= FLUSH_BYTES)
        {
            flush();
        }
    }

    /** Writes the records collected since the last flush to the segment (no fsync: {@link #force()}). */
    public void flush() throws IOException
    {
        if (pending.position() == 0 || segment == null)
        {
            return;
        }
        pending.flip();
        segmentBytes += pending.remaining();
        while (pending.hasRemaining())
        {
            segment.write(pending);
        }
        pending.clear();
    }

    /** Bytes appended to the open segment, written or collected. */
    public long segmentBytes()
    {
        return segmentBytes + pending.position();
    }

    /**
     * Starts a new segment for slots from {@code firstSlot} (after a snapshot through
     * {@code firstSlot - 1}, or at start), and deletes the segments wholly before
     * {@code keepFromSlot} (covered by the oldest snapshot kept).
     */
    public void startSegment(final long firstSlot, final long keepFromSlot) throws IOException
    {
        if (segment != null)
        {
            flush();
            segment.close();
        }
        segment = FileChannel.open(directory.resolve(String.format("journal-%020d.log", firstSlot)),
            StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        segmentBytes = segment.size();
        deleteBefore(keepFromSlot);
    }

    /** Deletes the segments wholly before {@code keepFromSlot} (covered by the oldest snapshot kept). */
    public void deleteBefore(final long keepFromSlot) throws IOException
    {
        final List<Path> files = segments();
        for (int i = 0; i + 1 < files.size(); i++)
        {
            // A segment ends where the next begins: delete it if all of it is before keepFromSlot.
            if (firstSlotOf(files.get(i + 1)) <= keepFromSlot)
            {
                Files.deleteIfExists(files.get(i));
            }
        }
    }

    /** Forces what was appended to disk (a host crash then loses nothing appended before). */
    public void force() throws IOException
    {
        if (segment != null)
        {
            flush();
            segment.force(false);
        }
    }

    private List<Path> segments() throws IOException
    {
        try (Stream<Path> files = Files.list(directory))
        {
            return new ArrayList<>(files.filter(f -> NAME.matcher(f.getFileName().toString()).matches()).sorted()
                .toList());
        }
    }

    private static long firstSlotOf(final Path file)
    {
        final Matcher m = NAME.matcher(file.getFileName().toString());
        if (!m.matches())
        {
            throw new IllegalArgumentException(file + " is not a journal segment");
        }
        return Long.parseLong(m.group(1));
    }

    @Override
    public void close() throws IOException
    {
        if (segment != null)
        {
            flush();
            segment.close();
            segment = null;
        }
    }
}
