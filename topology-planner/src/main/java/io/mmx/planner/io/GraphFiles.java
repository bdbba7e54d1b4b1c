package io.mmx.planner.io;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanFile;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Reads a graph from any supported file, choosing the format from the name: {@code .json} is a
 * plan file, {@code .graphml} or {@code .xml} is GraphML, anything else an edge list.
 */
public final class GraphFiles
{
    private GraphFiles()
    {
    }

    /**
     * A graph and where it came from.
     *
     * @param graph  the graph
     * @param format "plan", "graphml" or "edge list"
     * @param plan   the whole plan when the file was one, otherwise null
     */
    public record Loaded(Graph graph, String format, Plan plan)
    {
    }

    /** Reads a plan file or an edge list at {@code path}; a bad file is one {@link GraphFileException} naming the problem. */
    public static Loaded read(final Path path)
    {
        final String source = path.toString();
        if (!Files.isRegularFile(path))
        {
            throw new GraphFileException(source + ": no such file" + (Files.isDirectory(path) ? " (it is a directory)" : "") +
                "; give the path of a plan (.json), GraphML (.graphml) or edge-list file");
        }
        final String name = path.getFileName().toString().toLowerCase(Locale.ROOT);
        try
        {
            if (name.endsWith(".json"))
            {
                final Plan plan = PlanFile.readSealed(path);
                return new Loaded(plan.graph(), "plan", plan);
            }
            if (name.endsWith(".graphml") || name.endsWith(".xml"))
            {
                try (InputStream in = Files.newInputStream(path))
                {
                    return new Loaded(GraphMlFormat.read(in, source), "graphml", null);
                }
            }
            try (BufferedReader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8))
            {
                return new Loaded(EdgeListFormat.read(reader, source), "edge list", null);
            }
        }
        catch (final IOException ex)
        {
            throw new GraphFileException(source + ": cannot read: " + ex.getMessage(), ex);
        }
    }
}
