package io.mmx.runtime.snapshot;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * A replica's snapshots in one directory: written as a stream of checksummed chunks (never held
 * whole in memory), published atomically, verified when read, the newest few kept.
 *
 * <p>A snapshot file {@code snapshot-<logIndex>.snap} is
 * <pre>
 *   header   "MMXSNAP1", u32 version 1, i64 logIndex (the last index the state includes)
 *   chunks   u32 length (1..{@link #MAX_CHUNK}), u32 CRC32C of the bytes, the bytes
 *   trailer  u32 0, u64 total bytes, u8[32] SHA-256 of all chunk bytes in order
 * </pre>
 * (little-endian). It is written under a temporary name, forced to disk, renamed into place and the
 * directory forced, so a crash leaves either the whole snapshot or none. A file that fails any check
 * is skipped by {@link #latest()} with its reason, never loaded. The same chunk records travel when a
 * snapshot is sent to another replica ({@link #chunks}, {@link #receive}), so the receiver checks
 * every chunk and the whole before it publishes.
 *
 * <p>Not thread-safe: one replica's thread uses its store.
 */
public final class SnapshotStore
{
    /** Largest chunk, bytes. */
    public static final int MAX_CHUNK = 1 << 20;
    /** Chunk size used when writing. */
    public static final int CHUNK = 256 * 1024;

    private static final byte[] MAGIC = {'M', 'M', 'X', 'S', 'N', 'A', 'P', '1'};
    private static final int VERSION = 1;
    private static final int HEADER = 8 + 4 + 8;
    private static final int TRAILER = 4 + 8 + 32;
    private static final Pattern NAME = Pattern.compile("snapshot-(\\d{20})\\.snap");

    private final Path directory;
    private final int keep;

    /** A store in {@code directory} (created if missing) keeping the newest {@code keep} snapshots. */
    public SnapshotStore(final Path directory, final int keep) throws IOException
    {
        if (keep < 1)
        {
            throw new IllegalArgumentException("keep at least 1 snapshot, not " + keep);
        }
        this.directory = Files.createDirectories(directory);
        this.keep = keep;
    }

    /** A snapshot that passed every check: its index, size and content digest. */
    public record Snapshot(long logIndex, long bytes, byte[] sha256, Path file)
    {
        /** The content digest as hex. */
        public String sha256Hex()
        {
            return java.util.HexFormat.of().formatHex(sha256);
        }
    }

    /** A file that failed a check, and why. */
    public record Rejected(Path file, String reason)
    {
    }

    /** The snapshot file of {@code logIndex}. */
    public Path fileOf(final long logIndex)
    {
        return directory.resolve(String.format("snapshot-%020d.snap", logIndex));
    }

    /**
     * Starts a snapshot of the state through {@code logIndex}: write the state to the returned
     * stream, then {@link Writer#publish()}; {@link Writer#close()} without publishing discards it.
     */
    public Writer begin(final long logIndex) throws IOException
    {
        if (logIndex < 0)
        {
            throw new IllegalArgumentException("a snapshot's log index is >= 0, not " + logIndex);
        }
        return new Writer(logIndex);
    }

    /**
     * Starts receiving the snapshot of {@code logIndex} from another replica, chunk record by
     * chunk record as {@link #chunks} produced them; {@link Receiver#publish} checks the total and
     * the digest the sender announced before the file becomes visible.
     */
    public Receiver receive(final long logIndex) throws IOException
    {
        return new Receiver(logIndex);
    }

    /** The newest snapshot that passes every check, if any; files that fail are listed in {@code rejected}. */
    public Optional<Snapshot> latest(final List<Rejected> rejected) throws IOException
    {
        for (final Path file : newestFirst())
        {
            try
            {
                return Optional.of(verify(file));
            }
            catch (final CorruptSnapshotException ex)
            {
                rejected.add(new Rejected(file, ex.getMessage()));
            }
        }
        return Optional.empty();
    }

    /** The newest snapshot that passes every check, if any. */
    public Optional<Snapshot> latest() throws IOException
    {
        return latest(new ArrayList<>());
    }

    /**
     * The snapshot of {@code logIndex}, checked, if there is one.
     *
     * @throws CorruptSnapshotException if its file fails a check.
     */
    public Optional<Snapshot> at(final long logIndex) throws IOException
    {
        final Path file = fileOf(logIndex);
        return Files.exists(file) ? Optional.of(verify(file)) : Optional.empty();
    }

    /**
     * The state bytes of {@code snapshot}, each chunk checked as it is read; the digest is checked
     * at the end, so a consumer must treat what it loaded as void when the stream throws.
     */
    public InputStream open(final Snapshot snapshot) throws IOException
    {
        final Reader reader = new Reader(snapshot.file());
        return new InputStream()
        {
            private byte[] chunk = new byte[0];
            private int position;

            @Override
            public int read() throws IOException
            {
                final byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(final byte[] b, final int off, final int len) throws IOException
            {
                while (position == chunk.length)
                {
                    final byte[] next = reader.nextChunk();
                    if (next == null)
                    {
                        return -1;
                    }
                    chunk = next;
                    position = 0;
                }
                final int n = Math.min(len, chunk.length - position);
                System.arraycopy(chunk, position, b, off, n);
                position += n;
                return n;
            }

            @Override
            public void close() throws IOException
            {
                reader.close();
            }
        };
    }

    /** Receives chunk records (length, CRC, bytes) of a snapshot, in order, for sending to another replica. */
    public interface ChunkSink
    {
        /** One chunk record, {@code record[0..length)}; the array is reused after the call. */
        void chunk(int sequence, byte[] record, int length) throws IOException;
    }

    /** Reads {@code snapshot}'s chunk records, checking each, and hands them to {@code sink} in order. */
    public void chunks(final Snapshot snapshot, final ChunkSink sink) throws IOException
    {
        try (Reader reader = new Reader(snapshot.file()))
        {
            int sequence = 0;
            byte[] bytes;
            while ((bytes = reader.nextChunk()) != null)
            {
                final byte[] record = record(bytes, bytes.length);
                sink.chunk(sequence++, record, record.length);
            }
        }
    }

    private static byte[] record(final byte[] bytes, final int length)
    {
        final CRC32C crc = new CRC32C();
        crc.update(bytes, 0, length);
        final ByteBuffer record = ByteBuffer.allocate(8 + length).order(ByteOrder.LITTLE_ENDIAN);
        record.putInt(length).putInt((int)crc.getValue()).put(bytes, 0, length);
        return record.array();
    }

    private Snapshot verify(final Path file) throws IOException
    {
        try (Reader reader = new Reader(file))
        {
            while (reader.nextChunk() != null)
            {
                // each chunk is checked as it is read
            }
            return new Snapshot(reader.logIndex, reader.total, reader.digest, file);
        }
    }

    private List<Path> newestFirst() throws IOException
    {
        try (Stream<Path> files = Files.list(directory))
        {
            return files.filter(f -> NAME.matcher(f.getFileName().toString()).matches())
                .sorted(Comparator.comparing((Path f) -> f.getFileName().toString()).reversed()).toList();
        }
    }

    private void prune() throws IOException
    {
        final List<Path> files = newestFirst();
        for (int i = keep; i < files.size(); i++)
        {
            Files.deleteIfExists(files.get(i));
        }
    }

    private void install(final Path temp, final long logIndex) throws IOException
    {
        try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE))
        {
            ch.force(true);
        }
        try
        {
            Files.move(temp, fileOf(logIndex), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        catch (final AtomicMoveNotSupportedException ex)
        {
            Files.move(temp, fileOf(logIndex), StandardCopyOption.REPLACE_EXISTING);
        }
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ))
        {
            dir.force(true);
        }
        catch (final IOException ex)
        {
            // Some file systems cannot force a directory; the rename is then as durable as they allow.
        }
        prune();
    }

    private static MessageDigest sha256()
    {
        try
        {
            return MessageDigest.getInstance("SHA-256");
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("SHA-256 is required by every Java runtime", ex);
        }
    }

    private static byte[] header(final long logIndex)
    {
        return ByteBuffer.allocate(HEADER).order(ByteOrder.LITTLE_ENDIAN).put(MAGIC).putInt(VERSION)
            .putLong(logIndex).array();
    }

    private static byte[] trailer(final long total, final byte[] digest)
    {
        return ByteBuffer.allocate(TRAILER).order(ByteOrder.LITTLE_ENDIAN).putInt(0).putLong(total).put(digest)
            .array();
    }

    /**
     * A snapshot file being written under a temporary name: header, chunk records, and on publish
     * the trailer, then an atomic rename; discarded, it leaves nothing.
     */
    private final class PartialFile
    {
        private final long logIndex;
        private final Path temp;
        private final OutputStream out;
        private final MessageDigest digest = sha256();
        private long total;
        private boolean done;

        PartialFile(final long logIndex, final String suffix) throws IOException
        {
            this.logIndex = logIndex;
            this.temp = Files.createTempFile(directory, ".snapshot-" + logIndex + ".", suffix);
            this.out = new java.io.BufferedOutputStream(Files.newOutputStream(temp, StandardOpenOption.WRITE), 1 << 16);
            out.write(header(logIndex));
        }

        /** Appends one chunk record whose state bytes are {@code record[bytesAt..bytesAt+size)}. */
        void append(final byte[] record, final int offset, final int length, final int bytesAt, final int size)
            throws IOException
        {
            if (done)
            {
                throw new IOException("the snapshot of log index " + logIndex + " is already published or discarded");
            }
            out.write(record, offset, length);
            digest.update(record, bytesAt, size);
            total += size;
        }

        byte[] contentDigest()
        {
            return digest.digest();
        }

        Snapshot publish(final byte[] sha) throws IOException
        {
            out.write(trailer(total, sha));
            out.close();
            done = true;
            install(temp, logIndex);
            return new Snapshot(logIndex, total, sha, fileOf(logIndex));
        }

        void discard() throws IOException
        {
            if (!done)
            {
                done = true;
                out.close();
                Files.deleteIfExists(temp);
            }
        }
    }

    /** The stream a state machine writes its snapshot to. */
    public final class Writer extends OutputStream
    {
        private final PartialFile file;
        private final byte[] buffer = new byte[CHUNK];
        private int filled;

        private Writer(final long logIndex) throws IOException
        {
            this.file = new PartialFile(logIndex, ".partial");
        }

        @Override
        public void write(final int b) throws IOException
        {
            write(new byte[]{(byte)b}, 0, 1);
        }

        @Override
        public void write(final byte[] b, final int off, final int len) throws IOException
        {
            if (file.done)
            {
                throw new IOException("the snapshot of log index " + file.logIndex + " is already published or " +
                    "discarded");
            }
            int at = off;
            int left = len;
            while (left > 0)
            {
                final int n = Math.min(left, buffer.length - filled);
                System.arraycopy(b, at, buffer, filled, n);
                filled += n;
                at += n;
                left -= n;
                if (filled == buffer.length)
                {
                    flushChunk();
                }
            }
        }

        private void flushChunk() throws IOException
        {
            if (filled > 0)
            {
                final byte[] record = record(buffer, filled);
                file.append(record, 0, record.length, 8, filled);
                filled = 0;
            }
        }

        /** Finishes the file and makes it visible atomically; returns what was published. */
        public Snapshot publish() throws IOException
        {
            flushChunk();
            return file.publish(file.contentDigest());
        }

        /** Discards an unpublished snapshot. */
        @Override
        public void close() throws IOException
        {
            file.discard();
        }
    }

    /** Takes a snapshot's chunk records from another replica; nothing is visible before {@link #publish}. */
    public final class Receiver implements AutoCloseable
    {
        private final long logIndex;
        private final PartialFile file;
        private int nextSequence;
        private long total;

        private Receiver(final long logIndex) throws IOException
        {
            this.logIndex = logIndex;
            this.file = new PartialFile(logIndex, ".receiving");
        }

        /** The sequence number of the chunk expected next (a resend after loss starts there). */
        public int nextSequence()
        {
            return nextSequence;
        }

        /**
         * One chunk record. A record out of sequence is ignored (returns false); a record that fails
         * its CRC throws, and the sender must resend it.
         */
        public boolean accept(final int sequence, final byte[] record, final int offset, final int length)
            throws IOException
        {
            if (sequence != nextSequence)
            {
                return false;
            }
            final ByteBuffer b = ByteBuffer.wrap(record, offset, length).order(ByteOrder.LITTLE_ENDIAN);
            final int size = length >= 8 ? b.getInt(offset) : -1;
            if (size < 1 || size > MAX_CHUNK || size != length - 8)
            {
                throw new CorruptSnapshotException("chunk " + sequence + " of the snapshot at log index " + logIndex +
                    " has a bad length field");
            }
            final CRC32C crc = new CRC32C();
            crc.update(record, offset + 8, size);
            if ((int)crc.getValue() != b.getInt(offset + 4))
            {
                throw new CorruptSnapshotException("chunk " + sequence + " of the snapshot at log index " + logIndex +
                    " fails its CRC32C");
            }
            file.append(record, offset, length, offset + 8, size);
            total += size;
            nextSequence++;
            return true;
        }

        /**
         * Checks the total and digest the sender announced, then publishes atomically.
         *
         * @throws CorruptSnapshotException if they differ (nothing is published).
         */
        public Snapshot publish(final long expectedBytes, final byte[] expectedSha256) throws IOException
        {
            final byte[] sha = file.contentDigest();
            if (total != expectedBytes || !MessageDigest.isEqual(sha, expectedSha256))
            {
                close();
                throw new CorruptSnapshotException("the snapshot at log index " + logIndex + " arrived as " + total +
                    " bytes with another digest than the " + expectedBytes + " bytes announced: it was not installed");
            }
            return file.publish(sha);
        }

        @Override
        public void close() throws IOException
        {
            file.discard();
        }
    }

    /** Reads and checks a snapshot file chunk by chunk. */
    private static final class Reader implements AutoCloseable
    {
        private final Path file;
        private final InputStream in;
        private final MessageDigest running = sha256();
        private final long logIndex;
        private long total;
        private byte[] digest;
        private boolean ended;

        Reader(final Path file) throws IOException
        {
            this.file = file;
            this.in = new java.io.BufferedInputStream(Files.newInputStream(file), 1 << 16);
            try
            {
                final ByteBuffer header = ByteBuffer.wrap(readFully(HEADER, "header")).order(ByteOrder.LITTLE_ENDIAN);
                final byte[] magic = new byte[MAGIC.length];
                header.get(magic);
                if (!Arrays.equals(magic, MAGIC) || header.getInt() != VERSION)
                {
                    throw new CorruptSnapshotException(file + " is not an mmx snapshot of version " + VERSION);
                }
                this.logIndex = header.getLong();
                final Matcher name = NAME.matcher(file.getFileName().toString());
                if (name.matches() && Long.parseLong(name.group(1)) != logIndex)
                {
                    throw new CorruptSnapshotException(file + " holds log index " + logIndex +
                        ", not the one its name says");
                }
            }
            catch (final IOException ex)
            {
                in.close();
                throw ex;
            }
        }

        /** The next chunk's bytes, checked; null after the trailer, which is checked too. */
        byte[] nextChunk() throws IOException
        {
            if (ended)
            {
                return null;
            }
            final ByteBuffer prefix = ByteBuffer.wrap(readFully(4, "chunk length")).order(ByteOrder.LITTLE_ENDIAN);
            final int size = prefix.getInt();
            if (size == 0)
            {
                final ByteBuffer trailer = ByteBuffer.wrap(readFully(TRAILER - 4, "trailer")).order(ByteOrder.LITTLE_ENDIAN);
                final long announced = trailer.getLong();
                final byte[] sha = new byte[32];
                trailer.get(sha);
                digest = running.digest();
                if (announced != total || !MessageDigest.isEqual(sha, digest))
                {
                    throw new CorruptSnapshotException(file + " fails its SHA-256 or length check");
                }
                if (in.read() != -1)
                {
                    throw new CorruptSnapshotException(file + " has bytes after its trailer");
                }
                ended = true;
                return null;
            }
            if (size < 0 || size > MAX_CHUNK)
            {
                throw new CorruptSnapshotException(file + " has a chunk length of " + size + " bytes");
            }
            final int crc = ByteBuffer.wrap(readFully(4, "chunk CRC")).order(ByteOrder.LITTLE_ENDIAN).getInt();
            final byte[] bytes = readFully(size, "chunk");
            final CRC32C check = new CRC32C();
            check.update(bytes);
            if ((int)check.getValue() != crc)
            {
                throw new CorruptSnapshotException(file + " has a chunk that fails its CRC32C at byte " + total +
                    " of the state");
            }
            running.update(bytes);
            total += size;
            return bytes;
        }

        private byte[] readFully(final int n, final String what) throws IOException
        {
            final byte[] bytes = in.readNBytes(n);
            if (bytes.length != n)
            {
                throw new CorruptSnapshotException(file + " ends inside its " + what + " (truncated)");
            }
            return bytes;
        }

        @Override
        public void close() throws IOException
        {
            in.close();
        }
    }
}
