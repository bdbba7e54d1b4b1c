package io.mmx.rdma.region;

import io.mmx.planner.graph.Graph;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A 256-bit digest identifying the plan a region was created for. A region opened under a
 * different plan is refused, because its neighbours (and so its access list) would differ.
 */
public final class PlanDigest
{
    /** Digest length in bytes. */
    public static final int LENGTH = 32;

    private final byte[] bytes;

    private PlanDigest(final byte[] bytes)
    {
        this.bytes = bytes;
    }

    /** Wraps a 32-byte digest computed elsewhere (e.g. the plan file's content hash). */
    public static PlanDigest of(final byte[] digest)
    {
        if (digest.length != LENGTH)
        {
            throw new IllegalArgumentException("plan digest must be " + LENGTH + " bytes, got " + digest.length +
                ": pass a SHA-256 digest or use PlanDigest.of64 for a 64-bit hash");
        }
        return new PlanDigest(digest.clone());
    }

    /** A 64-bit plan hash, zero-extended to 256 bits. */
    public static PlanDigest of64(final long hash)
    {
        final byte[] b = new byte[LENGTH];
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(hash);
        return new PlanDigest(b);
    }

    /** SHA-256 over the graph's vertex count and adjacency, so equal graphs give equal digests. */
    public static PlanDigest of(final Graph graph)
    {
        try
        {
            final MessageDigest sha = MessageDigest.getInstance("SHA-256");
            final ByteBuffer b = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
            b.putInt(graph.n());
            for (final int v : graph.offsets())
            {
                if (b.remaining() < Integer.BYTES)
                {
                    sha.update(b.flip());
                    b.clear();
                }
                b.putInt(v);
            }
            for (final int v : graph.targets())
            {
                if (b.remaining() < Integer.BYTES)
                {
                    sha.update(b.flip());
                    b.clear();
                }
                b.putInt(v);
            }
            sha.update(b.flip());
            return new PlanDigest(sha.digest());
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("SHA-256 is required by every Java 17 runtime", ex);
        }
    }

    /** A copy of the digest bytes. */
    public byte[] toByteArray()
    {
        return bytes.clone();
    }

    /** Reads byte {@code i} without copying. */
    public byte byteAt(final int i)
    {
        return bytes[i];
    }

    /** First 8 bytes in hex, enough to tell plans apart in messages. */
    public String shortHex()
    {
        return HexFormat.of().formatHex(bytes, 0, 8);
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof PlanDigest && Arrays.equals(bytes, ((PlanDigest)o).bytes);
    }

    @Override
    public int hashCode()
    {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString()
    {
        return "PlanDigest(" + shortHex() + "...)";
    }
}
