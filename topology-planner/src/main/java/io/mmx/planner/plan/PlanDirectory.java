package io.mmx.planner.plan;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The plan files ({@code *.json}) of one directory, searched for a plan: how a node finds the plan
 * a live plan change names, and a memory daemon the plans it was not started with. A file is
 * parsed again only when its size or modification time changes; a file that fails to parse, and a
 * directory that is missing or cannot be read, hold no plan. Thread-safe.
 */
public final class PlanDirectory
{
    /** A plan found, and the file it was read from. */
    public record Found(Path file, Plan plan)
    {
    }

    private final Path directory;
    private Map<Path, Seen> seen = new HashMap<>();

    /** @param directory the directory whose plan files are searched. */
    public PlanDirectory(final Path directory)
    {
        this.directory = directory;
    }

    /** @return the directory searched. */
    public Path directory()
    {
        return directory;
    }

    /**
     * Searches the directory, its files in name order, for a plan {@code matches} accepts.
     *
     * @return the first such plan and its file, or null when no readable plan file holds one.
     */
    public synchronized Found find(final Predicate<Plan> matches)
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
        Found found = null;
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
            if (entry == null || entry.size != size || entry.modifiedMs != modified)
            {
                entry = new Seen(size, modified, read(file));
            }
            now.put(file, entry);
            if (found == null && entry.plan != null && matches.test(entry.plan))
            {
                found = new Found(file, entry.plan);
            }
        }
        seen = now;
        return found;
    }

    private static Plan read(final Path file)
    {
        try
        {
            return PlanFile.read(file);
        }
        catch (final RuntimeException ex)
        {
            return null; // Not a plan file, or a broken one: skipped.
        }
    }

    // What a file held when last parsed: its plan, or null when it did not parse.
    private record Seen(long size, long modifiedMs, Plan plan)
    {
    }
}
