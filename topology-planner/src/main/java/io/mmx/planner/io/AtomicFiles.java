package io.mmx.planner.io;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Writes a file so that readers see either the old content or the complete new one: the
 * content goes to a temporary file beside the target, which is renamed over it only after
 * the last byte is written. On any failure the temporary file is removed and the target is
 * untouched.
 */
public final class AtomicFiles
{
    private AtomicFiles()
    {
    }

    /** Receives the writer for the file's content. */
    @FunctionalInterface
    public interface Content
    {
        /** Writes the content to {@code out}. */
        void writeTo(Writer out) throws IOException;
    }

    /** Writes {@code target} whole or not at all: to a temporary file beside it, then renamed over it. */
    public static void write(final Path target, final Content content) throws IOException
    {
        final Path absolute = target.toAbsolutePath();
        if (Files.isDirectory(absolute))
        {
            throw new IllegalArgumentException(target + " is a directory: give the path of a file (in it or elsewhere)");
        }
        final Path dir = absolute.getParent();
        if (dir != null && !Files.isDirectory(dir))
        {
            throw new IOException("cannot write " + target + ": the directory " + dir + " does not exist; create it first");
        }
        final Path temp = Files.createTempFile(dir, "." + absolute.getFileName(), ".partial");
        boolean done = false;
        try
        {
            makeWorldReadable(temp);
            try (Writer out = new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(temp),
                StandardCharsets.UTF_8), 1 << 16))
            {
                content.writeTo(out);
            }
            try
            {
                Files.move(temp, absolute, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }
            catch (final AtomicMoveNotSupportedException ex)
            {
                Files.move(temp, absolute, StandardCopyOption.REPLACE_EXISTING);
            }
            done = true;
        }
        finally
        {
            if (!done)
            {
                Files.deleteIfExists(temp);
            }
        }
    }

    /** Temporary files are created private; plans and reports are meant to be shared (rw-r--r--). */
    private static void makeWorldReadable(final Path file) throws IOException
    {
        if (file.getFileSystem().supportedFileAttributeViews().contains("posix"))
        {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        }
    }
}
