package io.mmx.planner.plan;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.placement.Placement;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The content hash of a plan: SHA-256 over a canonical encoding of everything in the file
 * except the hash itself and, from format version 2 on, what a time budget decides. The
 * encoding is documented in docs/plan-format.md so that other tools can recompute it: the ASCII
 * line {@code mmx-plan/<version>\n}, then big-endian int32/int64 fields (n, degree, seed), the
 * generator name as UTF-8 with an int32 length, the placement (int32 racks, hosts per rack,
 * procs per host, then per process int32 rack and host, or a single int32 -1 without
 * placement), the CSR adjacency (int32 offsets then targets), and finally the analysis object
 * as compact JSON with keys sorted.
 *
 * <p>Version 2 leaves out of the analysis {@code timing_ms} and the attack searches' results
 * ({@link #TIME_BUDGETED_TOLERANCE}, {@link #TIME_BUDGETED_DOMAIN_ROW}): they depend on how much
 * CPU the search got, so hashing them made the same seed give a different hash on every run.
 * {@link PlanVerifier} checks their witnesses instead. Version 1 hashed the whole analysis; its
 * plans are still hashed that way, so they stay readable.
 */
public final class ContentHash
{
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

    private ContentHash()
    {
    }

    /** The hash as written in the plan file: {@code sha256:} followed by 64 hex digits. */
    public static String of(final Plan plan)
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
        return "sha256:" + HexFormat.of().formatHex(digest.digest());
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
