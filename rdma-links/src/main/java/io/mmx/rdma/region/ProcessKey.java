package io.mmx.rdma.region;

import javax.crypto.Mac;
import java.util.Arrays;

/**
 * The key that proves one process's identity: HMAC-SHA256(cluster key, "mmx process v1" ‖ id as
 * a little-endian i32). Whoever holds the cluster key (memd, the verbs region host, operators)
 * derives any process's key with {@link ClusterKey#processKey(int)}; a process needs only its own,
 * and holding process A's key does not let anyone authenticate as process B.
 */
public final class ProcessKey
{
    /** Bytes of a process key. */
    public static final int LENGTH = ClusterKey.MAC_LENGTH;

    private final int process;
    private final byte[] key;

    ProcessKey(final int process, final byte[] key)
    {
        if (key.length != LENGTH)
        {
            throw new IllegalArgumentException("a process key is " + LENGTH + " bytes, not " + key.length);
        }
        this.process = process;
        this.key = key.clone();
    }

    /** The process this key authenticates. */
    public int process()
    {
        return process;
    }

    /** A fresh HMAC-SHA256 instance under this key; one per thread. */
    public Mac newMac()
    {
        return ClusterKey.hmacSha256(key);
    }

    /** The raw key, for writing a host's key file only. */
    byte[] keyBytes()
    {
        return key.clone();
    }

    @Override
    public String toString()
    {
        return "ProcessKey[process " + process + "]"; // never the key itself
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof ProcessKey that && that.process == process &&
            java.security.MessageDigest.isEqual(that.key, key);
    }

    @Override
    public int hashCode()
    {
        return Integer.hashCode(process) * 31 + Arrays.hashCode(Arrays.copyOf(key, 4));
    }
}
