package io.mmx.planner.io;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.graph.InvalidGraphException;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;

/**
 * The plain edge-list format: a header line {@code n m}, then exactly {@code m} lines
 * {@code u v} with 0-based ids, each undirected edge once. Blank lines and lines starting
 * with {@code #} are ignored anywhere.
 */
public final class EdgeListFormat
{
    private EdgeListFormat()
    {
    }

    /** Reads a graph; {@code source} names the file in error messages. */
    public static Graph read(final BufferedReader reader, final String source) throws IOException
    {
        int lineNo = 0;
        String line;
        long[] header = null;
        while (header == null && (line = reader.readLine()) != null)
        {
            lineNo++;
            if (isSkippable(line))
            {
                continue;
            }
            header = parsePair(line, source, lineNo, "header 'n m'");
        }
        if (header == null)
        {
            throw new GraphFileException(source + ": empty edge list: the first line must be 'n m' " +
                "(vertex count, edge count), followed by m lines 'u v'");
        }
        final long n = header[0];
        final long m = header[1];
        if (n < 0 || n > Integer.MAX_VALUE - 8)
        {
            throw new GraphFileException(source + ":" + lineNo + ": vertex count " + n + " is out of range 0.." +
                (Integer.MAX_VALUE - 8));
        }
        if (m < 0 || m > n * (n - 1) / 2 || 2 * m > Integer.MAX_VALUE - 8)
        {
            throw new GraphFileException(source + ":" + lineNo + ": edge count " + m + " is impossible for a " +
                "simple graph on " + n + " vertices (at most n(n-1)/2 = " + (n * (n - 1) / 2) + ")");
        }
        final Graph.Builder builder = Graph.builder((int)n);
        long edges = 0;
        while ((line = reader.readLine()) != null)
        {
            lineNo++;
            if (isSkippable(line))
            {
                continue;
            }
            if (edges == m)
            {
                throw new GraphFileException(source + ":" + lineNo + ": more edges than the header's m = " + m +
                    ": fix the edge count in the first line or remove the extra lines");
            }
            final long[] edge = parsePair(line, source, lineNo, "edge 'u v'");
            if (edge[0] >= n || edge[1] >= n || edge[0] < 0 || edge[1] < 0)
            {
                throw new GraphFileException(source + ":" + lineNo + ": edge (" + edge[0] + ", " + edge[1] +
                    ") names a vertex outside 0.." + (n - 1) + ": ids are 0-based and below n = " + n);
            }
            try
            {
                builder.addEdge((int)edge[0], (int)edge[1]);
            }
            catch (final InvalidGraphException ex)
            {
                throw new GraphFileException(source + ":" + lineNo + ": " + ex.getMessage());
            }
            edges++;
        }
        if (edges < m)
        {
            throw new GraphFileException(source + ": truncated: the header promises " + m + " edges but the file " +
                "ends after " + edges + ": restore the missing lines or fix the count in the first line");
        }
        try
        {
            return builder.build();
        }
        catch (final InvalidGraphException ex)
        {
            throw new GraphFileException(source + ": " + ex.getMessage());
        }
    }

    /** Writes {@code graph} in this format. */
    public static void write(final Graph graph, final Writer out) throws IOException
    {
        out.write(graph.n() + " " + graph.edgeCount() + "\n");
        final StringBuilder line = new StringBuilder(24);
        final IOException[] failure = new IOException[1];
        graph.forEachEdge((u, v) ->
        {
            if (failure[0] != null)
            {
                return;
            }
            line.setLength(0);
            line.append(u).append(' ').append(v).append('\n');
            try
            {
                out.append(line);
            }
            catch (final IOException ex)
            {
                failure[0] = ex;
            }
        });
        if (failure[0] != null)
        {
            throw failure[0];
        }
    }

    private static boolean isSkippable(final String line)
    {
        final String trimmed = line.strip();
        return trimmed.isEmpty() || trimmed.startsWith("#");
    }

    private static long[] parsePair(final String line, final String source, final int lineNo, final String what)
    {
        final String[] parts = line.strip().split("\\s+");
        if (parts.length != 2)
        {
            throw new GraphFileException(source + ":" + lineNo + ": expected " + what + " (two integers), got '" +
                abbreviate(line) + "'");
        }
        try
        {
            return new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1])};
        }
        catch (final NumberFormatException ex)
        {
            throw new GraphFileException(source + ":" + lineNo + ": expected " + what + " (two integers), got '" +
                abbreviate(line) + "'");
        }
    }

    static String abbreviate(final String text)
    {
        return text.length() <= 60 ? text : text.substring(0, 57) + "...";
    }
}
