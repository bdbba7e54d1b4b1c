package io.mmx.planner.plan;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.graph.InvalidGraphException;
import io.mmx.planner.io.AtomicFiles;
import io.mmx.planner.io.GraphFileException;
import io.mmx.planner.placement.Placement;

import java.io.IOException;
import java.io.InputStream;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Reads and writes plan files (JSON, format in docs/plan-format.md). Writing is atomic: a
 * failed write leaves any existing file untouched. Reading is strict: an unknown field, a
 * missing field, a truncated file or an adjacency that is not a simple undirected graph is
 * rejected with the field and the fix. Reading does not check the content hash or the
 * analysis; {@link PlanVerifier} does.
 */
public final class PlanFile
{
    /** The value of the {@code format} field. */
    public static final String FORMAT_NAME = "mmx-plan";

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonFactory FACTORY = MAPPER.getFactory();

    private PlanFile()
    {
    }

    /** Writes {@code plan} to {@code path} atomically. */
    public static void write(final Plan plan, final Path path) throws IOException
    {
        AtomicFiles.write(path, out -> write(plan, out));
    }

    /** Writes {@code plan} as JSON. */
    public static void write(final Plan plan, final Writer out) throws IOException
    {
        final Graph graph = plan.graph();
        out.write("{\n");
        field(out, "format", quote(FORMAT_NAME));
        field(out, "version", Integer.toString(plan.version()));
        field(out, "content_hash", quote(plan.contentHash()));
        field(out, "n", Integer.toString(graph.n()));
        field(out, "degree", Integer.toString(plan.degree()));
        field(out, "edges", Long.toString(graph.edgeCount()));
        field(out, "generator", quote(plan.generator()));
        field(out, "seed", Long.toString(plan.seed()));
        out.write("  \"placement\": ");
        writePlacement(plan.placement(), graph.n(), out);
        out.write(",\n  \"analysis\": ");
        final DefaultPrettyPrinter printer = new DefaultPrettyPrinter()
            .withObjectIndenter(new DefaultIndenter("  ", "\n  "))
            .withArrayIndenter(DefaultPrettyPrinter.NopIndenter.instance);
        out.write(MAPPER.writer(printer).writeValueAsString(plan.analysis()));
        out.write(",\n  \"adjacency\": [");
        final int[] offsets = graph.offsets();
        final int[] targets = graph.targets();
        final StringBuilder row = new StringBuilder(128);
        for (int v = 0; v < graph.n(); v++)
        {
            row.setLength(0);
            row.append(v == 0 ? "\n    [" : ",\n    [");
            for (int i = offsets[v]; i < offsets[v + 1]; i++)
            {
                if (i > offsets[v])
                {
                    row.append(", ");
                }
                row.append(targets[i]);
            }
            row.append(']');
            out.append(row);
        }
        out.write("\n  ]\n}\n");
    }

    /** Reads a plan file; every problem is a {@link GraphFileException} naming the file and field. */
    public static Plan read(final Path path)
    {
        final String source = path.toString();
        if (!Files.isRegularFile(path))
        {
            throw new GraphFileException(source + ": no such file" + (Files.isDirectory(path) ? " (it is a directory)" : "") +
                "; give the path of a plan written by 'topo plan'");
        }
        try (InputStream in = Files.newInputStream(path))
        {
            return read(in, source);
        }
        catch (final IOException ex)
        {
            throw new GraphFileException(source + ": cannot read the plan file: " + ex.getMessage(), ex);
        }
    }

    /**
     * Reads a plan file and checks its content hash: what every command but {@code topo verify} (which
     * lists every difference) reads, so that a plan edited by hand is never used as if topo had made it.
     *
     * @throws GraphFileException naming the file, both hashes and the fix, when they differ.
     */
    public static Plan readSealed(final Path path)
    {
        final Plan plan = read(path);
        final String recomputed = PlanDigest.of(plan).text();
        if (!recomputed.equals(plan.contentHash()))
        {
            throw new GraphFileException(path + ": content_hash is " + plan.contentHash() + " but the content hashes to " +
                recomputed + ": the plan was changed after topo wrote it; make it again with 'topo plan' (or grow, " +
                "shrink), and 'topo verify " + path + "' lists what differs");
        }
        return plan;
    }

    /** Reads a plan from a stream; {@code source} names it in error messages. */
    public static Plan read(final InputStream in, final String source)
    {
        try (JsonParser parser = FACTORY.createParser(in))
        {
            return new Reader(parser, source).readPlan();
        }
        catch (final JsonProcessingException ex)
        {
            throw new GraphFileException(source + ": malformed or truncated JSON at line " +
                ex.getLocation().getLineNr() + ": " + ex.getOriginalMessage() +
                ": the file was cut off or edited by hand; regenerate it with 'topo plan'", ex);
        }
        catch (final IOException ex)
        {
            throw new GraphFileException(source + ": cannot read the plan: " + ex.getMessage(), ex);
        }
    }

