package io.mmx.planner.io;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

class AtomicFilesTest
{
    @Test
    void failedWriteLeavesOldContentAndNoTemporaryFile(@TempDir final Path dir) throws IOException
    {
        final Path target = dir.resolve("plan.json");
        Files.writeString(target, "old");
        assertThrows(IOException.class, () -> AtomicFiles.write(target, out ->
        {
            out.write("half of the new");
            throw new IOException("disk full");
        }));
        assertEquals("old", Files.readString(target));
        try (var files = Files.list(dir))
        {
            assertEquals(1, files.count());
        }
    }

    @Test
    void successfulWriteReplaces(@TempDir final Path dir) throws IOException
    {
        final Path target = dir.resolve("plan.json");
        AtomicFiles.write(target, out -> out.write("new"));
        assertEquals("new", Files.readString(target));
    }
}
