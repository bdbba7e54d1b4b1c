package io.mmx.perf.snapshot;

import io.mmx.runtime.snapshot.SnapshotStore;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Random;

/**
 * Snapshot rates in MiB/s against a plain file write and read of the same bytes in the same run,
 * reported as ratios:
 * <ul>
 *   <li>take: a state streamed into {@link SnapshotStore} (chunks, CRC32C, SHA-256, forced to disk,
 *       renamed into place) against {@code OutputStream} writes to a file then a force;</li>
 *   <li>check: {@link SnapshotStore#latest()}, every chunk and the digest verified, against reading
 *       the file;</li>
 *   <li>install: a snapshot received chunk record by chunk record from another replica's store,
 *       each checked, then published, against writing the same bytes to a file and forcing it.</li>
 * </ul>
 * <pre>
 *   --mib N     state size (default 256)
 *   --dir PATH  where the files go (default: a temporary directory under target/)
 * </pre>
 */
public final class SnapshotBenchmark
{
    private static final int PIECE = 64 * 1024;

    private SnapshotBenchmark()
    {
    }

    /** Runs the benchmark; prints a markdown table. */
    public static void main(final String[] args) throws Exception
    {
        int mib = 256;
        Path dir = null;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--mib" -> mib = Integer.parseInt(value(args, ++i, "--mib"));
                case "--dir" -> dir = Path.of(value(args, ++i, "--dir"));
                default ->
                {
                    System.err.println("perf snapshot: unknown option '" + args[i] + "'; use --mib N or --dir PATH");
                    System.exit(2);
                }
            }
        }
        if (mib < 1 || mib > 16_384)
        {
            System.err.println("perf snapshot: --mib " + mib + " is out of range: give 1..16384");
            System.exit(2);
        }
        final Path root = dir != null ? Files.createDirectories(dir) :
            Files.createTempDirectory(Files.createDirectories(Path.of("target")), "perf-snapshot-");
        try
        {
            run(root, mib, System.out);
        }
        finally
        {
            if (dir == null)
            {
                deleteTree(root);
            }
        }
    }

    private static String value(final String[] args, final int i, final String option)
    {
        if (i >= args.length)
        {
            System.err.println("perf snapshot: " + option + " needs a value");
            System.exit(2);
        }
        return args[i];
    }

    static void run(final Path root, final int mib, final PrintStream out) throws IOException
    {
        final long bytes = (long)mib << 20;
        final byte[] piece = new byte[PIECE];
        new Random(1).nextBytes(piece);
        final SnapshotStore sender = new SnapshotStore(root.resolve("sender"), 1);
        final SnapshotStore receiver = new SnapshotStore(root.resolve("receiver"), 1);
        final Path plain = root.resolve("plain.bin");

        // Warm-up at a sixteenth of the size, then the measured passes.
        take(sender, bytes / 16, piece);
        plainWrite(plain, bytes / 16, piece);

        final double plainWrite = rate(bytes, () -> plainWrite(plain, bytes, piece));
        final double plainRead = rate(bytes, () -> plainRead(plain));
        final double take = rate(bytes, () -> take(sender, bytes, piece));
        final double check = rate(bytes, () -> sender.latest().orElseThrow());
        final SnapshotStore.Snapshot sent = sender.latest().orElseThrow();
        final double install = rate(bytes, () -> install(sender, sent, receiver));
        final SnapshotStore.Snapshot got = receiver.latest().orElseThrow();
        if (!got.sha256Hex().equals(sent.sha256Hex()))
        {
            throw new IllegalStateException("the received snapshot differs from the one sent");
        }
        out.printf(Locale.ROOT, "## Snapshots (%d MiB state, %s)%n%n", mib, root);
        out.println("| step | MiB/s | baseline | baseline MiB/s | ratio |");
        out.println("|---|---|---|---|---|");
        row(out, "take (stream, chunk, CRC, SHA-256, fsync, rename)", take, "file write + fsync", plainWrite);
        row(out, "check (every chunk and the digest)", check, "file read", plainRead);
        row(out, "install from a peer's chunks (check, write, fsync)", install, "file write + fsync", plainWrite);
    }

    private static void row(final PrintStream out, final String step, final double rate, final String baseline,
        final double baseRate)
    {
        out.printf(Locale.ROOT, "| %s | %.0f | %s | %.0f | %.2f |%n", step, rate, baseline, baseRate, rate / baseRate);
    }

    private interface Step
    {
        void run() throws IOException;
    }

    private static double rate(final long bytes, final Step step) throws IOException
    {
        final long start = System.nanoTime();
        step.run();
        final double seconds = (System.nanoTime() - start) / 1e9;
        return bytes / (1024.0 * 1024.0) / seconds;
    }

    private static void take(final SnapshotStore store, final long bytes, final byte[] piece) throws IOException
    {
        try (SnapshotStore.Writer writer = store.begin(bytes))
        {
            for (long left = bytes; left > 0; left -= piece.length)
            {
                writer.write(piece, 0, (int)Math.min(piece.length, left));
            }
            writer.publish();
        }
    }

    private static void plainWrite(final Path file, final long bytes, final byte[] piece) throws IOException
    {
        try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE))
        {
            for (long left = bytes; left > 0; left -= piece.length)
            {
                out.write(piece, 0, (int)Math.min(piece.length, left));
            }
        }
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file, StandardOpenOption.WRITE))
        {
            ch.force(true);
        }
    }

    private static void plainRead(final Path file) throws IOException
    {
        final byte[] buffer = new byte[PIECE];
        try (InputStream in = Files.newInputStream(file))
        {
            while (in.read(buffer) >= 0)
            {
                // read it all
            }
        }
    }

    private static void install(final SnapshotStore sender, final SnapshotStore.Snapshot sent,
        final SnapshotStore receiver) throws IOException
    {
        try (SnapshotStore.Receiver in = receiver.receive(sent.logIndex()))
        {
            sender.chunks(sent, (sequence, record, length) -> in.accept(sequence, record, 0, length));
            in.publish(sent.bytes(), sent.sha256());
        }
    }

    private static void deleteTree(final Path root) throws IOException
    {
        try (var files = Files.walk(root))
        {
            for (final Path p : files.sorted(java.util.Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(p);
            }
        }
    }
}