    private static void writePlacement(final Placement placement, final int n, final Writer out) throws IOException
    {
        if (placement == null)
        {
            out.write("null");
            return;
        }
        out.write("{\n");
        out.write("    \"racks\": " + placement.racks() + ",\n");
        out.write("    \"hosts_per_rack\": " + placement.hostsPerRack() + ",\n");
        out.write("    \"procs_per_host\": " + placement.procsPerHost() + ",\n");
        final int[] rack = new int[n];
        final int[] host = new int[n];
        for (int p = 0; p < n; p++)
        {
            rack[p] = placement.rackOf(p);
            host[p] = placement.hostOf(p);
        }
        out.write("    \"rack\": " + inline(rack) + ",\n");
        out.write("    \"host\": " + inline(host) + "\n  }");
    }

    private static String inline(final int[] values)
    {
        final StringBuilder text = new StringBuilder(values.length * 3 + 2).append('[');
        for (int i = 0; i < values.length; i++)
        {
            if (i > 0)
            {
                text.append(", ");
            }
            text.append(values[i]);
        }
        return text.append(']').toString();
    }

    private static void field(final Writer out, final String name, final String value) throws IOException
    {
        out.write("  \"" + name + "\": " + value + ",\n");
    }

    private static String quote(final String text)
    {
        return '"' + new String(JsonStringEncoder.getInstance().quoteAsString(text)) + '"';
    }

    /** One pass over the token stream; fields may come in any order. */
    private static final class Reader
    {
        private final JsonParser parser;
        private final String source;

        Reader(final JsonParser parser, final String source)
        {
            this.parser = parser;
            this.source = source;
        }

        Plan readPlan() throws IOException
        {
            expect(parser.nextToken(), JsonToken.START_OBJECT, "the plan (a JSON object)");
            String format = null;
            Integer version = null;
            String hash = null;
            Integer n = null;
            Integer degree = null;
            Long edges = null;
            String generator = null;
            Long seed = null;
            JsonNode placementNode = null;
            boolean sawPlacement = false;
            ObjectNode analysis = null;
            int[][] adjacency = null;
            while (parser.nextToken() == JsonToken.FIELD_NAME)
            {
                final String name = parser.currentName();
                final JsonToken value = parser.nextToken();
                switch (name)
                {
                    case "format" -> format = text(name, value);
                    case "version" -> version = intValue(name, value);
                    case "content_hash" -> hash = text(name, value);
                    case "n" -> n = intValue(name, value);
                    case "degree" -> degree = intValue(name, value);
                    case "edges" -> edges = longValue(name, value);
                    case "generator" -> generator = text(name, value);
                    case "seed" -> seed = longValue(name, value);
                    case "placement" ->
                    {
                        sawPlacement = true;
                        placementNode = value == JsonToken.VALUE_NULL ? null : parser.readValueAsTree();
                    }
                    case "analysis" ->
                    {
                        expect(value, JsonToken.START_OBJECT, "field 'analysis' (an object)");
                        analysis = parser.readValueAsTree();
                    }
                    case "adjacency" -> adjacency = readAdjacency(value);
                    default -> throw error("unknown field '" + name + "'; this topo reads plan format versions " +
                        Plan.OLDEST_READABLE_VERSION + " to " + Plan.FORMAT_VERSION + " (docs/plan-format.md lists the fields)");
                }
            }
            if (!FORMAT_NAME.equals(require(format, "format")))
            {
                throw error("field 'format' is '" + format + "', not '" + FORMAT_NAME + "': this is not an mmx plan file");
            }
            if (require(version, "version") < Plan.OLDEST_READABLE_VERSION || version > Plan.FORMAT_VERSION)
            {
                throw error("plan format version " + version + " is not one this topo reads (" +
                    Plan.OLDEST_READABLE_VERSION + " to " + Plan.FORMAT_VERSION +
                    "): use the mmx release that wrote it, or regenerate the plan");
            }
            require(hash, "content_hash");
            require(n, "n");
            require(degree, "degree");
            require(edges, "edges");
            require(generator, "generator");
            require(seed, "seed");
            require(analysis, "analysis");
            require(adjacency, "adjacency");
            if (!sawPlacement)
            {
                throw error("missing field 'placement' (null when the plan has none)");
            }
            if (adjacency.length != n)
            {
                throw error("field 'adjacency' has " + adjacency.length + " rows but 'n' is " + n +
                    ": one row per process is required");
            }
            final Graph graph = toGraph(adjacency);
            if (graph.edgeCount() != edges)
            {
                throw error("field 'edges' is " + edges + " but the adjacency holds " + graph.edgeCount() + " edges");
            }
            final Placement placement = placementNode == null ? null : PlanPlacementJson.read(placementNode, n, source);
            return new Plan(version, graph, degree, generator, seed, placement, analysis, hash);
        }

