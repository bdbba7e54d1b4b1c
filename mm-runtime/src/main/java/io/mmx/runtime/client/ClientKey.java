package io.mmx.runtime.client;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * What an outside client needs to talk to a cluster: the cluster id its frames carry and the client
 * key that signs them, HMAC-SHA256(transport key, "mmx client key v1") cut to 16 bytes. Members
 * derive both from the transport key they hold (the cluster id from HMAC-SHA256(transport key,
 * "mmx client cluster id v1")), so they stay the same across live plan changes; a client given the
 * key cannot derive the transport key back, so it cannot sign a member's frame. Every client of a
 * cluster holds the same key.
 *
 * <p>Key file ({@code mmx keys client}), mode 0600:
 * <pre>
 * mmx client key v1
 * cluster 1a2b3c4d5e6f7081
 * key 00112233445566778899aabbccddeeff
 * </pre>
 */
public final class ClientKey
{
    /** First line of a client key file. */
    public static final String MAGIC = "mmx client key v1";
    private static final byte[] LABEL = MAGIC.getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CLUSTER_ID_LABEL = "mmx client cluster id v1".getBytes(StandardCharsets.US_ASCII);
    private static final HexFormat HEX = HexFormat.of();

    private final long clusterId;
    private final byte[] key;

    private ClientKey(final long clusterId, final byte[] key)
    {
        this.clusterId = clusterId;
        this.key = key.clone();
    }

    /** The client key of the cluster whose members hold {@code transportKey}. */
    public static ClientKey fromTransportKey(final byte[] transportKey)
    {
        try
        {
            final Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(transportKey, "HmacSHA256"));
            final byte[] key = Arrays.copyOf(mac.doFinal(LABEL), io.mmx.aeron.frame.FrameKey.KEY_LENGTH);
            final long clusterId = java.nio.ByteBuffer.wrap(mac.doFinal(CLUSTER_ID_LABEL)).getLong();
            return new ClientKey(clusterId, key);
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("HmacSHA256 is required by every Java 17 runtime", ex);
        }
    }

    /** The client key of a cluster, from its cluster key (raw bytes, as in {@code cluster.key}). */
    public static ClientKey fromClusterKey(final byte[] clusterKey)
    {
        return fromTransportKey(io.mmx.rdma.region.ClusterKey.of(clusterKey).transportKey());
    }

    /** The cluster id frames carry (derived from the transport key: the same whatever plan the cluster runs). */
    public long clusterId()
    {
        return clusterId;
    }

    /** The frame key: signs and checks client frames. */
    public io.mmx.aeron.frame.FrameKey frameKey()
    {
        return io.mmx.aeron.frame.FrameKey.of(clusterId, key);
    }

    /** Writes the key file, mode 0600, atomically; refuses an existing file unless {@code replace}. */
    public void write(final Path path, final boolean replace) throws IOException
    {
        if (!replace && Files.exists(path))
        {
            throw new FileAlreadyExistsException(path.toString());
        }
        final Path dir = path.toAbsolutePath().getParent();
        final Path tmp = Files.createTempFile(dir, ".client-key", ".tmp",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try
        {
            Files.writeString(tmp, MAGIC + "\ncluster " + String.format("%016x", clusterId) + "\nkey " +
                HEX.formatHex(key) + "\n");
            Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        finally
        {
            Files.deleteIfExists(tmp);
        }
    }

    /** Reads a key file; the message names the file and what is wrong with it. */
    public static ClientKey read(final Path path) throws IOException
    {
        if (!Files.isReadable(path))
        {
            throw new IllegalArgumentException("client key file " + path + " is not readable: write one with " +
                "'mmx keys client --cluster-key-file FILE --out " + path + "'");
        }
        final String[] lines = Files.readString(path, StandardCharsets.US_ASCII).split("\n");
        try
        {
            if (lines.length != 3 || !lines[0].equals(MAGIC) || !lines[1].startsWith("cluster ") ||
                !lines[2].startsWith("key "))
            {
                throw new IllegalArgumentException("not three lines '" + MAGIC + "', 'cluster HEX', 'key HEX'");
            }
            final long clusterId = Long.parseUnsignedLong(lines[1].substring(8).trim(), 16);
            final byte[] key = HEX.parseHex(lines[2].substring(4).trim());
            if (key.length != io.mmx.aeron.frame.FrameKey.KEY_LENGTH)
            {
                throw new IllegalArgumentException("a key of " + key.length + " bytes, 16 expected");
            }
            return new ClientKey(clusterId, key);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("client key file " + path + " is malformed (" + ex.getMessage() +
                "): write it again with 'mmx keys client'", ex);
        }
    }

    @Override
    public String toString()
    {
        return "ClientKey{cluster=" + String.format("%016x", clusterId) + ", key=<hidden>}";
    }
}
