package io.mmx.rdma.region;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * The secret shared by the processes of one cluster. memd authenticates every frame with
 * HMAC-SHA256 under it; shm and local regions store a fingerprint of it in their header so a
 * process of another cluster (or with a stale key) is refused with {@code BAD_CLUSTER_KEY}.
 */
public final class ClusterKey implements RegionKeyCheck
{
    /** Length of the fingerprint stored in region headers. */
    public static final int FINGERPRINT_LENGTH = 16;
    /** Length of an HMAC-SHA256 tag. */
    public static final int MAC_LENGTH = 32;

    private static final int MIN_KEY_BYTES = 16;
    private static final byte[] FINGERPRINT_LABEL = "mmx region key check v1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TRANSPORT_LABEL = "mmx transport key v1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PROCESS_LABEL = "mmx process v1".getBytes(StandardCharsets.US_ASCII);

    private final byte[] key;
    private final byte[] fingerprint;

    private ClusterKey(final byte[] key)
    {
        if (key.length < MIN_KEY_BYTES)
        {
            throw new IllegalArgumentException("cluster key is " + key.length + " bytes, at least " + MIN_KEY_BYTES +
                " are needed: generate one with `head -c 32 /dev/urandom > cluster.key`");
        }
        this.key = key.clone();
        final Mac mac = newMac();
        mac.update(FINGERPRINT_LABEL);
        this.fingerprint = Arrays.copyOf(mac.doFinal(), FINGERPRINT_LENGTH);
    }

    /** A key from raw bytes (at least 16). */
    public static ClusterKey of(final byte[] key)
    {
        return new ClusterKey(key);
    }

    /** A key from a string, for tests and examples only. */
    public static ClusterKey ofPassphrase(final String passphrase)
    {
        return new ClusterKey(passphrase.getBytes(StandardCharsets.UTF_8));
    }

    /** Reads a key file (raw bytes, at least 16). */
    public static ClusterKey fromFile(final Path path) throws IOException
    {
        return new ClusterKey(Files.readAllBytes(path));
    }

    /** A fresh HMAC-SHA256 instance under this key; one per thread. */
    public Mac newMac()
    {
        return hmacSha256(key);
    }

    /** A fresh HMAC-SHA256 instance under {@code key} (the cluster's or a process's). */
    static Mac hmacSha256(final byte[] key)
    {
        try
        {
            final Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac;
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("HmacSHA256 is required by every Java 17 runtime", ex);
        }
    }

    /**
     * The key of process {@code process}: HMAC-SHA256(this key, "mmx process v1" ‖ process as a
     * little-endian i32). Give a process only its own; daemons that check identities derive them here.
     */
    public ProcessKey processKey(final int process)
    {
        final Mac mac = newMac();
        mac.update(PROCESS_LABEL);
        mac.update(new byte[]{(byte)process, (byte)(process >>> 8), (byte)(process >>> 16), (byte)(process >>> 24)});
        return new ProcessKey(process, mac.doFinal());
    }

    /**
     * The key that authenticates message frames between processes: HMAC-SHA256(this key, "mmx
     * transport key v1"). Every process holds it, so it proves membership of the cluster, not
     * which process sent a frame.
     */
    public byte[] transportKey()
    {
        return newMac().doFinal(TRANSPORT_LABEL);
    }

    /**
     * What a host's node needs and no more: the keys of {@code processes}, the transport key and
     * the region fingerprint, without the cluster key itself.
     */
    public HostKeys hostKeys(final int... processes)
    {
        final ProcessKey[] keys = new ProcessKey[processes.length];
        for (int i = 0; i < processes.length; i++)
        {
            keys[i] = processKey(processes[i]);
        }
        return new HostKeys(fingerprint(), transportKey(), keys);
    }

    /** The 16-byte fingerprint stored in region headers (a MAC of a fixed label, not the key). */
    @Override
    public byte[] fingerprint()
    {
        return fingerprint.clone();
    }

    /** True if {@code candidate} equals this key's fingerprint, compared in constant time. */
    @Override
    public boolean matchesFingerprint(final byte[] candidate)
    {
        return MessageDigest.isEqual(fingerprint, candidate);
    }
}
