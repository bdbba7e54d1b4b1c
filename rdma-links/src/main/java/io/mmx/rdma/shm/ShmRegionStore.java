package io.mmx.rdma.shm;

import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.RegionLinkFactory;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.DirectRegionLink;
import io.mmx.rdma.region.PlanDigest;
import io.mmx.rdma.region.RegionHeader;
import io.mmx.rdma.region.RegionMemory;
import io.mmx.rdma.region.RegionResolver;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Regions as files in a shared-memory directory (default {@code /dev/shm/mmx}), mapped with
 * Agrona. The file, not the process, holds the region: it survives SIGKILL of its owner, and
 * the CPU's atomic instructions on the shared mapping make CAS and fetch-and-add linearizable
 * across processes of one host.
 *
 * <p>Access control here is enforced by the fabric library of each process (it opens links only
 * along the plan) and by file permissions (0600, one user per cluster); processes that bypass the
 * library are not stopped. Use memd where that matters.
 */
public final class ShmRegionStore
{
    /** Default directory: tmpfs on Linux. */
    public static final Path DEFAULT_DIRECTORY = Path.of("/dev/shm/mmx");

    private static final String SUFFIX = ".region";

    private final Path directory;

    /**
     * A store in {@code directory}, created if missing.
     *
     * @throws UncheckedIOException if the directory cannot be created.
     */
    public ShmRegionStore(final Path directory)
    {
        this.directory = directory;
        try
        {
            Files.createDirectories(directory);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create region directory " + directory + ": " + ex.getMessage() +
                "; pick a writable directory on tmpfs (e.g. /dev/shm/mmx)", ex);
        }
    }

    /** The directory holding the region files. */
    public Path directory()
    {
        return directory;
    }

    /** The file that holds {@code owner}'s region. */
    public Path regionFile(final int owner)
    {
        return directory.resolve("process-" + owner + SUFFIX);
    }

    /**
     * Creates {@code owner}'s region, or maps the existing one if its header matches: an owner
     * that restarts after a crash finds its state where it left it.
     *
     * @throws IllegalStateException if an existing file is not a valid region for this owner, plan, key and size.
     */
    public MappedRegion createOrOpen(final int owner, final long dataBytes, final PlanDigest plan, final ClusterKey key)
    {
        RegionHeader.checkDataBytes(dataBytes);
        final Path file = regionFile(owner);
        if (!Files.exists(file))
        {
            create(owner, dataBytes, plan, key, file);
        }
        final Mapping mapping = map(owner, file, plan, key);
        if (mapping.region == null)
        {
            throw new IllegalStateException(mapping.message);
        }
        if (mapping.region.memory().dataBytes() != dataBytes)
        {
            mapping.region.close();
            throw new IllegalStateException(file + " holds " + mapping.region.memory().dataBytes() + " data bytes, not " +
                dataBytes + ": use one region size for the whole cluster, or delete the file");
        }
        return mapping.region;
    }

    /** Deletes {@code owner}'s region file; existing mappings stay valid until unmapped. */
    public void delete(final int owner)
    {
        try
        {
            Files.deleteIfExists(regionFile(owner));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot delete " + regionFile(owner) + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * A resolver that maps region files of this directory on demand, validated against {@code plan} and
     * {@code key}, for a server that exposes this host's regions (the verbs region host). Mappings stay
     * open for the life of the JVM: a served region must not move.
     */
    public RegionResolver resolver(final PlanDigest plan, final ClusterKey key)
    {
        return (owner) ->
        {
            final Mapping mapping = map(owner, regionFile(owner), plan, key);
            return mapping.region == null ? RegionResolver.Resolution.failed(mapping.status, mapping.message) :
                RegionResolver.Resolution.found(mapping.region.memory());
        };
    }

    /** A link factory whose links map neighbours' files, validated against {@code plan} and {@code key}. */
    public RegionLinkFactory linkFactory(final PlanDigest plan, final ClusterKey key)
    {
        return (self, owner) ->
        {
            final MappedRegion[] held = new MappedRegion[1];
            final RegionResolver resolver = (o) ->
            {
                final Mapping mapping = map(o, regionFile(o), plan, key);
                if (mapping.region == null)
                {
                    return RegionResolver.Resolution.failed(mapping.status, mapping.message);
                }
                held[0] = mapping.region;
                return RegionResolver.Resolution.found(mapping.region.memory());
            };
            return new DirectRegionLink(owner, resolver, () ->
            {
                if (held[0] != null)
                {
                    held[0].close();
                }
            });
        };
    }

    private static void create(
        final int owner, final long dataBytes, final PlanDigest plan, final ClusterKey key, final Path file)
    {
        // Write the header in a private file, then rename: readers never see a half-made region.
        final Path tmp = file.resolveSibling("." + file.getFileName() + ".tmp-" + ProcessHandle.current().pid());
        final MappedByteBuffer mapped = IoUtil.mapNewFile(tmp.toFile(), RegionHeader.HEADER_BYTES + dataBytes, true);
        try
        {
            RegionHeader.write(new UnsafeBuffer(mapped), owner, dataBytes, plan, key);
            Files.setPosixFilePermissions(tmp, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create region file " + file + ": " + ex.getMessage() +
                "; check that the directory is writable and has " + (RegionHeader.HEADER_BYTES + dataBytes) +
                " bytes free", ex);
        }
        finally
        {
            IoUtil.unmap(mapped);
            try
            {
                Files.deleteIfExists(tmp);
            }
            catch (final IOException ignore)
            {
                // Best effort: the rename normally consumed it.
            }
        }
    }

    private static Mapping map(final int owner, final Path file, final PlanDigest plan, final ClusterKey key)
    {
        final File f = file.toFile();
        final long length = f.length();
        if (!f.exists() || length == 0)
        {
            return new Mapping(null, OpStatus.REGION_LOST, "no region file " + file + " for process " + owner +
                ": the owner has not created its region yet, or it was deleted");
        }
        final MappedByteBuffer mapped;
        try
        {
            mapped = IoUtil.mapExistingFile(f, "region of process " + owner);
        }
        catch (final RuntimeException ex)
        {
            return new Mapping(null, OpStatus.REGION_LOST, "cannot map " + file + ": " + ex.getMessage());
        }
        final UnsafeBuffer buffer = new UnsafeBuffer(mapped);
        final RegionHeader.Verdict verdict = RegionHeader.validate(buffer, mapped.capacity(), owner, plan, key,
            file.toString());
        if (!verdict.ok())
        {
            IoUtil.unmap(mapped);
            return new Mapping(null, verdict.status(), verdict.message());
        }
        return new Mapping(new MappedRegion(new RegionMemory(buffer, owner), mapped), OpStatus.OK, verdict.message());
    }

    private record Mapping(MappedRegion region, OpStatus status, String message)
    {
    }

    /** A region mapped into this process; close it to unmap (the file stays). */
    public static final class MappedRegion implements AutoCloseable
    {
        private final RegionMemory memory;
        private MappedByteBuffer mapped;

        MappedRegion(final RegionMemory memory, final MappedByteBuffer mapped)
        {
            this.memory = memory;
            this.mapped = mapped;
        }

        /** The region's memory; invalid after {@link #close()}. */
        public RegionMemory memory()
        {
            return memory;
        }

        @Override
        public void close()
        {
            if (mapped != null)
            {
                IoUtil.unmap(mapped);
                mapped = null;
            }
        }
    }
}