        private int[][] readAdjacency(final JsonToken start) throws IOException
        {
            expect(start, JsonToken.START_ARRAY, "field 'adjacency' (an array of rows)");
            int[][] rows = new int[1024][];
            int count = 0;
            int[] row = new int[16];
            JsonToken token;
            while ((token = parser.nextToken()) != JsonToken.END_ARRAY)
            {
                expect(token, JsonToken.START_ARRAY, "adjacency row " + count + " (an array of ids)");
                int size = 0;
                while ((token = parser.nextToken()) != JsonToken.END_ARRAY)
                {
                    if (token != JsonToken.VALUE_NUMBER_INT)
                    {
                        throw error("adjacency row " + count + " holds " + describe(token) + "; rows hold process ids");
                    }
                    if (size == row.length)
                    {
                        row = Arrays.copyOf(row, size * 2);
                    }
                    row[size++] = parser.getIntValue();
                }
                if (count == rows.length)
                {
                    rows = Arrays.copyOf(rows, count * 2);
                }
                rows[count++] = Arrays.copyOf(row, size);
            }
            return Arrays.copyOf(rows, count);
        }

        private Graph toGraph(final int[][] adjacency)
        {
            final int n = adjacency.length;
            long stubs = 0;
            for (int u = 0; u < n; u++)
            {
                final int[] row = adjacency[u];
                Arrays.sort(row);
                for (int i = 0; i < row.length; i++)
                {
                    final int v = row[i];
                    if (v < 0 || v >= n)
                    {
                        throw error("adjacency[" + u + "] lists " + v + ", which is not a process id (0.." + (n - 1) + ")");
                    }
                    if (v == u)
                    {
                        throw error("adjacency[" + u + "] lists process " + u + " itself: self-loops are not allowed, " +
                            "remove it");
                    }
                    if (i > 0 && row[i - 1] == v)
                    {
                        throw error("adjacency[" + u + "] lists " + v + " twice: list each neighbour once");
                    }
                }
                stubs += row.length;
            }
            final Graph.Builder builder = Graph.builder(n);
            for (int u = 0; u < n; u++)
            {
                for (final int v : adjacency[u])
                {
                    if (Arrays.binarySearch(adjacency[v], u) < 0)
                    {
                        throw error("asymmetric edge: adjacency[" + u + "] lists " + v + " but adjacency[" + v +
                            "] does not list " + u + "; edges are undirected, so add " + u + " to adjacency[" + v +
                            "] or remove " + v + " from adjacency[" + u + "]");
                    }
                    if (u < v)
                    {
                        builder.addEdge(u, v);
                    }
                }
            }
            if (stubs % 2 != 0)
            {
                throw error("the adjacency lists " + stubs + " neighbour entries, an odd number; it cannot be undirected");
            }
            try
            {
                return builder.build();
            }
            catch (final InvalidGraphException ex)
            {
                throw error(ex.getMessage());
            }
        }

        private String text(final String name, final JsonToken token) throws IOException
        {
            if (token != JsonToken.VALUE_STRING)
            {
                throw error("field '" + name + "' must be a string, found " + describe(token));
            }
            return parser.getText();
        }

        private int intValue(final String name, final JsonToken token) throws IOException
        {
            final long value = longValue(name, token);
            if (value != (int)value)
            {
                throw error("field '" + name + "' is " + value + ", out of the 32-bit range");
            }
            return (int)value;
        }

        private long longValue(final String name, final JsonToken token) throws IOException
        {
            if (token != JsonToken.VALUE_NUMBER_INT)
            {
                throw error("field '" + name + "' must be an integer, found " + describe(token));
            }
            return parser.getLongValue();
        }

        private <T> T require(final T value, final String name)
        {
            if (value == null)
            {
                throw error("missing field '" + name + "'; the file is incomplete, regenerate it with 'topo plan'");
            }
            return value;
        }

        private void expect(final JsonToken token, final JsonToken wanted, final String what)
        {
            if (token != wanted)
            {
                throw error("expected " + what + ", found " + describe(token));
            }
        }

        private String describe(final JsonToken token)
        {
            return token == null ? "the end of the file (truncated?)" : token.asString() == null ?
                token.name().toLowerCase().replace('_', ' ') : "'" + token.asString() + "'";
        }

        private GraphFileException error(final String message)
        {
            return new GraphFileException(source + " (line " + parser.currentLocation().getLineNr() + "): " + message);
        }
    }
}
