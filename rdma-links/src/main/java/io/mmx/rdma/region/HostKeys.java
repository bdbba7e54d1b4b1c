package io.mmx.rdma.region;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * The secrets one host's node needs, and no more: the keys of the processes it hosts, the
 * transport key and the region fingerprint, derived from the cluster key by
 * {@link ClusterKey#hostKeys(int...)} (on the command line, {@code mmx keys derive}). A node that
 * holds these cannot authenticate as any other process to memd or a verbs region host; only the
 * daemons, which check everybody, hold the cluster key.
 *
 * <p>The file is text, written 0600:
 * <pre>
 * mmx host keys v1
 * fingerprint HEX32
 * transport HEX64
 * process ID HEX64     (one line per hosted process)
 * </pre>
 */
public final class HostKeys implements RegionKeyCheck
{
    /** The first line of a host key file. */
    public static final String MAGIC = "mmx host keys v1";

    private static final HexFormat HEX = HexFormat.of();

    private final byte[] fingerprint;
    private final byte[] transportKey;
    private final TreeMap<Integer, ProcessKey> processes = new TreeMap<>();

    HostKeys(final byte[] fingerprint, final byte[] transportKey, final ProcessKey[] keys)
    {
        if (fingerprint.length != ClusterKey.FINGERPRINT_LENGTH || transportKey.length != ClusterKey.MAC_LENGTH)
        {
            throw new IllegalArgumentException("a host key file's fingerprint is " + ClusterKey.FINGERPRINT_LENGTH +
                " bytes and its transport key " + ClusterKey.MAC_LENGTH);
        }
        this.fingerprint = fingerprint.clone();
        this.transportKey = transportKey.clone();
        for (final ProcessKey key : keys)
        {
            processes.put(key.process(), key);
        }
    }

    @Override
    public byte[] fingerprint()
    {
        return fingerprint.clone();
    }

    /** The key that authenticates message frames, the same on every host ({@link ClusterKey#transportKey()}). */
    public byte[] transportKey()
    {
        return transportKey.clone();
    }

    /** True if this file holds the key of {@code process}. */
    public boolean holds(final int process)
    {
        return processes.containsKey(process);
    }

    /** The processes whose keys this holds, ascending. */
    public int[] processes()
    {
        return processes.keySet().stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * The key of {@code process}.
     *
     * @throws IllegalArgumentException naming the processes this file holds and the fix.
     */
    public ProcessKey processKey(final int process)
    {
        final ProcessKey key = processes.get(process);
        if (key == null)
        {
            throw new IllegalArgumentException("the host key file holds the keys of processes " +
                Arrays.toString(processes()) + ", not of process " + process + ": derive one for this host's " +
                "processes with 'mmx keys derive --cluster-key-file FILE --ids IDS --out FILE'");
        }
        return key;
    }

    /** True if {@code bytes} look like a host key file rather than a raw cluster key. */
    public static boolean isHostKeyFile(final byte[] bytes)
    {
        final byte[] magic = (MAGIC + "\n").getBytes(StandardCharsets.US_ASCII);
        return bytes.length >= magic.length && Arrays.equals(bytes, 0, magic.length, magic, 0, magic.length);
    }

    /** The file's text. */
    String format()
    {
        final StringBuilder text = new StringBuilder(MAGIC).append('\n');
        text.append("fingerprint ").append(HEX.formatHex(fingerprint)).append('\n');
        text.append("transport ").append(HEX.formatHex(transportKey)).append('\n');
        for (final Map.Entry<Integer, ProcessKey> e : processes.entrySet())
        {
            text.append("process ").append(e.getKey()).append(' ').append(HEX.formatHex(e.getValue().keyBytes()))
                .append('\n');
        }
        return text.toString();
    }

    /**
     * Writes the file readable by its owner only (0600), atomically: a temporary file in the same
     * directory, then a rename. An existing file is replaced only with {@code replace}.
     *
     * @throws FileAlreadyExistsException if {@code path} exists and {@code replace} is false.
     */
    public void write(final Path path, final boolean replace) throws IOException
    {
        if (!replace && Files.exists(path))
        {
            throw new FileAlreadyExistsException(path.toString(), null, "it exists; pass --force to replace it");
        }
        final Path dir = path.toAbsolutePath().getParent();
        final Path temp = Files.createTempFile(dir, ".host-keys", ".tmp",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try
        {
            Files.writeString(temp, format(), StandardCharsets.US_ASCII, StandardOpenOption.TRUNCATE_EXISTING);
            try
            {
                Files.move(temp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }
            catch (final AtomicMoveNotSupportedException ex)
            {
                Files.move(temp, path, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        finally
        {
            Files.deleteIfExists(temp);
        }
    }

    /**
     * Parses a host key file.
     *
     * @throws IllegalArgumentException naming the line that is wrong and the fix.
     */
    public static HostKeys parse(final byte[] bytes, final String source)
    {
        final String[] lines = new String(bytes, StandardCharsets.US_ASCII).split("\n", -1);
        if (!isHostKeyFile(bytes))
        {
            throw new IllegalArgumentException(source + " is not a host key file (its first line is not '" + MAGIC +
                "'): write one with 'mmx keys derive'");
        }
        byte[] fingerprint = null;
        byte[] transport = null;
        final TreeMap<Integer, ProcessKey> keys = new TreeMap<>();
        for (int i = 1; i < lines.length; i++)
        {
            final String line = lines[i].strip();
            if (line.isEmpty())
            {
                continue;
            }
            final String[] f = line.split(" ");
            try
            {
                if (f.length == 2 && f[0].equals("fingerprint") && fingerprint == null)
                {
                    fingerprint = hex(f[1], ClusterKey.FINGERPRINT_LENGTH);
                }
                else if (f.length == 2 && f[0].equals("transport") && transport == null)
                {
                    transport = hex(f[1], ClusterKey.MAC_LENGTH);
                }
                else if (f.length == 3 && f[0].equals("process"))
                {
                    final int id = Integer.parseInt(f[1]);
                    if (id < 0 || keys.containsKey(id))
                    {
                        throw new IllegalArgumentException("process " + f[1] + " is negative or named twice");
                    }
                    keys.put(id, new ProcessKey(id, hex(f[2], ProcessKey.LENGTH)));
                }
                else
                {
                    throw new IllegalArgumentException("expected 'fingerprint HEX', 'transport HEX' (once each) " +
                        "or 'process ID HEX'");
                }
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException(source + " line " + (i + 1) + " is not valid: " + ex.getMessage() +
                    "; write the file anew with 'mmx keys derive'");
            }
        }
        if (fingerprint == null || transport == null || keys.isEmpty())
        {
            throw new IllegalArgumentException(source + " lacks its fingerprint, transport or process lines: " +
                "write it anew with 'mmx keys derive'");
        }
        return new HostKeys(fingerprint, transport, keys.values().toArray(new ProcessKey[0]));
    }

    private static byte[] hex(final String text, final int length)
    {
        final byte[] bytes = HEX.parseHex(text);
        if (bytes.length != length)
        {
            throw new IllegalArgumentException("expected " + length + " bytes of hex, got " + bytes.length);
        }
        return bytes;
    }

    @Override
    public String toString()
    {
        return "HostKeys" + Arrays.toString(processes()); // never the keys
    }
}
