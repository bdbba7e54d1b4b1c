package io.mmx.rdma.verbs;

import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.ProcessKey;

import javax.crypto.Mac;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * The two messages that set up the queue pair of one plan edge and each era's binding on it: the
 * requester asks for the owner's region of one era (its plan and era number), the region's host
 * answers with where it is and its rkey, or why not. The request's operation says what for:
 * {@link #OP_CONNECT} a new queue pair (the host then admits its rdma_cm connection request),
 * {@link #OP_BIND} the region of another era on the edge's existing queue pair (registered in the
 * edge's protection domain, so that queue pair reaches it with the new rkey; a live plan change
 * keeps the queue pairs of the edges both plans share), {@link #OP_RELEASE} the end of an era's
 * binding (the host deregisters that region for the edge), {@link #OP_OPEN} a new queue pair with no
 * region on it yet (connected ahead of a plan change, before the era it names has regions; the
 * era's region is then bound on it by a BIND). Both are
 * fixed-size, little-endian, and end with a 16-byte tag: HMAC-SHA256 under the requester's
 * process key ({@link ClusterKey#processKey}) over a label, the message before the tag and the
 * sender's full 32-byte plan digest, truncated to 128 bits. So a request proves its requester (a
 * holder of another process's key cannot make one), and only a holder of the cluster key (the
 * region's host) can answer it. The digest is authenticated but not sent (only its first 8 bytes, to tell a wrong plan
 * from a wrong key), so that both messages fit {@link #PRIVATE_DATA_LIMIT}, the rdma_cm private
 * data of an InfiniBand connect request.
 *
 * <pre>
 * REQUEST (52 bytes)
 *   0 u8 version=3  1 u8 kind=0x51  2 u16 cmPort (the requester's rdma_cm source port; 0 unless CONNECT)
 *   4 i32 requester  8 i32 owner  12 u8 op (0 CONNECT, 1 BIND, 2 RELEASE, 3 OPEN)  13 u8[3] reserved=0
 *  16 u64 nonce  24 u8[8] plan digest prefix  32 i32 era  36 u8[16] tag
 * REPLY (56 bytes)
 *   0 u8 version=3  1 u8 kind=0x52  2 u8 status (OpStatus ordinal)  3 u8 op (echoed)
 *   4 i32 requester  8 i32 owner  12 u32 rkey  16 u64 nonce (echoed)  24 u64 remote base
 *  32 u64 data bytes  40 u8[16] tag
 * </pre>
 *
 * A reply is bound to its request by the echoed nonce, requester, owner and operation, so an old
 * reply cannot be replayed to a new request. The era tells the host which of an owner's regions of
 * one plan is meant: two eras may run the same graph (a change that replaces a host), and each has
 * fresh regions. A codec, not a channel: no I/O, one instance per thread.
 */
public final class VerbsHandshake
{
    /** Private data an rdma_cm connect request carries on InfiniBand (92 bytes minus rdma_cm's 36-byte header). */
    public static final int PRIVATE_DATA_LIMIT = 56;
    /** Bytes of a request. */
    public static final int REQUEST_LENGTH = 52;
    /** Bytes of a reply. */
    public static final int REPLY_LENGTH = 56;
    /** Protocol version. */
    public static final byte VERSION = 3;
    /** Bytes of the truncated tag. */
    public static final int TAG_LENGTH = 16;

    /** A new queue pair for the edge, and the region of the request's era on it. */
    public static final byte OP_CONNECT = 0;
    /** The region of the request's era on the edge's existing queue pair (its protection domain). */
    public static final byte OP_BIND = 1;
    /** The requester no longer uses the region of the request's era on this edge. */
    public static final byte OP_RELEASE = 2;
    /**
     * A new queue pair for the edge of the request's plan, with no region on it yet: opened ahead of
     * a plan change that adds the edge (the host admits its rdma_cm connection request in the edge's
     * protection domain; the reply grants no region: address, rkey and size are zero).
     */
    public static final byte OP_OPEN = 3;

    static final byte KIND_REQUEST = 0x51;
    static final byte KIND_REPLY = 0x52;
    static final int PLAN_PREFIX_LENGTH = 8;

    static final int REQ_CM_PORT = 2;
    static final int REQ_REQUESTER = 4;
    static final int REQ_OWNER = 8;
    static final int REQ_OP = 12;
    static final int REQ_NONCE = 16;
    static final int REQ_PLAN_PREFIX = 24;
    static final int REQ_ERA = 32;
    static final int REQ_TAG = 36;

    static final int RSP_STATUS = 2;
    static final int RSP_OP = 3;
    static final int RSP_REQUESTER = 4;
    static final int RSP_OWNER = 8;
    static final int RSP_RKEY = 12;
    static final int RSP_NONCE = 16;
    static final int RSP_BASE = 24;
    static final int RSP_DATA_BYTES = 32;
    static final int RSP_TAG = 40;

    private static final byte[] LABEL = "mmx verbs handshake v3".getBytes(StandardCharsets.US_ASCII);

    // The MAC of a process's key, or null when this side does not hold it.
    private final java.util.function.IntFunction<Mac> macOf;
    private final PlanDigest plan;
    private final byte[] planBytes;
    private final int era;

    /**
     * A codec that holds the cluster key, so it derives every process's key: a region host, which
     * checks requests from any process of any era of {@code plan}, or a tool (requesting in era 0).
     */
    public VerbsHandshake(final ClusterKey key, final PlanDigest plan)
    {
        this(key, plan, 0);
    }

    /** A codec holding the cluster key that requests in era {@code era} of {@code plan} (tools, tests). */
    public VerbsHandshake(final ClusterKey key, final PlanDigest plan, final int era)
    {
        final java.util.Map<Integer, Mac> macs = new java.util.HashMap<>();
        this.macOf = (process) -> macs.computeIfAbsent(process, (p) -> key.processKey(p).newMac());
        this.plan = plan;
        this.planBytes = plan.toByteArray();
        this.era = checkEra(era);
    }

    /**
     * A codec of one process that holds only its own key: it can request as that process and
     * verify replies to it, nothing else. Its requests name era 0 of {@code plan}.
     */
    public VerbsHandshake(final ProcessKey key, final PlanDigest plan)
    {
        this(key, plan, 0);
    }

    /** A codec of one process whose requests name the region of era {@code era} of {@code plan}. */
    public VerbsHandshake(final ProcessKey key, final PlanDigest plan, final int era)
    {
        final Mac mac = key.newMac();
        this.macOf = (process) -> process == key.process() ? mac : null;
        this.plan = plan;
        this.planBytes = plan.toByteArray();
        this.era = checkEra(era);
    }

    private static int checkEra(final int era)
    {
        if (era < 0)
        {
            throw new IllegalArgumentException("era " + era + " is negative: eras count live plan changes from 0");
        }
        return era;
    }

    /** The plan this codec requests under and whose requests it verifies. */
    public PlanDigest plan()
    {
        return plan;
    }

    /** The era this codec's requests name. */
    public int era()
    {
        return era;
    }

    /**
     * A decoded request.
     *
     * @param status    OK, or why it is refused: PROTOCOL_ERROR (garbled), REGION_MISMATCH (another plan),
     *                  BAD_CLUSTER_KEY (tag does not verify).
     * @param message   one sentence naming the problem and the fix when not OK.
     * @param requester the requesting process (meaningful once the tag verified).
     * @param owner     the process whose region is asked for.
     * @param cmPort    the requester's rdma_cm source port.
     * @param nonce     the requester's nonce.
     * @param op        {@link #OP_CONNECT}, {@link #OP_BIND}, {@link #OP_RELEASE} or {@link #OP_OPEN}.
     * @param era       the era whose region of the owner is meant.
     */
    public record Request(OpStatus status, String message, int requester, int owner, int cmPort, long nonce,
        byte op, int era)
    {
    }

    /**
     * A decoded reply.
     *
     * @param status     OK, the host's refusal (REFUSED_NOT_NEIGHBOUR, REGION_LOST, REGION_MISMATCH,
     *                   BAD_CLUSTER_KEY, PROTOCOL_ERROR) or this side's verdict on the reply itself.
     * @param message    one sentence naming the problem and the fix when not OK.
     * @param remoteBase virtual address of the owner's data area.
     * @param rkey       the remote key of the owner's region.
     * @param dataBytes  size of the data area.
     */
    public record Grant(OpStatus status, String message, long remoteBase, int rkey, long dataBytes)
    {
        static Grant refused(final OpStatus status, final String message)
        {
            return new Grant(status, message, 0, 0, 0);
        }
    }

    /**
     * Encodes a request of {@code requester} for the region of {@code owner}, tagged under the
     * requester's process key.
     *
     * @throws IllegalArgumentException if this codec does not hold {@code requester}'s key.
     */
    public byte[] request(final int requester, final int owner, final int cmPort, final long nonce)
    {
        return request(OP_CONNECT, requester, owner, cmPort, nonce);
    }

    /**
     * Encodes a request with operation {@code op} of {@code requester} for the region of {@code owner}
     * of this codec's era, tagged under the requester's process key.
     *
     * @throws IllegalArgumentException if this codec does not hold {@code requester}'s key, or {@code op} is unknown.
     */
    public byte[] request(final byte op, final int requester, final int owner, final int cmPort, final long nonce)
    {
        if (!knownOp(op))
        {
            throw new IllegalArgumentException("handshake operation " + op + " is none of CONNECT, BIND, RELEASE, OPEN");
        }
        if (macOf.apply(requester) == null)
        {
            throw new IllegalArgumentException("this codec holds no key for process " + requester +
                ": a process requests only as itself");
        }
        if (cmPort < 0 || cmPort > 0xFFFF)
        {
            throw new IllegalArgumentException("rdma_cm port " + cmPort + " is not a port number (0..65535)");
        }
        final byte[] bytes = new byte[REQUEST_LENGTH];
        final ByteBuffer b = le(bytes);
        b.put(0, VERSION).put(1, KIND_REQUEST).putShort(REQ_CM_PORT, (short)cmPort)
            .putInt(REQ_REQUESTER, requester).putInt(REQ_OWNER, owner).put(REQ_OP, op).putLong(REQ_NONCE, nonce)
            .put(REQ_PLAN_PREFIX, planBytes, 0, PLAN_PREFIX_LENGTH).putInt(REQ_ERA, era);
        tag(requester, bytes, REQ_TAG, bytes, REQ_TAG);
        return bytes;
    }

    /**
     * Decodes and authenticates a request: its tag must verify under the key of the requester it
     * names, so a holder of one process's key cannot request as another. Bytes after {@link #REQUEST_LENGTH} are ignored: the
     * connection manager pads private data to its full size.
     */
    public Request parseRequest(final byte[] bytes, final int length)
    {
        if (length < REQUEST_LENGTH || bytes[0] != VERSION || bytes[1] != KIND_REQUEST)
        {
            return new Request(OpStatus.PROTOCOL_ERROR, "a verbs connection request of " + length +
                " bytes is not an mmx handshake version " + VERSION + ": run the same mmx version on every process",
                -1, -1, 0, 0, OP_CONNECT, 0);
        }
        final ByteBuffer b = le(bytes);
        final int requester = b.getInt(REQ_REQUESTER);
        final int owner = b.getInt(REQ_OWNER);
        final int cmPort = b.getShort(REQ_CM_PORT) & 0xFFFF;
        final long nonce = b.getLong(REQ_NONCE);
        final byte op = bytes[REQ_OP];
        final int requestEra = b.getInt(REQ_ERA);
        if (!knownOp(op) || requestEra < 0 || bytes[REQ_OP + 1] != 0 ||
            bytes[REQ_OP + 2] != 0 || bytes[REQ_OP + 3] != 0)
        {
            return new Request(OpStatus.PROTOCOL_ERROR, "a verbs handshake request names operation " + op + " and era " +
                requestEra + ", which version " + VERSION + " does not have: run the same mmx version on every process",
                -1, -1, 0, 0, OP_CONNECT, 0);
        }
        if (!Arrays.equals(bytes, REQ_PLAN_PREFIX, REQ_PLAN_PREFIX + PLAN_PREFIX_LENGTH,
            planBytes, 0, PLAN_PREFIX_LENGTH))
        {
            return new Request(OpStatus.REGION_MISMATCH, "process " + requester + " asks for the region of process " +
                owner + " under plan " + hex(bytes, REQ_PLAN_PREFIX) + " but this host serves plan " + plan.shortHex() +
                ": activate the same plan on every process", requester, owner, cmPort, nonce, op, requestEra);
        }
        if (!verify(requester, bytes, REQ_TAG))
        {
            return new Request(OpStatus.BAD_CLUSTER_KEY, "a verbs connection request claiming to be from process " +
                requester + " is not authenticated by that process's key (derived from this cluster's key): give " +
                "every process and host the same cluster key file", requester, owner, cmPort, nonce, op, requestEra);
        }
        return new Request(OpStatus.OK, "process " + requester + " asks for the region of process " + owner +
            " of era " + requestEra, requester, owner, cmPort, nonce, op, requestEra);
    }

    /**
     * Encodes the answer to {@code request}: a grant when {@code status} is OK, else a refusal
     * (address, rkey and size zero).
     */
    public byte[] reply(
        final Request request, final OpStatus status, final long remoteBase, final int rkey, final long dataBytes)
    {
        final boolean ok = status == OpStatus.OK;
        final byte[] bytes = new byte[REPLY_LENGTH];
        le(bytes).put(0, VERSION).put(1, KIND_REPLY).put(RSP_STATUS, (byte)status.ordinal()).put(RSP_OP, request.op())
            .putInt(RSP_REQUESTER, request.requester()).putInt(RSP_OWNER, request.owner())
            .putInt(RSP_RKEY, ok ? rkey : 0).putLong(RSP_NONCE, request.nonce())
            .putLong(RSP_BASE, ok ? remoteBase : 0).putLong(RSP_DATA_BYTES, ok ? dataBytes : 0);
        if (macOf.apply(request.requester()) == null)
        {
            throw new IllegalArgumentException("this codec holds no key for process " + request.requester() +
                ": only a host with the cluster key answers requests");
        }
        tag(request.requester(), bytes, RSP_TAG, bytes, RSP_TAG);
        return bytes;
    }

    /**
     * Decodes and authenticates the reply to this side's request ({@code requester}, {@code owner},
     * {@code nonce}); a reply to another request (replayed, or for another edge) is a PROTOCOL_ERROR.
     */
    public Grant parseReply(final byte[] bytes, final int length, final int requester, final int owner, final long nonce)
    {
        return parseReply(bytes, length, OP_CONNECT, requester, owner, nonce);
    }

    /**
     * Decodes and authenticates the reply to this side's request {@code op} ({@code requester},
     * {@code owner}, {@code nonce}); a reply to another request or operation is a PROTOCOL_ERROR.
     */
    public Grant parseReply(final byte[] bytes, final int length, final byte op, final int requester, final int owner,
        final long nonce)
    {
        final String edge = "the host of process " + owner;
        if (length < REPLY_LENGTH || bytes[0] != VERSION || bytes[1] != KIND_REPLY)
        {
            return Grant.refused(OpStatus.PROTOCOL_ERROR, edge + " answered " + length + " bytes that are not an mmx " +
                "handshake version " + VERSION + " reply: run the same mmx version on every process");
        }
        if (!verify(le(bytes).getInt(RSP_REQUESTER), bytes, RSP_TAG))
        {
            // A host of another plan tags under its own digest, which this side cannot verify. Its
            // REGION_MISMATCH is trusted unverified: a refusal grants nothing, so a forger can only deny service.
            if ((bytes[RSP_STATUS] & 0xFF) == OpStatus.REGION_MISMATCH.ordinal())
            {
                return Grant.refused(OpStatus.REGION_MISMATCH, edge + " serves another plan than " + plan.shortHex() +
                    " (its refusal cannot be authenticated under this plan): activate the same plan on every process");
            }
            return Grant.refused(OpStatus.BAD_CLUSTER_KEY, edge + " answered with a reply not authenticated by " +
                "this cluster's key and plan " + plan.shortHex() + ": give every process and host the same cluster " +
                "key file and plan");
        }
        final ByteBuffer b = le(bytes);
        if (b.getInt(RSP_REQUESTER) != requester || b.getInt(RSP_OWNER) != owner || b.getLong(RSP_NONCE) != nonce ||
            bytes[RSP_OP] != op)
        {
            return Grant.refused(OpStatus.PROTOCOL_ERROR, edge + " answered a different request (process " +
                b.getInt(RSP_REQUESTER) + " for process " + b.getInt(RSP_OWNER) + "): a replayed or misrouted reply; " +
                "the connection is retried on the next operation");
        }
        final int statusOrdinal = bytes[RSP_STATUS] & 0xFF;
        final OpStatus status = statusOrdinal < OpStatus.count() ? OpStatus.values()[statusOrdinal] :
            OpStatus.PROTOCOL_ERROR;
        if (status != OpStatus.OK)
        {
            return Grant.refused(status, refusalMessage(status, requester, owner));
        }
        return new Grant(OpStatus.OK, edge + " granted process " + requester + (op == OP_OPEN ?
            " a queue pair ahead of era " + era : " its region of era " + era),
            b.getLong(RSP_BASE), b.getInt(RSP_RKEY), b.getLong(RSP_DATA_BYTES));
    }

    private static boolean knownOp(final byte op)
    {
        return op == OP_CONNECT || op == OP_BIND || op == OP_RELEASE || op == OP_OPEN;
    }

    /** The sentence a requester reports for a host's refusal. */
    static String refusalMessage(final OpStatus status, final int requester, final int owner)
    {
        final String who = "the host of process " + owner + " refused process " + requester + ": ";
        switch (status)
        {
            case REFUSED_NOT_NEIGHBOUR:
                return who + "it is neither the owner nor a plan neighbour of process " + owner +
                    "; only plan edges get a queue pair";
            case REGION_LOST:
                return who + "the region of process " + owner + " does not exist there (yet); it is retried on the " +
                    "next operation";
            case REGION_MISMATCH:
                return who + "that host serves another plan; activate the same plan on every process";
            case NOT_CONNECTED:
                return who + "it holds no queue pair of this edge to bind another era's region on; the queue pair " +
                    "is connected again on the next operation";
            case BAD_CLUSTER_KEY:
                return who + "the request is not authenticated by that host's cluster key; give every process and " +
                    "host the same cluster key file";
            default:
                return who + status + "; check that every process runs the same mmx version";
        }
    }

    private void tag(
        final int process, final byte[] bytes, final int signedLength, final byte[] out, final int outOffset)
    {
        final Mac mac = macOf.apply(process);
        mac.update(LABEL);
        mac.update(bytes, 0, signedLength);
        mac.update(planBytes);
        System.arraycopy(mac.doFinal(), 0, out, outOffset, TAG_LENGTH);
    }

    private boolean verify(final int process, final byte[] bytes, final int tagOffset)
    {
        if (macOf.apply(process) == null)
        {
            return false;
        }
        final byte[] expected = new byte[TAG_LENGTH];
        tag(process, bytes, tagOffset, expected, 0);
        return MessageDigest.isEqual(expected, Arrays.copyOfRange(bytes, tagOffset, tagOffset + TAG_LENGTH));
    }

    private static ByteBuffer le(final byte[] bytes)
    {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static String hex(final byte[] bytes, final int offset)
    {
        return java.util.HexFormat.of().formatHex(bytes, offset, offset + PLAN_PREFIX_LENGTH);
    }
}
