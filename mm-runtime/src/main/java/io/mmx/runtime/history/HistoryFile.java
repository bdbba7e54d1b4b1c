package io.mmx.runtime.history;

import io.mmx.planner.io.AtomicFiles;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One op per line, tab-separated: id, client, kind, key, value, expected, result, invokeNs, completeNs.
 * {@code -} is null; a literal "-" is written as {@code \-}; backslash, tab, CR and LF are escaped.
 */
public final class HistoryFile
{
    private HistoryFile()
    {
    }

    /** Writes atomically (temp file + rename) so a crash never leaves a truncated history behind. */
    public static void save(final History history, final Path path) throws IOException
    {
        final StringBuilder sb = new StringBuilder();
        for (final Operation op : history.ops())
        {
            sb.append(op.id()).append('\t').append(op.clientId()).append('\t').append(op.kind()).append('\t')
                .append(esc(op.key())).append('\t').append(esc(op.value())).append('\t').append(esc(op.expected()))
                .append('\t').append(esc(op.result())).append('\t').append(op.invokeNs()).append('\t')
                .append(op.completeNs()).append('\n');
        }
        AtomicFiles.write(path, out -> out.append(sb));
    }

    /** Reads a file written by {@link #save}. */
    public static History load(final Path path) throws IOException
    {
        final List<Operation> ops = new ArrayList<>();
        for (final String line : Files.readAllLines(path, StandardCharsets.UTF_8))
        {
            if (line.isEmpty())
            {
                continue;
            }
            final String[] f = line.split("\t", -1);
            if (f.length != 9)
            {
                throw new IOException("bad line (" + f.length + " fields): " + line);
            }
            ops.add(new Operation(Long.parseLong(f[0]), Integer.parseInt(f[1]), Operation.Kind.valueOf(f[2]),
                unesc(f[3]), unesc(f[4]), unesc(f[5]), unesc(f[6]), Long.parseLong(f[7]), Long.parseLong(f[8])));
        }
        return new History(ops);
    }

    static String esc(final String s)
    {
        if (s == null)
        {
            return "-";
        }
        if (s.equals("-"))
        {
            return "\\-";
        }
        return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r");
    }

    static String unesc(final String s)
    {
        if (s.equals("-"))
        {
            return null;
        }
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            if (c != '\\')
            {
                sb.append(c);
                continue;
            }
            final char n = s.charAt(++i);
            sb.append(n == 't' ? '\t' : n == 'n' ? '\n' : n == 'r' ? '\r' : n);
        }
        return sb.toString();
    }
}
