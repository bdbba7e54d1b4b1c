package io.mmx.rdma.shm;

import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.RegionLinkFactory;
import io.mmx.rdma.region.RegionKeyCheck;
import io.mmx.rdma.region.DirectRegionLink;
import io.mmx.rdma.region.RegionHeader;
import io.mmx.rdma.region.RegionMemory;
import io.mmx.rdma.region.RegionResolver;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Regions as files in a shared-memory directory (default {@code /dev/shm/mmx}), mapped with
 * Agrona. The file, not the process, holds the region: it survives SIGKILL of its owner, and
 * the CPU's atomic instructions on the shared mapping make CAS and fetch-and-add linearizable
 * across processes of one host.
 *
 * <p>Access control here is enforced by the fabric library of each process (it opens links only
 * along the plan) and by file permissions: the directory is 0700 and must belong to this process's
 * user, region files are created 0600 (one user per cluster); processes that bypass the library are
 * not stopped. Use memd where that matters.
 *
 * <p>Exactly one region exists per owner whatever races: a region is written in a private file
 * and published with {@code link(2)}, which fails if the name exists, so concurrent creators all
 * end on the first published file.
 */
public final class ShmRegionStore
{
    /** Default directory: tmpfs on Linux. */
    public static final Path DEFAULT_DIRECTORY = Path.of("/dev/shm/mmx");

    /** Era N (N &gt; 0) of a node keeps its regions in this subdirectory of the base directory, plus N. */
    public static final String ERA_DIRECTORY_PREFIX = "era-";

    private static final String SUFFIX = ".region";
    private static final Set<PosixFilePermission> DIRECTORY_MODE = PosixFilePermissions.fromString("rwx------");
    private static final FileAttribute<Set<PosixFilePermission>> FILE_MODE =
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private final Path directory;

