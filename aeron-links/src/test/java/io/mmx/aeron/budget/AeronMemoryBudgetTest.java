package io.mmx.aeron.budget;

import io.mmx.aeron.frame.FrameKey;
import io.mmx.aeron.transport.AeronTransport;
import io.mmx.aeron.transport.Deadline;
import io.mmx.aeron.transport.LoopbackPorts;
import io.mmx.aeron.transport.ProcessDirectory;
import io.mmx.aeron.transport.TransportContext;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AeronMemoryBudgetTest
{
    @TempDir
    Path tempDir;

    @Test
    void measuredFilesMatchTheFormulaAndExtrapolateTo4096()
    {
        final int endpoints = 4;
        final int perEndpoint = 2;
        final int[] ports = LoopbackPorts.freeUdpPorts(endpoints);
        final StringBuilder spec = new StringBuilder();
        for (int e = 0; e < endpoints; e++)
        {
            spec.append(e * perEndpoint).append('-').append(e * perEndpoint + perEndpoint - 1)
                .append("@127.0.0.1:").append(ports[e]).append(';');
        }
        final ProcessDirectory directory = ProcessDirectory.parse(spec.toString());
        final AeronTransport[] transports = new AeronTransport[endpoints];
        try
        {
            for (int e = 0; e < endpoints; e++)
            {
                transports[e] = AeronTransport.launch(new TransportContext()
                    .frameKey(FrameKey.ofHex(1, "0123456789abcdef0123456789abcdef"))
                    .directory(directory).localEndpoint("127.0.0.1:" + ports[e])
                    .aeronDirectoryName(tempDir.resolve("e" + e).toString()));
            }
            Deadline.await("all-to-all connected", 10_000, () ->
            {
                for (final AeronTransport t : transports)
                {
                    t.poll((h, b, o, l) -> { });
                }
            }, () ->
            {
                for (final AeronTransport t : transports)
                {
                    if (!t.isBroadcastConnected())
                    {
                        return false;
                    }
                }
                return true;
            });
            final Path dir = tempDir.resolve("e0");
            Deadline.await("images mapped", 10_000, () -> { }, () -> count(dir.resolve("images")) == endpoints - 1);
            final long publications = sizes(dir.resolve("publications"));
            final long images = sizes(dir.resolve("images"));
            final long fixed = sizes(dir) - publications - images;
            try (Stream<Path> files = Files.walk(dir))
            {
                files.filter(Files::isRegularFile).forEach(p ->
                {
                    try
                    {
                        System.out.println("  " + dir.relativize(p) + " " + Files.size(p));
                    }
                    catch (final IOException ex)
                    {
                        throw new UncheckedIOException(ex);
                    }
                });
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
            final long logLength = AeronMemoryBudget.logLengthBytes(TransportContext.DEFAULT_TERM_LENGTH_BYTES);
            // endpoints-1 UDP publications plus the IPC log; endpoints-1 images.
            assertEquals(endpoints * logLength, publications, "publication files");
            assertEquals((endpoints - 1) * logLength, images, "image files");

            final AeronMemoryBudget measured = AeronMemoryBudget.of(
                endpoints * perEndpoint, perEndpoint, TransportContext.DEFAULT_TERM_LENGTH_BYTES, fixed);
            assertEquals(publications + images + fixed, measured.bytesPerEndpoint());
            System.out.printf("measured n=%d: publications=%d B images=%d B fixed driver files=%d B (%s)%n",
                endpoints * perEndpoint, publications, images, fixed, measured.describe());
            for (final int processesPerJvm : new int[]{1, 8, 32})
            {
                final AeronMemoryBudget at4096 = AeronMemoryBudget.of(
                    4096, processesPerJvm, TransportContext.DEFAULT_TERM_LENGTH_BYTES, fixed);
                System.out.println("extrapolated n=4096: " + at4096.describe());
            }
            final AeronMemoryBudget defaults = AeronMemoryBudget.of(4096, 1, 16 * 1024 * 1024, fixed);
            System.out.println("Aeron default 16 MiB terms, n=4096, one endpoint per process: " + defaults.describe());
            assertTrue(AeronMemoryBudget.of(4096, 8, TransportContext.DEFAULT_TERM_LENGTH_BYTES, fixed)
                .bytesPerProcess() < 64L * 1024 * 1024, "default layout must stay under 64 MiB per process");
        }
        finally
        {
            CloseHelper.quietCloseAll(transports);
        }
    }

    private static long count(final Path dir)
    {
        if (!Files.isDirectory(dir))
        {
            return 0;
        }
        try (Stream<Path> files = Files.list(dir))
        {
            return files.count();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static long sizes(final Path dir)
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            return files.filter(Files::isRegularFile).mapToLong(p ->
            {
                try
                {
                    return Files.size(p);
                }
                catch (final IOException ex)
                {
                    return 0;
                }
            }).sum();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
