package io.mmx.runtime.example.kv;

import org.agrona.DirectBuffer;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A replica's applied commands as text, one line each ({@code logIndex origin hex-bytes}), flushed
 * per line so that what a SIGKILLed replica applied is on disk: tests check that every replica's
 * log is a prefix of one log. Two more lines account for indexes the replica did not apply itself:
 * {@code gap from to}, commands it will never see (its state is incomplete), and
 * {@code snapshot from to}, commands that came in a snapshot it loaded, which holds every command
 * through {@code to} ({@code from} is the first index no earlier line names). So a command at an
 * index below the highest one the log names is either in the log or inside a gap or snapshot line.
 *
 * <p>Reopened after a restart, it continues where it stopped: a torn last line (a kill mid-write) is
 * cut, and commands at or below the last index already written are not written again (a replica
 * that restores its state replays them into its state machine).
 */
public final class AppliedLog implements AutoCloseable
{
    private final BufferedWriter out;
    private long lastIndex = -1;

    /** Appends to {@code file} (created if missing). */
    public AppliedLog(final Path file)
    {
        try
        {
            if (Files.exists(file))
            {
                lastIndex = cutTornLineAndFindLastIndex(file);
            }
            out = Files.newBufferedWriter(file, StandardCharsets.US_ASCII, java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot open applied log " + file + ": " + ex.getMessage(), ex);
        }
    }

    private static long cutTornLineAndFindLastIndex(final Path file) throws IOException
    {
        final byte[] bytes = Files.readAllBytes(file);
        int end = bytes.length;
        while (end > 0 && bytes[end - 1] != '\n')
        {
            end--;
        }
        if (end < bytes.length)
        {
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
                java.nio.file.StandardOpenOption.WRITE))
            {
                ch.truncate(end);
            }
        }
        if (end == 0)
        {
            return -1;
        }
        // The highest index of any line: a gap line learnt late may name indexes below the last entry.
        long last = -1;
        for (final String line : new String(bytes, 0, end, StandardCharsets.US_ASCII).split("\n"))
        {
            final String[] f = line.split(" ");
            last = Math.max(last, isRange(line) ? Long.parseLong(f[2]) : Long.parseLong(f[0]));
        }
        return last;
    }

    void append(final long logIndex, final int origin, final DirectBuffer buffer, final int offset, final int length)
    {
        if (logIndex <= lastIndex)
        {
            return;
        }
        lastIndex = logIndex;
        final StringBuilder sb = new StringBuilder(32 + 2 * length).append(logIndex).append(' ').append(origin)
            .append(' ');
        for (int i = 0; i < length; i++)
        {
            final int b = buffer.getByte(offset + i) & 0xFF;
            sb.append(Character.forDigit(b >>> 4, 16)).append(Character.forDigit(b & 15, 16));
        }
        line(sb.toString());
    }

    void gap(final long from, final long to)
    {
        if (to < from)
        {
            return;
        }
        if (to <= lastIndex)
        {
            // A gap learnt after later commands were applied (a restarted replica applies new slots before it
            // learns what its restored state lacks): recorded as it is, or the log would miss those indexes
            // without saying so.
            line("gap " + from + " " + to);
            return;
        }
        line("gap " + Math.max(from, lastIndex + 1) + " " + to);
        lastIndex = to;
    }

    /** The state was replaced by a snapshot holding every command through {@code logIndex}. */
    void snapshot(final long logIndex)
    {
        if (logIndex <= lastIndex)
        {
            return; // every index up to it has a line already (a restart loading its own snapshot)
        }
        line("snapshot " + (lastIndex + 1) + " " + logIndex);
        lastIndex = logIndex;
    }

    private void line(final String s)
    {
        try
        {
            out.write(s);
            out.write('\n');
            out.flush();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** The entries of a log file (gap and snapshot lines dropped), for comparison; a torn last line is dropped. */
    public static List<String> entries(final Path file) throws IOException
    {
        final List<String> entries = new ArrayList<>();
        final String text = Files.readString(file, StandardCharsets.US_ASCII);
        final String[] lines = text.split("\n", -1);
        // The last element is "" for a complete file, or a torn line cut by SIGKILL mid-write.
        for (int i = 0; i < lines.length - 1; i++)
        {
            if (!isRange(lines[i]))
            {
                entries.add(lines[i]);
            }
        }
        return entries;
    }

    /**
     * The index ranges ({@code {from, to}}) of a log file's gap and snapshot lines: indexes the replica
     * did not apply itself but accounted for. A torn last line is dropped.
     */
    public static List<long[]> accounted(final Path file) throws IOException
    {
        final List<long[]> ranges = new ArrayList<>();
        final String[] lines = Files.readString(file, StandardCharsets.US_ASCII).split("\n", -1);
        for (int i = 0; i < lines.length - 1; i++)
        {
            if (isRange(lines[i]))
            {
                final String[] f = lines[i].split(" ");
                ranges.add(new long[]{Long.parseLong(f[1]), Long.parseLong(f[2])});
            }
        }
        return ranges;
    }

    private static boolean isRange(final String line)
    {
        return line.startsWith("gap ") || line.startsWith("snapshot ");
    }

    /**
     * The entries of a log file by log index ({@code logIndex -> "origin bytes"}), across restarts
     * of the replica that wrote it.
     *
     * @throws IllegalStateException if one index holds two different commands in this one file.
     */
    public static java.util.SortedMap<Long, String> byIndex(final Path file) throws IOException
    {
        final java.util.SortedMap<Long, String> map = new java.util.TreeMap<>();
        for (final String e : entries(file))
        {
            final int space = e.indexOf(' ');
            final long index = Long.parseLong(e.substring(0, space));
            final String previous = map.put(index, e.substring(space + 1));
            if (previous != null && !previous.equals(e.substring(space + 1)))
            {
                throw new IllegalStateException(file + " applied two commands at log index " + index);
            }
        }
        return map;
    }

    @Override
    public void close()
    {
        try
        {
            out.close();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
