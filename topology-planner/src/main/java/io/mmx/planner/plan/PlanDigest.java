package io.mmx.planner.plan;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.placement.Placement;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * A plan's identity: 32 bytes, and the shorter forms that messages and regions carry. Every
 * module names a plan with this type; the forms below are all views of it, each written where
 * the documentation says.
 *
 * <ul>
 *   <li>{@link #of(Plan)}: the content hash, SHA-256 over a canonical encoding of everything in
 *   the plan file except the hash itself and, from format version 2 on, what a time budget
 *   decides; {@link #text()} is the file's {@code content_hash}. The encoding is documented in
 *   docs/plan-format.md so that other tools can recompute it: the ASCII line
 *   {@code mmx-plan/<version>\n}, then big-endian int32/int64 fields (n, degree, seed), the
 *   generator name as UTF-8 with an int32 length, the placement (int32 racks, hosts per rack,
 *   procs per host, then per process int32 rack and host, or a single int32 -1 without
 *   placement), the CSR adjacency (int32 offsets then targets), and finally the analysis object
 *   as compact JSON with keys sorted.</li>
 *   <li>{@link #id64()}: its first 8 bytes read big-endian, what the protocol's region header
 *   word, frame keys and client keys carry.</li>
 *   <li>{@link #membershipFingerprint()}: its first 8 bytes read little-endian, what every
 *   membership message carries.</li>
 *   <li>{@link #ofGraph(Graph)}: SHA-256 over the adjacency alone, what region headers, memd
 *   and the verbs handshake carry, so a region is bound to its neighbours.</li>
 * </ul>
 *
 * <p>Version 2 leaves out of the analysis {@code timing_ms} and the attack searches' results
 * ({@link #TIME_BUDGETED_TOLERANCE}, {@link #TIME_BUDGETED_DOMAIN_ROW}): they depend on how much
 * CPU the search got, so hashing them made the same seed give a different hash on every run.
 * {@link PlanVerifier} checks their witnesses instead. Version 1 hashed the whole analysis; its
 * plans are still hashed that way, so they stay readable.
 */
public final class PlanDigest
{
    /** Digest length in bytes. */
    public static final int LENGTH = 32;
    /** How the plan file's {@code content_hash} starts. */
    public static final String TEXT_PREFIX = "sha256:";

    private static final ObjectMapper CANONICAL = JsonMapper.builder()
        .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
        .build();

    /** Fields of {@code analysis.tolerance} that the attack search's time budget decides. */
    static final List<String> TIME_BUDGETED_TOLERANCE =
        List.of("attack_f", "attack_method", "witness", "witness_size", "witness_closed_neighbourhood");
    /** Fields of each {@code analysis.failure_domains.{racks,hosts}.rows[]} the attack search decides. */
    static final List<String> TIME_BUDGETED_DOMAIN_ROW = List.of("further_crashes_attack", "attack_domains", "attack_witness");
    /** The first format version whose hash leaves out timings and attack results. */
    static final int REPRODUCIBLE_SINCE_VERSION = 2;

    private final byte[] bytes;

    private PlanDigest(final byte[] bytes)
    {
        this.bytes = bytes;
    }

    /** Wraps a 32-byte digest read from a region, a frame or a file. */
    public static PlanDigest of(final byte[] digest)
    {
        if (digest.length != LENGTH)
        {
            throw new IllegalArgumentException("plan digest must be " + LENGTH + " bytes, got " + digest.length +
                ": pass a SHA-256 digest or use PlanDigest.of64 for a 64-bit hash");
        }
        return new PlanDigest(digest.clone());
    }

    /** A 64-bit plan hash, zero-extended to 256 bits (little-endian), for tests and probes. */
    public static PlanDigest of64(final long hash)
    {
        final byte[] b = new byte[LENGTH];
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(hash);
        return new PlanDigest(b);
    }

    /**
     * Parses a plan file's {@code content_hash}: {@code sha256:} and 64 hex digits (the prefix may
     * be left out).
     *
     * @throws IllegalArgumentException naming the text and the fix when it is not that.
     */
    public static PlanDigest parse(final String text)
    {
        final String hex = text.startsWith(TEXT_PREFIX) ? text.substring(TEXT_PREFIX.length()) : text;
        if (hex.length() != 2 * LENGTH)
        {
            throw new IllegalArgumentException("plan content hash '" + text + "' is not sha256:<64 hex digits>: " +
                "re-write the plan with 'topo plan' or 'topo verify'");
        }
        return new PlanDigest(HexFormat.of().parseHex(hex));
    }

    /** The content hash of {@code plan}, computed (not read from its {@code contentHash} field). */
    public static PlanDigest of(final Plan plan)
    {
        final MessageDigest digest = sha256();
        digest.update(("mmx-plan/" + plan.version() + "\n").getBytes(StandardCharsets.US_ASCII));
        final ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
        buffer.putInt(plan.graph().n()).putInt(plan.degree()).putLong(plan.seed());
        final byte[] generator = plan.generator().getBytes(StandardCharsets.UTF_8);
        buffer.putInt(generator.length);
        flush(digest, buffer);
        digest.update(generator);
        final Placement placement = plan.placement();
        if (placement == null)
        {
            buffer.putInt(-1);
        }
        else
        {
            buffer.putInt(placement.racks()).putInt(placement.hostsPerRack()).putInt(placement.procsPerHost());
            for (int p = 0; p < plan.graph().n(); p++)
            {
                ensure(digest, buffer, 8);
                buffer.putInt(placement.rackOf(p)).putInt(placement.hostOf(p));
            }
        }
        final Graph graph = plan.graph();
        putInts(digest, buffer, graph.offsets());
        putInts(digest, buffer, graph.targets());
        flush(digest, buffer);
        digest.update(canonicalJson(plan.version() >= REPRODUCIBLE_SINCE_VERSION ?
            withoutTimeBudgeted(plan.analysis()) : plan.analysis()));
        return new PlanDigest(digest.digest());
    }

    /** SHA-256 over the graph's vertex count and adjacency (little-endian int32), so equal graphs give equal digests. */
    public static PlanDigest ofGraph(final Graph graph)
    {
        final MessageDigest sha = sha256();
        final ByteBuffer b = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(graph.n());
        for (final int v : graph.offsets())
        {
            ensure(sha, b, Integer.BYTES);
            b.putInt(v);
        }
        for (final int v : graph.targets())
        {
            ensure(sha, b, Integer.BYTES);
            b.putInt(v);
        }
        flush(sha, b);
        return new PlanDigest(sha.digest());
    }

    /** The form the plan file writes as {@code content_hash}: {@code sha256:} followed by 64 hex digits. */
    public String text()
    {
        return TEXT_PREFIX + HexFormat.of().formatHex(bytes);
    }

    /** The first 8 bytes read big-endian: what the protocol's region header, frame keys and client keys carry. */
    public long id64()
    {
        long v = 0;
        for (int i = 0; i < 8; i++)
        {
            v = (v << 8) | (bytes[i] & 0xFF);
        }
        return v;
    }

    /** The first 8 bytes read little-endian: what every membership message carries. */
    public long membershipFingerprint()
    {
        return membershipFingerprint(bytes);
    }

    /**
     * {@link #membershipFingerprint()} of 32 digest bytes in a caller's buffer, so a receiver checks
     * a refusal's digest without allocating.
     */
    public static long membershipFingerprint(final byte[] digest)
    {
        long value = 0;
        for (int i = 7; i >= 0; i--)
        {
            value = (value << 8) | (digest[i] & 0xFFL);
        }
        return value;
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

    /** A copy of {@code analysis} without {@code timing_ms} and the attack searches' results. */
    static JsonNode withoutTimeBudgeted(final ObjectNode analysis)
    {
        final ObjectNode copy = analysis.deepCopy();
        copy.remove("timing_ms");
        if (copy.get("tolerance") instanceof ObjectNode tolerance)
        {
            tolerance.remove(TIME_BUDGETED_TOLERANCE);
        }
        if (copy.get("failure_domains") instanceof ObjectNode domains)
        {
            for (final JsonNode kind : domains)
            {
                for (final JsonNode row : kind.path("rows"))
                {
                    if (row instanceof ObjectNode fields)
                    {
                        fields.remove(TIME_BUDGETED_DOMAIN_ROW);
                    }
                }
            }
        }
        return copy;
    }

    static byte[] canonicalJson(final JsonNode node)
    {
        try
        {
            // Tree nodes keep insertion order; re-reading them as an Object lets the mapper sort keys.
            final Object plain = CANONICAL.treeToValue(node, Object.class);
            return CANONICAL.writeValueAsBytes(plain);
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException("cannot encode the analysis canonically", ex);
        }
    }

    private static void putInts(final MessageDigest digest, final ByteBuffer buffer, final int[] values)
    {
        ensure(digest, buffer, 4);
        buffer.putInt(values.length);
        for (final int value : values)
        {
            ensure(digest, buffer, 4);
            buffer.putInt(value);
        }
    }

    private static void ensure(final MessageDigest digest, final ByteBuffer buffer, final int bytes)
    {
        if (buffer.remaining() < bytes)
        {
            flush(digest, buffer);
        }
    }

    private static void flush(final MessageDigest digest, final ByteBuffer buffer)
    {
        buffer.flip();
        digest.update(buffer);
        buffer.clear();
    }

    private static MessageDigest sha256()
    {
        try
        {
            return MessageDigest.getInstance("SHA-256");
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("this JVM has no SHA-256, which every Java SE runtime must provide", ex);
        }
    }
}
