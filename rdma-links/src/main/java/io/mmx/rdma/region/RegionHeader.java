package io.mmx.rdma.region;

import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.OpStatus;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The header of every region, as it is written: the store's 128 bytes, then the protocol's
 * identity words at the start of the data area. Both parts carry "MMXREGN1", an owner and the
 * plan; each is checked by whoever opens that part.
 *
 * <p>The store's 128 bytes, written by the region store (shm, local, memd, verbs host) when it
 * creates the region and checked by {@link #validate} whenever a region is opened, little-endian:
 *
 * <pre>
 *   0  u64  magic        "MMXREGN1" (0x314E474552584D4D read little-endian)
 *   8  u32  version      1
 *  12  u32  headerBytes  128; data starts here
 *  16  i32  owner        the process id that owns the region
 *  20  u32  reserved     0
 *  24  u64  dataBytes    size of the data area
 *  32  u8[32] planDigest the plan the region was created for
 *  64  u8[16] keyCheck   fingerprint of the cluster key ({@link ClusterKey#fingerprint()})
 *  80  ...    reserved   0
 * </pre>
 *
 * They are written once, before the region becomes visible, and never change.
 *
 * <p>The protocol's identity words, the first {@link #IDENTITY_WORDS} 8-byte words of the data
 * area (data offsets, little-endian like every fabric word), written by the node that formats the
 * region ({@link #putIdentityWords}) and checked by a process recovering from it
 * ({@link #identityProblem}):
 *
 * <pre>
 *  word 0  PROTOCOL_MAGIC    "MMXREGN1" read big-endian (0x4D4D585245474E31; its bytes read "1NGERXMM")
 *  word 1  PROTOCOL_VERSION  3 (2: whole records only, no delta slots)
 *  word 2  owner             the process id that owns the region
 *  word 3  plan hash         the plan's {@code PlanDigest.id64()}
 * </pre>
 *
 * The protocol's state follows from word 4 on (the core's {@code RegionLayout}).
 */
public final class RegionHeader
{
    /** "MMXREGN1" as a little-endian long. */
    public static final long MAGIC = 0x314E474552584D4DL;
    /** Current layout version. */
    public static final int VERSION = 1;
    /** Header length; the data area starts here, 64-byte aligned. */
    public static final int HEADER_BYTES = 128;

    /** Field offsets. */
    public static final int MAGIC_OFFSET = 0;
    /** Field offsets. */
    public static final int VERSION_OFFSET = 8;
    /** Field offsets. */
    public static final int HEADER_BYTES_OFFSET = 12;
    /** Field offsets. */
    public static final int OWNER_OFFSET = 16;
    /** Field offsets. */
    public static final int DATA_BYTES_OFFSET = 24;
    /** Field offsets. */
    public static final int PLAN_DIGEST_OFFSET = 32;
    /** Field offsets. */
    public static final int KEY_CHECK_OFFSET = 64;

    /** Data word 0 once the protocol formatted the region: "MMXREGN1" as a big-endian long. */
    public static final long PROTOCOL_MAGIC = 0x4D4D5852_45474E31L;
    /** Data word 1: the protocol's layout version. */
    public static final long PROTOCOL_VERSION = 3L;
    /** Identity word indexes in the data area, as in the table above. */
    public static final int MAGIC_WORD = 0;
    /** See the table above. */
    public static final int VERSION_WORD = 1;
    /** See the table above. */
    public static final int OWNER_WORD = 2;
    /** See the table above. */
    public static final int PLAN_HASH_WORD = 3;
    /** Identity words at the start of the data area; the protocol's state follows. */
    public static final int IDENTITY_WORDS = 4;

    /** Largest data area: Agrona buffers index with int. */
    public static final long MAX_DATA_BYTES = Integer.MAX_VALUE - HEADER_BYTES - 7;

    private RegionHeader()
    {
    }

    /** Rejects a data size that no backend can hold, with the fix. */
    public static void checkDataBytes(final long dataBytes)
    {
        if (dataBytes < 8 || dataBytes > MAX_DATA_BYTES || (dataBytes & 7) != 0)
        {
            throw new IllegalArgumentException("region data size " + dataBytes + " is invalid: use a multiple of 8 " +
                "between 8 and " + MAX_DATA_BYTES + " bytes");
        }
    }

    /** Writes a header into a zeroed buffer of at least {@code HEADER_BYTES + dataBytes} bytes. */
    public static void write(
        final AtomicBuffer buffer, final int owner, final long dataBytes, final PlanDigest plan, final RegionKeyCheck key)
    {
        buffer.putInt(VERSION_OFFSET, VERSION);
        buffer.putInt(HEADER_BYTES_OFFSET, HEADER_BYTES);
        buffer.putInt(OWNER_OFFSET, owner);
        buffer.putLong(DATA_BYTES_OFFSET, dataBytes);
        buffer.putBytes(PLAN_DIGEST_OFFSET, plan.toByteArray());
        buffer.putBytes(KEY_CHECK_OFFSET, key.fingerprint());
        // Magic last and ordered: a reader that sees the magic sees the whole header.
        buffer.putLongVolatile(MAGIC_OFFSET, MAGIC);
    }

    /**
     * Checks a header against what the opener expects.
     *
     * @param buffer        the whole region, header first.
     * @param capacity      bytes actually mapped or allocated.
     * @param expectedOwner the owner the opener believes it is opening.
     * @param plan          the opener's plan.
     * @param key           the opener's cluster key.
     * @param where         names the region in messages (file path or "region of process 7").
     * @return a verdict whose status is OK, REGION_MISMATCH or BAD_CLUSTER_KEY, with one clear sentence.
     */
    public static Verdict validate(
        final AtomicBuffer buffer,
        final long capacity,
        final int expectedOwner,
        final PlanDigest plan,
        final RegionKeyCheck key,
        final String where)
    {
        if (capacity < HEADER_BYTES)
        {
            return new Verdict(OpStatus.REGION_MISMATCH, where + " is " + capacity + " bytes, shorter than the " +
                HEADER_BYTES + "-byte region header: it is not an mmx region, delete it and let the owner recreate it");
        }
        final long magic = buffer.getLongVolatile(MAGIC_OFFSET);
        if (magic != MAGIC)
        {
            return new Verdict(OpStatus.REGION_MISMATCH, where + " does not start with the mmx region magic " +
                "(found 0x" + Long.toHexString(magic) + "): it is not an mmx region, delete it or use another directory");
        }
        final int version = buffer.getInt(VERSION_OFFSET);
        if (version != VERSION || buffer.getInt(HEADER_BYTES_OFFSET) != HEADER_BYTES)
        {
            return new Verdict(OpStatus.REGION_MISMATCH, where + " has region layout version " + version +
                ", this build reads version " + VERSION + ": run the same mmx version on every process of the host");
        }
        final int owner = buffer.getInt(OWNER_OFFSET);
        if (owner != expectedOwner)
        {
            return new Verdict(OpStatus.REGION_MISMATCH, where + " belongs to process " + owner + ", not " +
                expectedOwner + ": the region directory or daemon mixes up processes, check the placement");
        }
        final long dataBytes = buffer.getLong(DATA_BYTES_OFFSET);
        if (dataBytes < 8 || HEADER_BYTES + dataBytes > capacity)
        {
            return new Verdict(OpStatus.REGION_MISMATCH, where + " claims " + dataBytes + " data bytes but only " +
                (capacity - HEADER_BYTES) + " are present: the region is truncated, delete it and let the owner recreate it");
        }
        final byte[] digest = new byte[PlanDigest.LENGTH];
        buffer.getBytes(PLAN_DIGEST_OFFSET, digest);
        final PlanDigest found = PlanDigest.of(digest);
        if (!found.equals(plan))
        {
            return new Verdict(OpStatus.REGION_MISMATCH, where + " was created for plan " + found.shortHex() +
                " but this process runs plan " + plan.shortHex() + ": activate the same plan on every process, " +
                "or delete regions of the old plan");
        }
        final byte[] check = new byte[ClusterKey.FINGERPRINT_LENGTH];
        buffer.getBytes(KEY_CHECK_OFFSET, check);
        if (!key.matchesFingerprint(check))
        {
            return new Verdict(OpStatus.BAD_CLUSTER_KEY, where + " was created under another cluster key: " +
                "give every process of the cluster the same key file");
        }
        return new Verdict(OpStatus.OK, where + " is valid");
    }

    /** Fills the identity words of {@code words}, the first data words of a region being formatted. */
    public static void putIdentityWords(final long[] words, final int owner, final long planHash)
    {
        words[MAGIC_WORD] = PROTOCOL_MAGIC;
        words[VERSION_WORD] = PROTOCOL_VERSION;
        words[OWNER_WORD] = owner;
        words[PLAN_HASH_WORD] = planHash;
    }

    /**
     * Checks the identity words a recovering process read from its own region.
     *
     * @param words    the region's first data words, at least {@link #IDENTITY_WORDS}.
     * @param owner    the process recovering.
     * @param planHash the plan it runs ({@code PlanDigest.id64()}).
     * @return null if the region is {@code owner}'s under that plan, else one sentence naming the problem and the fix.
     */
    public static String identityProblem(final long[] words, final int owner, final long planHash)
    {
        if (words[MAGIC_WORD] != PROTOCOL_MAGIC || words[VERSION_WORD] != PROTOCOL_VERSION || words[OWNER_WORD] != owner)
        {
            return "region of process " + owner + " is not an mmx v" + PROTOCOL_VERSION + " region owned by " + owner +
                " (magic/version/owner mismatch): re-create it from the plan";
        }
        if (words[PLAN_HASH_WORD] != planHash)
        {
            return "region of process " + owner + " was laid out for plan hash " + words[PLAN_HASH_WORD] +
                ", this process runs plan " + planHash + ": activate the same plan everywhere";
        }
        return null;
    }

    /** Data bytes recorded in a (validated) header. */
    public static long dataBytes(final AtomicBuffer buffer)
    {
        return buffer.getLong(DATA_BYTES_OFFSET);
    }

    /**
     * The outcome of {@link #validate}.
     *
     * @param status  OK, REGION_MISMATCH or BAD_CLUSTER_KEY.
     * @param message one sentence naming the problem and the fix.
     */
    public record Verdict(OpStatus status, String message)
    {
        /** True if the region may be used. */
        public boolean ok()
        {
            return status == OpStatus.OK;
        }
    }
}