    /**
     * A store in {@code directory}, created 0700 if missing. An existing directory must belong to
     * this process's user; its group and other permissions are removed.
     *
     * @throws UncheckedIOException  if the directory cannot be created or its permissions set.
     * @throws IllegalStateException if it belongs to another user.
     */
    public ShmRegionStore(final Path directory)
    {
        this.directory = directory;
        try
        {
            if (!Files.isDirectory(directory))
            {
                final Path parent = directory.toAbsolutePath().getParent();
                if (parent != null)
                {
                    Files.createDirectories(parent);
                }
                try
                {
                    Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(DIRECTORY_MODE));
                }
                catch (final FileAlreadyExistsException raced)
                {
                    // Another process created it meanwhile: checked below like any existing directory.
                }
            }
            final int ownerUid = (Integer)Files.getAttribute(directory, "unix:uid");
            final int selfUid = currentUid();
            if (selfUid >= 0 && ownerUid != selfUid)
            {
                throw new IllegalStateException("region directory " + directory + " belongs to uid " + ownerUid +
                    ", not to this process's uid " + selfUid + ": another user could replace regions there; " +
                    "use a directory of your own (e.g. /dev/shm/mmx-$USER) or chown it");
            }
            if (!Files.getPosixFilePermissions(directory).equals(DIRECTORY_MODE))
            {
                Files.setPosixFilePermissions(directory, DIRECTORY_MODE);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create region directory " + directory + " with mode 0700: " +
                ex.getMessage() + "; pick a writable directory on tmpfs (e.g. /dev/shm/mmx)", ex);
        }
    }

    // The effective uid owns /proc/self on Linux; elsewhere the owner check is skipped (-1).
    private static int currentUid() throws IOException
    {
        final Path self = Path.of("/proc/self");
        return Files.exists(self) ? (Integer)Files.getAttribute(self, "unix:uid") : -1;
    }

    /** The directory holding the region files. */
    public Path directory()
    {
        return directory;
    }

    /**
     * Where era {@code era}'s regions live when era 0's are in {@code base}: {@code base} itself for
     * era 0, else its subdirectory {@code era-N}. A node creates them there; a verbs region host finds
     * them there ({@link #eraResolver}).
     */
    public static Path eraDirectory(final Path base, final int era)
    {
        if (era < 0)
        {
            throw new IllegalArgumentException("era " + era + " is negative: eras count live plan changes from 0");
        }
        return era == 0 ? base : base.resolve(ERA_DIRECTORY_PREFIX + era);
    }

    /** The file that holds {@code owner}'s region. */
    public Path regionFile(final int owner)
    {
        return directory.resolve(fileName(owner));
    }

    /**
     * Creates {@code owner}'s region, or maps the existing one if its header matches: an owner
     * that restarts after a crash finds its state where it left it.
     *
     * @throws IllegalStateException if an existing file is not a valid region for this owner, plan, key and size.
     */
    public MappedRegion createOrOpen(final int owner, final long dataBytes, final PlanDigest plan, final RegionKeyCheck key)
    {
        RegionHeader.checkDataBytes(dataBytes);
        final Path file = regionFile(owner);
        if (!Files.exists(file))
        {
            create(owner, dataBytes, plan, key, file); // loses quietly to a concurrent creator
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
     * {@code key}, for a server that exposes this host's regions (the verbs region host). Each region is
     * mapped once, on its first successful resolution, and the same memory is returned from then on (a
     * served region must not move, and a server registers it once), as long as the file is the same
     * file: a region file replaced by another (deleted, then created again) is mapped anew, so the server
     * sees the move and re-registers, rather than serving the deleted one beside its owner's new one. A
     * file deleted and not replaced leaves the mapping served. Failures are not remembered, so a region
     * created later is found. Mappings stay open for the life of the JVM (a replaced one too: a server
     * may still have it registered).
     */
    public RegionResolver resolver(final PlanDigest plan, final RegionKeyCheck key)
    {
        final ConcurrentHashMap<Integer, Held> mapped = new ConcurrentHashMap<>();
        return (owner) -> resolveMapped(mapped, owner, regionFile(owner), owner, plan, key);
    }

    /**
     * A resolver of every era's regions: era N's region of an owner is the file in
     * {@link #eraDirectory}(this directory, N), validated against the plan asked for and {@code key},
     * mapped once and held as {@link #resolver} holds them (a replaced file is mapped anew). So a
     * verbs region host serves the regions of the eras that overlap during a live plan change, each
     * era's own, even when two eras run the same plan. Era directories are never created here.
     */
    public io.mmx.rdma.region.EraRegionResolver eraResolver(final RegionKeyCheck key)
    {
        final ConcurrentHashMap<EraOwner, Held> mapped = new ConcurrentHashMap<>();
        return (owner, era, plan) -> resolveMapped(mapped, new EraOwner(owner, era, plan),
            eraDirectory(directory, era).resolve(fileName(owner)), owner, plan, key);
    }

    private record EraOwner(int owner, int era, PlanDigest plan)
    {
    }

    private static <K> RegionResolver.Resolution resolveMapped(final ConcurrentHashMap<K, Held> mapped, final K id,
        final Path file, final int owner, final PlanDigest plan, final RegionKeyCheck key)
    {
        final Object identity = fileKey(file);
        final Held known = mapped.get(id);
        if (known != null && (identity == null || identity.equals(known.fileKey())))
        {
            return RegionResolver.Resolution.found(known.memory());
        }
        final Mapping mapping = map(owner, file, plan, key);
        if (mapping.region == null)
        {
            return RegionResolver.Resolution.failed(mapping.status, mapping.message);
        }
        final Held fresh = new Held(mapping.region.memory(), identity);
        final Held winner = known == null ? mapped.putIfAbsent(id, fresh) :
            (mapped.replace(id, known, fresh) ? null : mapped.get(id));
        if (winner != null)
        {
            mapping.region.close(); // a concurrent resolution mapped it first
            return RegionResolver.Resolution.found(winner.memory());
        }
        return RegionResolver.Resolution.found(fresh.memory());
    }

    private static String fileName(final int owner)
    {
        return "process-" + owner + SUFFIX;
    }

    private record Held(RegionMemory memory, Object fileKey)
    {
    }

    // The file's identity (device and inode on Linux), or null when it does not exist.
    private static Object fileKey(final Path file)
    {
        try
        {
            return Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
        }
        catch (final IOException ex)
        {
            return null;
        }
    }

    /** A link factory whose links map neighbours' files, validated against {@code plan} and {@code key}. */
    public RegionLinkFactory linkFactory(final PlanDigest plan, final RegionKeyCheck key)
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
        final int owner, final long dataBytes, final PlanDigest plan, final RegionKeyCheck key, final Path file)
    {
        // Write the header in a private file created 0600, then publish it with link(2), which fails if
        // the name exists: readers never see a half-made region, and racing creators never fork it.
        final Path tmp = file.resolveSibling("." + file.getFileName() + ".tmp-" + ProcessHandle.current().pid() +
            "-" + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        try
        {
            try (FileChannel channel = FileChannel.open(tmp, java.util.EnumSet.of(StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ, StandardOpenOption.WRITE), FILE_MODE))
            {
                final MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0,
                    RegionHeader.HEADER_BYTES + dataBytes);
                try
                {
                    RegionHeader.write(new UnsafeBuffer(mapped), owner, dataBytes, plan, key);
                }
                finally
                {
                    IoUtil.unmap(mapped);
                }
            }
            try
            {
                Files.createLink(file, tmp);
            }
            catch (final FileAlreadyExistsException lost)
            {
                // Another creator published first: everybody maps its file.
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create region file " + file + ": " + ex.getMessage() +
                "; check that the directory is writable and has " + (RegionHeader.HEADER_BYTES + dataBytes) +
                " bytes free", ex);
        }
        finally
        {
            try
            {
                Files.deleteIfExists(tmp);
            }
            catch (final IOException ignore)
            {
                // Best effort: a leftover private file is never mapped as a region.
            }
        }
    }

    private static Mapping map(final int owner, final Path file, final PlanDigest plan, final RegionKeyCheck key)
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
