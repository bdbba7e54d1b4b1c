package io.mmx.rdma.region;

/**
 * What a region header's key check needs: the 16-byte fingerprint of the cluster key (a MAC of a
 * fixed label, not the key). The cluster key has it, and so does a host's key file
 * ({@link HostKeys}), so a node can create and validate regions without holding the cluster key.
 */
public interface RegionKeyCheck
{
    /** The 16-byte fingerprint stored in region headers. */
    byte[] fingerprint();

    /** True if {@code candidate} equals this fingerprint, compared in constant time. */
    default boolean matchesFingerprint(final byte[] candidate)
    {
        return java.security.MessageDigest.isEqual(fingerprint(), candidate);
    }
}
