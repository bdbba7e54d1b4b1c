package io.mmx.rdma.memd;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.planner.plan.PlanFile;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The plan files ({@code *.json}) of one directory, looked up by the digest of their graph
 * ({@link PlanDigest#ofGraph}): how a memory daemon learns the plans it was not started with.
 * A file is parsed again only when its size or modification time changes; a file that fails to
 * parse is skipped. Not thread-safe: the daemon's I/O thread alone uses it, on the control path.
 */
final class PlanDirectory
{
    private final Path directory;
    private Map<Path, Seen> seen = new HashMap<>();

    PlanDirectory(final Path directory)
    {
        this.directory = directory;
    }

    /** The directory searched. */
    Path directory()
    {
        return directory;
    }

    /**
     * Searches the directory for a plan whose graph has {@code digest}.
     *
     * @return that plan's graph, or null when no readable plan file in the directory has it.
     */
    Graph find(final PlanDigest digest)
    {
        final List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory, "*.json"))
        {
            stream.forEach(files::add);
        }
        catch (final IOException | RuntimeException ex)
        {
            return null; // A missing or unreadable directory holds no plan.
        }
        files.sort(null);
        final Map<Path, Seen> now = new HashMap<>();
        Graph found = null;
        for (final Path file : files)
        {
            final BasicFileAttributes attributes;
            try
            {
                attributes = Files.readAttributes(file, BasicFileAttributes.class);
            }
            catch (final IOException | RuntimeException ex)
            {
                continue;
            }
            if (!attributes.isRegularFile())
            {
                continue;
            }
            final long size = attributes.size();
            final long modified = attributes.lastModifiedTime().toMillis();
            Seen entry = seen.get(file);
            Graph graph = null;
            if (entry == null || entry.size != size || entry.modifiedMs != modified)
            {
                graph = read(file);
                entry = new Seen(size, modified, graph == null ? null : PlanDigest.ofGraph(graph));
            }
            now.put(file, entry);
            if (found == null && digest.equals(entry.digest))
            {
                if (graph == null)
                {
                    graph = read(file);
                }
                if (graph != null && PlanDigest.ofGraph(graph).equals(digest))
                {
                    found = graph;
                }
            }
        }
        seen = now;
        return found;
    }

    private static Graph read(final Path file)
    {
        try
        {
            return PlanFile.read(file).graph();
        }
        catch (final RuntimeException ex)
        {
            return null; // Not a plan file, or a broken one: skipped.
        }
    }

    // What a file held when last parsed: the digest of its graph, or null when it did not parse.
    private record Seen(long size, long modifiedMs, PlanDigest digest)
    {
    }
}
